// Transpose: out = in^T for a row-major matrix, two ways. transpose_naive
// reads rows and writes columns (every store of a warp touches 32 lines);
// transpose_tiled stages a 32 x 32 tile in shared memory, padded by one
// column so that the column reads are free of bank conflicts, and both
// reads and writes are coalesced (32 x 8 threads, four rows each).
#define TD 32
#define RB 8
extern "C" __global__ void transpose_naive(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * TD + threadIdx.x, y = blockIdx.y * TD + threadIdx.y;
  for (int j = 0; j < TD; j += RB)
    if (x < cols && y + j < rows) out[x * rows + y + j] = in[(y + j) * cols + x];
}

extern "C" __global__ void transpose_tiled(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[TD][TD + 1];
  int x = blockIdx.x * TD + threadIdx.x, y = blockIdx.y * TD + threadIdx.y;
  for (int j = 0; j < TD; j += RB)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TD + threadIdx.x;
  y = blockIdx.x * TD + threadIdx.y;
  for (int j = 0; j < TD; j += RB)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
