// k-means (Lloyd): assign each point to its nearest centroid, then accumulate
// per-cluster coordinate sums and counts with atomics. The host divides and
// iterates. Points are stored feature-major: pts[f * n + i].
extern "C" __global__ void kmeans_assign(const float *pts, const float *centroids,
                                         int *membership, int n, int k, int nf) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int best = 0;
  float best_d = 3.402823466e38f;
  for (int c = 0; c < k; ++c) {
    float d = 0.0f;
    for (int f = 0; f < nf; ++f) {
      float diff = pts[f * n + i] - centroids[c * nf + f];
      d += diff * diff;
    }
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  membership[i] = best;
}

extern "C" __global__ void kmeans_accumulate(const float *pts, const int *membership,
                                             float *sums, int *counts, int n, int nf) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int c = membership[i];
  atomicAdd(&counts[c], 1);
  for (int f = 0; f < nf; ++f) atomicAdd(&sums[c * nf + f], pts[f * n + i]);
}
