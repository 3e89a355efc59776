// Worklist Bellman-Ford single-source shortest paths. Each launch relaxes the
// out-edges of the vertices on the current worklist with atomicMin; a vertex
// whose distance dropped is pushed once onto the next worklist (the flag array
// deduplicates). The number of launches depends on the graph.
extern "C" __global__ void sssp_relax(const int *row_ptr, const int *col_idx,
                                      const int *weight, const int *worklist,
                                      int work_size, int *dist, int *in_next,
                                      int *next_list, int *next_size) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= work_size) return;
  int v = worklist[i];
  int dv = dist[v];
  for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
    int u = col_idx[e];
    int nd = dv + weight[e];
    if (nd < dist[u]) {
      int old = atomicMin(&dist[u], nd);
      if (nd < old && atomicExch(&in_next[u], 1) == 0) {
        int slot = atomicAdd(next_size, 1);
        next_list[slot] = u;
      }
    }
  }
}

// Clears the dedup flags of the vertices pushed in the last round.
extern "C" __global__ void sssp_clear_flags(const int *list, int size, int *in_next) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < size) in_next[list[i]] = 0;
}
