// Frontier-based breadth-first search: one launch per BFS level.
// Each thread takes one vertex of the current frontier, scans its CSR
// adjacency list and claims unvisited neighbours with atomicCAS, appending
// them to the next frontier. Block work varies with vertex degree.
extern "C" __global__ void bfs_expand(const int *row_ptr, const int *col_idx,
                                      const int *frontier, int frontier_size,
                                      int *level, int *next_frontier,
                                      int *next_size, int depth) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= frontier_size) return;
  int v = frontier[i];
  int begin = row_ptr[v];
  int end = row_ptr[v + 1];
  for (int e = begin; e < end; ++e) {
    int u = col_idx[e];
    if (level[u] < 0 && atomicCAS(&level[u], -1, depth + 1) == -1) {
      int slot = atomicAdd(next_size, 1);
      next_frontier[slot] = u;
    }
  }
}

// Topology-driven BFS (LonestarGPU's and Harish and Narayanan's form): every
// launch has a thread for every vertex; the threads whose vertex is on the
// current level scan its adjacency list and give unvisited neighbours the
// next level. All launches have the same grid; how much work a block does
// depends on how many of its vertices are on the level. Concurrent writers
// of a neighbour store the same level, so no atomic is needed.
extern "C" __global__ void bfs_topology(const int *row_ptr, const int *col_idx,
                                        int n, int *level, int *changed,
                                        int depth) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || level[v] != depth) return;
  int begin = row_ptr[v];
  int end = row_ptr[v + 1];
  for (int e = begin; e < end; ++e) {
    int u = col_idx[e];
    if (level[u] < 0) {
      level[u] = depth + 1;
      *changed = 1;
    }
  }
}
