// Boruvka minimum spanning forest on an undirected graph stored as a
// symmetric CSR; both directions of an undirected edge carry the same
// undirected edge id, so (weight, id) is a consistent total order on edges and
// hooking cannot form cycles other than mutual pairs.
// Round: (1) every vertex scans its edges and proposes its lightest edge
// leaving its component, packed as (weight << 32 | edge id) into a 64-bit
// atomicMin on the component's slot; (2) each component root hooks onto the
// component across its lightest edge (for a mutual pair only the larger id
// hooks) and marks the edge; (3) pointer jumping flattens the component
// forest; (4) vertices take their root's label. Repeated until no hook happens.
#define NONE 0xFFFFFFFFFFFFFFFFull
extern "C" __global__ void mst_find_min(const int *row_ptr, const int *col_idx,
                                        const int *weight, const int *edge_id,
                                        const int *comp, unsigned long long *best,
                                        int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int cv = comp[v];
  unsigned long long mine = NONE;
  for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
    if (comp[col_idx[e]] != cv) {
      unsigned long long key =
          ((unsigned long long)(unsigned)weight[e] << 32) | (unsigned)edge_id[e];
      if (key < mine) mine = key;
    }
  }
  if (mine != NONE) atomicMin(&best[cv], mine);
}

extern "C" __global__ void mst_hook(const int *edge_u, const int *edge_v,
                                    const unsigned long long *best, const int *comp,
                                    int *parent, int *in_tree, int *changed, int n) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n || comp[c] != c) return;  // only component roots
  unsigned long long key = best[c];
  if (key == NONE) return;
  int e = (int)(key & 0xFFFFFFFFull);
  int cu = comp[edge_u[e]];
  int other = cu == c ? comp[edge_v[e]] : cu;
  bool mutual = (best[other] & 0xFFFFFFFFull) == (unsigned long long)e;
  if (mutual && c < other) return;
  parent[c] = other;
  in_tree[e] = 1;
  *changed = 1;
}

extern "C" __global__ void mst_jump(int *parent, int *changed, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int p = parent[v];
  int gp = parent[p];
  if (p != gp) {
    parent[v] = gp;
    *changed = 1;
  }
}

extern "C" __global__ void mst_relabel(const int *parent, int *comp,
                                       unsigned long long *best, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  comp[v] = parent[comp[v]];
  best[v] = NONE;
}
