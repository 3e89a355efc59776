// Needleman-Wunsch global alignment scores (dynamic programming). The
// (n+1) x (n+1) score matrix is cut into 16 x 16 tiles; one launch per
// anti-diagonal of tiles, one block of 16 threads per tile. A block loads its
// tile's substitution scores and the scores above and left of it into shared
// memory, then sweeps the tile's 31 inner anti-diagonals with a barrier after
// each. Launches grow from 1 block to n/16 and shrink again: most cannot fill
// the GPU.
#define T 16
extern "C" __global__ void nw_diagonal(int *score, const int *sim, int n, int d, int penalty) {
  __shared__ int s[T + 1][T + 1];
  __shared__ int r[T][T];
  int tiles = n / T;
  int first = d - (tiles - 1) > 0 ? d - (tiles - 1) : 0;
  int trow = first + blockIdx.x, tcol = d - trow;
  int row0 = trow * T, col0 = tcol * T, w = n + 1;
  int t = threadIdx.x;
  for (int i = 0; i < T; ++i) r[i][t] = sim[(row0 + i) * n + col0 + t];
  s[0][t + 1] = score[row0 * w + col0 + t + 1];
  s[t + 1][0] = score[(row0 + t + 1) * w + col0];
  if (t == 0) s[0][0] = score[row0 * w + col0];
  __syncthreads();
  for (int k = 0; k < 2 * T - 1; ++k) {
    int i = k - t;
    if (i >= 0 && i < T) {
      int diag = s[i][t] + r[i][t];
      int up = s[i][t + 1] - penalty;
      int left = s[i + 1][t] - penalty;
      s[i + 1][t + 1] = max(diag, max(up, left));
    }
    __syncthreads();
  }
  for (int i = 0; i < T; ++i) score[(row0 + i + 1) * w + col0 + t + 1] = s[i + 1][t + 1];
}
