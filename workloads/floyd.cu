// Floyd-Warshall all-pairs shortest paths: one launch per intermediate
// vertex k, one thread per (i, j) pair: d[i][j] = min(d[i][j], d[i][k] +
// d[k][j]). Row k and column k are read by every block (L2 reuse), the
// rest streams; integer, so the check is exact.
extern "C" __global__ void fw_step(int *d, int n, int k) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  int via = d[i * n + k] + d[k * n + j];
  if (via < d[i * n + j]) d[i * n + j] = via;
}
