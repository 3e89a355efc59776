// CG: conjugate-gradient iterations on a sparse symmetric positive definite
// matrix in ELLPACK format (column-major slots, so a warp's loads of one
// slot are coalesced): cg_spmv q = A p; cg_dot block partial sums of a dot
// product (a shared-memory tree, then one float atomicAdd per block);
// cg_update x += alpha p, r -= alpha q; cg_direction p = r + beta p. The
// host reads the two scalars per iteration, as a CG loop does.
extern "C" __global__ void cg_spmv(const int *cols, const float *vals, const float *p, float *q, int n, int width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int k = 0; k < width; k++) {
    int c = cols[k * n + i];
    if (c >= 0) s += vals[k * n + i] * p[c];
  }
  q[i] = s;
}

extern "C" __global__ void cg_dot(const float *a, const float *b, float *out, int n) {
  __shared__ float s[256];
  int t = threadIdx.x;
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) acc += a[i] * b[i];
  s[t] = acc;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h >>= 1) {
    if (t < h) s[t] += s[t + h];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, s[0]);
}

extern "C" __global__ void cg_update(float *x, float *r, const float *p, const float *q, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  x[i] += alpha * p[i];
  r[i] -= alpha * q[i];
}

extern "C" __global__ void cg_direction(float *p, const float *r, float beta, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  p[i] = r[i] + beta * p[i];
}
