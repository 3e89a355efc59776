// Tridiag: batched tridiagonal systems a_i x_{i-1} + b_i x_i + c_i x_{i+1} = d_i
// solved by parallel cyclic reduction (Hockney and Jesshope), one system of
// N = blockDim.x equations per block, everything in shared memory: log2(N)
// reduction steps, each a barrier apart; then x_i = d_i / b_i. Limited by
// shared memory (5 arrays of N floats per block) and barriers.
#define N 256
extern "C" __global__ void pcr_solve(const float *a, const float *b, const float *c, const float *d, float *x) {
  __shared__ float sa[N], sb[N], sc[N], sd[N];
  int i = threadIdx.x;
  long long base = (long long)blockIdx.x * N;
  sa[i] = a[base + i];
  sb[i] = b[base + i];
  sc[i] = c[base + i];
  sd[i] = d[base + i];
  __syncthreads();
  for (int s = 1; s < N; s <<= 1) {
    float na = 0.0f, nb = sb[i], nc = 0.0f, nd = sd[i];
    if (i - s >= 0) {
      float k1 = sa[i] / sb[i - s];
      na = -sa[i - s] * k1;
      nb -= sc[i - s] * k1;
      nd -= sd[i - s] * k1;
    }
    if (i + s < N) {
      float k2 = sc[i] / sb[i + s];
      nc = -sc[i + s] * k2;
      nb -= sa[i + s] * k2;
      nd -= sd[i + s] * k2;
    }
    __syncthreads();
    sa[i] = na;
    sb[i] = nb;
    sc[i] = nc;
    sd[i] = nd;
    __syncthreads();
  }
  x[base + i] = sd[i] / sb[i];
}
