// Bitonic sort of 2^k 32-bit keys in global memory: one launch per step
// (k, j) of the sorting network, each thread compares and swaps one pair.
// log2(n) (log2(n) + 1) / 2 short launches with strided access patterns.
extern "C" __global__ void bitonic_step(int *a, int n, int j, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int partner = i ^ j;
  if (partner > i) {
    int x = a[i], y = a[partner];
    bool up = (i & k) == 0;
    if ((x > y) == up) {
      a[i] = y;
      a[partner] = x;
    }
  }
}
