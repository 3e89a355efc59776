// Tiled dense matrix multiply C = A B (row-major), TILE x TILE thread blocks
// staging tiles of A and B through shared memory between barriers.
#define TILE 16
extern "C" __global__ void matmul_tiled(const float *a, const float *b, float *c,
                                        int m, int n, int k) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < k; t += TILE) {
    as[threadIdx.y][threadIdx.x] =
        (row < m && t + threadIdx.x < k) ? a[row * k + t + threadIdx.x] : 0.0f;
    bs[threadIdx.y][threadIdx.x] =
        (col < n && t + threadIdx.y < k) ? b[(t + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
    for (int j = 0; j < TILE; ++j) acc += as[threadIdx.y][j] * bs[j][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}
