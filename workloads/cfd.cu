// CFD-like explicit solver on an unstructured mesh: each cell has up to 4
// neighbours given by index (-1 on a boundary). compute_flux gathers the
// neighbours' conserved variables (density, x/y momentum, energy) and
// accumulates a Rusanov-style flux; time_step applies it. Indirect accesses
// make the memory behaviour irregular although the blocks are uniform.
#define NVAR 4
extern "C" __global__ void cfd_compute_flux(const float *vars, const int *nbr,
                                            const float *normals, float *flux,
                                            int n_cells) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n_cells) return;
  float rho = vars[c], mx = vars[n_cells + c], my = vars[2 * n_cells + c],
        en = vars[3 * n_cells + c];
  float u = mx / rho, v = my / rho;
  float p = 0.4f * (en - 0.5f * rho * (u * u + v * v));
  float speed = sqrtf(1.4f * fabsf(p) / rho) + sqrtf(u * u + v * v);
  float fr = 0.0f, fmx = 0.0f, fmy = 0.0f, fe = 0.0f;
  for (int j = 0; j < 4; ++j) {
    int nb = nbr[j * n_cells + c];
    float nxv = normals[(2 * j) * n_cells + c];
    float nyv = normals[(2 * j + 1) * n_cells + c];
    if (nb >= 0) {
      float rn = vars[nb], mxn = vars[n_cells + nb], myn = vars[2 * n_cells + nb],
            enn = vars[3 * n_cells + nb];
      float un = mxn / rn, vn = myn / rn;
      float pn = 0.4f * (enn - 0.5f * rn * (un * un + vn * vn));
      float vel = 0.5f * ((u + un) * nxv + (v + vn) * nyv);
      float s = 0.5f * (speed + sqrtf(1.4f * fabsf(pn) / rn) + sqrtf(un * un + vn * vn));
      fr += vel * 0.5f * (rho + rn) - s * (rn - rho);
      fmx += vel * 0.5f * (mx + mxn) + 0.5f * (p + pn) * nxv - s * (mxn - mx);
      fmy += vel * 0.5f * (my + myn) + 0.5f * (p + pn) * nyv - s * (myn - my);
      fe += vel * 0.5f * (en + enn + p + pn) - s * (enn - en);
    } else {
      // Reflective wall: only pressure acts.
      fmx += p * nxv;
      fmy += p * nyv;
    }
  }
  flux[c] = fr;
  flux[n_cells + c] = fmx;
  flux[2 * n_cells + c] = fmy;
  flux[3 * n_cells + c] = fe;
}

extern "C" __global__ void cfd_time_step(float *vars, const float *flux,
                                         const float *area, float dt, int n_cells) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n_cells) return;
  float f = dt / area[c];
  for (int k = 0; k < NVAR; ++k) vars[k * n_cells + c] -= f * flux[k * n_cells + c];
}
