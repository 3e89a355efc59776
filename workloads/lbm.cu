// D2Q9 lattice-Boltzmann, BGK collision, pull streaming with periodic
// boundaries and bounce-back at obstacle cells. One launch per time step,
// ping-ponging between two distribution arrays laid out as f[q * n + cell].
__constant__ float c_w[9] = {4.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9,
                             1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36};
__constant__ int c_ex[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
__constant__ int c_ey[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
__constant__ int c_opp[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};

extern "C" __global__ void lbm_step(const float *f_in, float *f_out,
                                    const unsigned char *obstacle, int nx,
                                    int ny, float omega) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x >= nx) return;
  int n = nx * ny;
  int cell = y * nx + x;
  float f[9];
  for (int q = 0; q < 9; ++q) {
    int sx = (x - c_ex[q] + nx) % nx;
    int sy = (y - c_ey[q] + ny) % ny;
    f[q] = f_in[q * n + sy * nx + sx];
  }
  if (obstacle[cell]) {
    for (int q = 0; q < 9; ++q) f_out[c_opp[q] * n + cell] = f[q];
    return;
  }
  float rho = 0.0f, ux = 0.0f, uy = 0.0f;
  for (int q = 0; q < 9; ++q) {
    rho += f[q];
    ux += f[q] * c_ex[q];
    uy += f[q] * c_ey[q];
  }
  ux /= rho;
  uy /= rho;
  float usq = 1.5f * (ux * ux + uy * uy);
  for (int q = 0; q < 9; ++q) {
    float eu = 3.0f * (c_ex[q] * ux + c_ey[q] * uy);
    float feq = c_w[q] * rho * (1.0f + eu + 0.5f * eu * eu - usq);
    f_out[q * n + cell] = f[q] + omega * (feq - f[q]);
  }
}
