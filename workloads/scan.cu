// Scan: inclusive prefix sum of 32-bit integers in three kernels. Each block
// scans 256 elements in shared memory (Hillis-Steele, double-buffered) and
// writes its total; one block scans the block totals in chunks of 256 with a
// running carry (a one-block launch); every block then adds the exclusive
// total of the blocks before it.
#define B 256
extern "C" __global__ void scan_block(const int *in, int *out, int *sums, int n) {
  __shared__ int buf[2][B];
  int t = threadIdx.x, i = blockIdx.x * B + t, p = 0;
  buf[0][t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int off = 1; off < B; off <<= 1) {
    int v = buf[p][t];
    if (t >= off) v += buf[p][t - off];
    buf[1 - p][t] = v;
    p = 1 - p;
    __syncthreads();
  }
  if (i < n) out[i] = buf[p][t];
  if (t == B - 1) sums[blockIdx.x] = buf[p][t];
}

extern "C" __global__ void scan_sums(int *sums, int nb) {
  __shared__ int buf[2][B];
  __shared__ int carry;
  int t = threadIdx.x;
  if (t == 0) carry = 0;
  __syncthreads();
  for (int base = 0; base < nb; base += B) {
    int i = base + t, p = 0;
    int x = i < nb ? sums[i] : 0;
    buf[0][t] = x;
    __syncthreads();
    for (int off = 1; off < B; off <<= 1) {
      int v = buf[p][t];
      if (t >= off) v += buf[p][t - off];
      buf[1 - p][t] = v;
      p = 1 - p;
      __syncthreads();
    }
    int incl = buf[p][t];
    if (i < nb) sums[i] = carry + incl - x;
    __syncthreads();
    if (t == B - 1) carry += incl;
    __syncthreads();
  }
}

extern "C" __global__ void scan_add(int *out, const int *sums, int n) {
  int i = blockIdx.x * B + threadIdx.x;
  if (i < n) out[i] += sums[blockIdx.x];
}
