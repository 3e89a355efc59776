// SRAD: speckle reducing anisotropic diffusion (Yu and Acton 2002), after
// Rodinia's srad. Per iteration: srad_stats sums the image and its squares
// over a block of rows each (partial sums, a shared-memory tree), the host
// forms q0^2 from them, srad_coeff computes the four directional
// derivatives and the diffusion coefficient of every pixel, srad_update
// applies the divergence. Clamped borders.
extern "C" __global__ void srad_stats(const float *img, float *partial, int npix) {
  __shared__ float s1[256];
  __shared__ float s2[256];
  int t = threadIdx.x;
  float a = 0.0f, b = 0.0f;
  for (int i = blockIdx.x * blockDim.x + t; i < npix; i += gridDim.x * blockDim.x) {
    float v = img[i];
    a += v;
    b += v * v;
  }
  s1[t] = a;
  s2[t] = b;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h >>= 1) {
    if (t < h) {
      s1[t] += s1[t + h];
      s2[t] += s2[t + h];
    }
    __syncthreads();
  }
  if (t == 0) {
    partial[2 * blockIdx.x] = s1[0];
    partial[2 * blockIdx.x + 1] = s2[0];
  }
}

extern "C" __global__ void srad_coeff(const float *img, float *dn, float *ds, float *dw, float *de, float *c,
                                      int w, int h, float q0sq) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int i = y * w + x;
  float jc = img[i];
  float n = img[(y > 0 ? y - 1 : 0) * w + x] - jc;
  float s = img[(y < h - 1 ? y + 1 : h - 1) * w + x] - jc;
  float we = img[y * w + (x > 0 ? x - 1 : 0)] - jc;
  float e = img[y * w + (x < w - 1 ? x + 1 : w - 1)] - jc;
  float g2 = (n * n + s * s + we * we + e * e) / (jc * jc);
  float l = (n + s + we + e) / jc;
  float num = 0.5f * g2 - 0.0625f * l * l;
  float den = 1.0f + 0.25f * l;
  float qsq = num / (den * den);
  float cc = 1.0f / (1.0f + (qsq - q0sq) / (q0sq * (1.0f + q0sq)));
  cc = cc < 0.0f ? 0.0f : (cc > 1.0f ? 1.0f : cc);
  dn[i] = n;
  ds[i] = s;
  dw[i] = we;
  de[i] = e;
  c[i] = cc;
}

extern "C" __global__ void srad_update(float *img, const float *dn, const float *ds, const float *dw,
                                       const float *de, const float *c, int w, int h, float lambda) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int i = y * w + x;
  float cn = c[i];
  float cs = c[(y < h - 1 ? y + 1 : h - 1) * w + x];
  float cw = c[i];
  float ce = c[y * w + (x < w - 1 ? x + 1 : w - 1)];
  float d = cn * dn[i] + cs * ds[i] + cw * dw[i] + ce * de[i];
  img[i] += 0.25f * lambda * d;
}
