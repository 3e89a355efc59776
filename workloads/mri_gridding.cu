// MRI-gridding-like scatter: every non-uniform k-space sample spreads its
// value onto the Cartesian grid points within a radius, weighted by a
// Kaiser-Bessel-like window (here a Gaussian), with float atomicAdd. Samples
// near the grid edge touch fewer points, so per-thread work varies.
extern "C" __global__ void mri_grid(const float *kx, const float *ky,
                                    const float *val_re, const float *val_im,
                                    int n_samples, int grid, float radius,
                                    float *grid_re, float *grid_im) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_samples) return;
  float x = kx[i], y = ky[i];
  float vr = val_re[i], vi = val_im[i];
  int x0 = max(0, (int)ceilf(x - radius));
  int x1 = min(grid - 1, (int)floorf(x + radius));
  int y0 = max(0, (int)ceilf(y - radius));
  int y1 = min(grid - 1, (int)floorf(y + radius));
  float inv = 1.0f / (radius * radius);
  for (int gy = y0; gy <= y1; ++gy) {
    for (int gx = x0; gx <= x1; ++gx) {
      float dx = gx - x, dy = gy - y;
      float d2 = dx * dx + dy * dy;
      if (d2 <= radius * radius) {
        float w = expf(-2.0f * d2 * inv);
        atomicAdd(&grid_re[gy * grid + gx], w * vr);
        atomicAdd(&grid_im[gy * grid + gx], w * vi);
      }
    }
  }
}
