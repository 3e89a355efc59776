// Stencil3D: 7-point Jacobi relaxation of a 3D grid. Each thread owns one
// (x, y) column and marches through z, reading its six neighbours from
// global memory (no tiling: bandwidth-bound, with reuse left to the caches).
// Boundary cells are copied. One launch per iteration.
extern "C" __global__ void stencil3d_step(const float *in, float *out, int nx, int ny, int nz,
                                          float c0, float c1) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  int plane = nx * ny;
  bool edge = x == 0 || y == 0 || x == nx - 1 || y == ny - 1;
  for (int z = 0; z < nz; ++z) {
    int i = z * plane + y * nx + x;
    if (edge || z == 0 || z == nz - 1) {
      out[i] = in[i];
    } else {
      out[i] = c0 * in[i] + c1 * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] +
                                  in[i - plane] + in[i + plane]);
    }
  }
}
