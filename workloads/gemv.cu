// GEMV: y = A x for a dense row-major matrix, one warp per row: the lanes
// stride along the row (coalesced), then a __shfl_down_sync tree sums the
// partials. Bandwidth-bound: every element of A is read once.
extern "C" __global__ void gemv_warp(const float *A, const float *x, float *y, int rows, int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  if (warp >= rows) return;
  const float *row = A + (long long)warp * cols;
  float acc = 0.0f;
  for (int c = lane; c < cols; c += 32) acc += row[c] * x[c];
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (lane == 0) y[warp] = acc;
}
