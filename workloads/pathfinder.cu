// Pathfinder: minimum-cost path down a grid, one row per step (dynamic
// programming), after Rodinia's pathfinder: each block keeps a strip of
// the previous row's costs in shared memory and advances `pyramid` rows
// per launch, recomputing a halo of `pyramid` columns on each side so that
// blocks need no communication within a launch. Integer, exact.
#define BS 256
extern "C" __global__ void pathfinder_step(const int *wall, const int *src, int *dst, int cols, int start_row,
                                           int pyramid) {
  __shared__ int prev[BS];
  __shared__ int cur[BS];
  int tx = threadIdx.x;
  int small = BS - 2 * pyramid;                      // columns this block owns
  int xidx = blockIdx.x * small - pyramid + tx;      // global column of this thread
  int xc = xidx < 0 ? 0 : (xidx >= cols ? cols - 1 : xidx);
  prev[tx] = src[xc];
  __syncthreads();
  bool computed = false;
  for (int r = 0; r < pyramid; r++) {
    computed = false;
    if (tx >= r + 1 && tx <= BS - r - 2 && xidx >= 0 && xidx < cols) {
      int left = xidx > 0 ? prev[tx - 1] : prev[tx];
      int right = xidx < cols - 1 ? prev[tx + 1] : prev[tx];
      int m = prev[tx];
      m = left < m ? left : m;
      m = right < m ? right : m;
      cur[tx] = m + wall[(start_row + r) * cols + xidx];
      computed = true;
    }
    __syncthreads();
    if (computed) prev[tx] = cur[tx];
    __syncthreads();
  }
  if (computed && tx >= pyramid && tx < BS - pyramid && xidx < cols) dst[xidx] = cur[tx];
}
