// Sparse matrix-vector product y = A x with A in CSR.
// Scalar variant: one thread per row. Vector variant: one warp per row, lanes
// stride over the row's non-zeros and combine with warp shuffles.
extern "C" __global__ void spmv_csr_scalar(const int *row_ptr, const int *col_idx,
                                           const float *val, const float *x,
                                           float *y, int n_rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n_rows) return;
  float sum = 0.0f;
  for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) sum += val[k] * x[col_idx[k]];
  y[r] = sum;
}

extern "C" __global__ void spmv_csr_vector(const int *row_ptr, const int *col_idx,
                                           const float *val, const float *x,
                                           float *y, int n_rows) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (warp >= n_rows) return;
  float sum = 0.0f;
  for (int k = row_ptr[warp] + lane; k < row_ptr[warp + 1]; k += 32)
    sum += val[k] * x[col_idx[k]];
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
  if (lane == 0) y[warp] = sum;
}
