// Mandelbrot: escape-time iteration counts of a grid of points, one thread
// per point. Compute-bound with branch divergence: neighbouring points
// leave the loop at different iterations; one store per thread.
extern "C" __global__ void mandel(int *out, int w, int h, float x0, float y0, float dx, float dy, int maxit) {
  int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= w || py >= h) return;
  float cr = x0 + px * dx, ci = y0 + py * dy;
  float zr = 0.0f, zi = 0.0f;
  int it = 0;
  while (it < maxit && zr * zr + zi * zi <= 4.0f) {
    float t = zr * zr - zi * zi + cr;
    zi = 2.0f * zr * zi + ci;
    zr = t;
    it++;
  }
  out[py * w + px] = it;
}
