// Conv2D: separable 9-tap image filter without textures: a row pass and a
// column pass, each thread one output pixel reading its nine neighbours along
// the row (coalesced) or the column (one line per tap) from global memory,
// clamped at the borders. The taps are a kernel argument array.
#define R 4
extern "C" __global__ void conv_rows(const float *in, float *out, const float *w, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float acc = 0.0f;
  for (int k = -R; k <= R; ++k) {
    int xx = min(max(x + k, 0), width - 1);
    acc += w[k + R] * in[y * width + xx];
  }
  out[y * width + x] = acc;
}

extern "C" __global__ void conv_cols(const float *in, float *out, const float *w, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float acc = 0.0f;
  for (int k = -R; k <= R; ++k) {
    int yy = min(max(y + k, 0), height - 1);
    acc += w[k + R] * in[yy * width + x];
  }
  out[y * width + x] = acc;
}
