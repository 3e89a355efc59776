// Hotspot: explicit 2D thermal simulation. Each block loads a tile of the
// temperature grid plus a one-cell halo into shared memory, synchronises and
// updates its interior cells from the power map. One launch per iteration.
#define TILE 16
extern "C" __global__ void hotspot_step(const float *temp_in, const float *power,
                                        float *temp_out, int rows, int cols,
                                        float cap, float rx, float ry, float rz,
                                        float amb) {
  __shared__ float t[TILE + 2][TILE + 2];
  int tx = threadIdx.x, ty = threadIdx.y;
  int c = blockIdx.x * TILE + tx;
  int r = blockIdx.y * TILE + ty;
  int rc = min(max(r, 0), rows - 1), cc = min(max(c, 0), cols - 1);
  t[ty + 1][tx + 1] = temp_in[rc * cols + cc];
  if (tx == 0) t[ty + 1][0] = temp_in[rc * cols + max(cc - 1, 0)];
  if (tx == TILE - 1) t[ty + 1][TILE + 1] = temp_in[rc * cols + min(cc + 1, cols - 1)];
  if (ty == 0) t[0][tx + 1] = temp_in[max(rc - 1, 0) * cols + cc];
  if (ty == TILE - 1) t[TILE + 1][tx + 1] = temp_in[min(rc + 1, rows - 1) * cols + cc];
  __syncthreads();
  if (r >= rows || c >= cols) return;
  float center = t[ty + 1][tx + 1];
  float delta = (power[r * cols + c] +
                 (t[ty + 1][tx + 2] + t[ty + 1][tx] - 2.0f * center) * rx +
                 (t[ty + 2][tx + 1] + t[ty][tx + 1] - 2.0f * center) * ry +
                 (amb - center) * rz) / cap;
  temp_out[r * cols + c] = center + delta;
}
