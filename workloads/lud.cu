// LUD: blocked LU decomposition without pivoting (Doolittle, unit lower
// triangle), 16 x 16 tiles, after Rodinia's lud. Per step i of the tiles:
// lud_diagonal factors the diagonal tile in one block, lud_perimeter solves
// the tiles right of it (U) and below it (L), one block per pair, and
// lud_internal updates the trailing tiles, one block per tile. The grids
// shrink from (n/16 - 1)^2 blocks to one: small-grid launches that cannot
// fill the GPU, all through shared memory.
#define T 16
extern "C" __global__ void lud_diagonal(float *a, int n, int off) {
  __shared__ float s[T][T];
  int tx = threadIdx.x;
  for (int r = 0; r < T; r++) s[r][tx] = a[(off + r) * n + off + tx];
  __syncthreads();
  for (int k = 0; k < T - 1; k++) {
    if (tx > k) {
      s[tx][k] /= s[k][k];
    }
    __syncthreads();
    if (tx > k) {
      for (int j = k + 1; j < T; j++) s[tx][j] -= s[tx][k] * s[k][j];
    }
    __syncthreads();
  }
  for (int r = 0; r < T; r++) a[(off + r) * n + off + tx] = s[r][tx];
}

extern "C" __global__ void lud_perimeter(float *a, int n, int off) {
  __shared__ float dia[T][T];
  __shared__ float row[T][T];
  __shared__ float col[T][T];
  int tx = threadIdx.x, b = blockIdx.x;
  int o = off + (b + 1) * T;
  if (tx < T) {
    for (int r = 0; r < T; r++) {
      dia[r][tx] = a[(off + r) * n + off + tx];
      row[r][tx] = a[(off + r) * n + o + tx];
    }
  } else {
    int t = tx - T;
    for (int r = 0; r < T; r++) col[r][t] = a[(o + r) * n + off + t];
  }
  __syncthreads();
  if (tx < T) {
    // U tile right of the diagonal: forward substitution with the unit L of dia, column tx
    for (int r = 1; r < T; r++)
      for (int k = 0; k < r; k++) row[r][tx] -= dia[r][k] * row[k][tx];
  } else {
    // L tile below the diagonal: row t solved against the U of dia
    int t = tx - T;
    for (int c = 0; c < T; c++) {
      for (int k = 0; k < c; k++) col[t][c] -= col[t][k] * dia[k][c];
      col[t][c] /= dia[c][c];
    }
  }
  __syncthreads();
  if (tx < T) {
    for (int r = 0; r < T; r++) a[(off + r) * n + o + tx] = row[r][tx];
  } else {
    int t = tx - T;
    for (int r = 0; r < T; r++) a[(o + r) * n + off + t] = col[r][t];
  }
}

extern "C" __global__ void lud_internal(float *a, int n, int off) {
  __shared__ float l[T][T];
  __shared__ float u[T][T];
  int tx = threadIdx.x, ty = threadIdx.y;
  int gr = off + (blockIdx.y + 1) * T, gc = off + (blockIdx.x + 1) * T;
  l[ty][tx] = a[(gr + ty) * n + off + tx];
  u[ty][tx] = a[(off + ty) * n + gc + tx];
  __syncthreads();
  float sum = 0.0f;
  for (int k = 0; k < T; k++) sum += l[ty][k] * u[k][tx];
  a[(gr + ty) * n + gc + tx] -= sum;
}
