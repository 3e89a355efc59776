// Gather: every thread follows a chain of `hops` indices through a random
// permutation of a large table (next = perm[next]). Each hop is a dependent
// load with no spatial locality: latency-bound at low occupancy, DRAM-bound
// when enough warps are in flight.
extern "C" __global__ void gather_hops(const int *perm, int *out, int n, int starts, int hops) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= starts) return;
  int v = (int)(((long long)i * 2654435761LL) % n);
  for (int h = 0; h < hops; ++h) v = perm[v];
  out[i] = v;
}
