// StreamCluster-like gain computation (pgain): for one candidate centre, every
// point computes the change in its assignment cost if the candidate were
// opened; points that would switch add their saving to the per-centre gain
// with atomics. The host launches it once per candidate.
extern "C" __global__ void sc_pgain(const float *pts, const float *weight,
                                    const float *cost, const int *assign,
                                    int candidate, int n, int dim,
                                    float *lower, int *switch_flag) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float d = 0.0f;
  for (int f = 0; f < dim; ++f) {
    float diff = pts[i * dim + f] - pts[candidate * dim + f];
    d += diff * diff;
  }
  float x_cost = d * weight[i];
  float current = cost[i];
  if (x_cost < current) {
    switch_flag[i] = 1;
    atomicAdd(&lower[candidate], current - x_cost);
  } else {
    switch_flag[i] = 0;
    atomicAdd(&lower[assign[i]], current - x_cost);
  }
}
