"""Benchmark names and their size parameters, importable without numba
(the Snakefile validates config with it on every parse).  A test checks that
it matches the drivers' ``sizes``."""
_PARAMS = {
    "bfs": ["cols", "edge_factor", "graph", "rows", "scale"],
    "sssp": ["cols", "edge_factor", "graph", "max_weight", "rows", "scale"],
    "mst": ["cols", "edge_factor", "graph", "max_weight", "rows", "scale"],
    "mri_gridding": ["batches", "grid", "radius", "samples"],
    "spmv": ["iters", "mean_nnz", "rows", "skew", "variant"],
    "lbm": ["nx", "ny", "omega", "steps"],
    "cfd": ["cells", "dt", "steps"],
    "kmeans": ["features", "iters", "k", "points"],
    "hotspot": ["cols", "iters", "rows"],
    "streamcluster": ["candidates", "dim", "facility_cost", "points"],
    "blackscholes": ["launches", "options"],
    "matmul": ["k", "m", "n"],
    "histogram": ["blocks", "bytes"],
    "reduction": ["blocks", "elements"],
}
# seed Table 6 types: I irregular (block sizes vary), II regular
KINDS = {"bfs": "irregular", "sssp": "irregular", "mst": "irregular", "mri_gridding": "irregular",
         "streamcluster": "irregular", "spmv": "regular", "lbm": "regular", "cfd": "regular", "kmeans": "regular",
         "hotspot": "regular", "blackscholes": "regular", "matmul": "regular", "histogram": "regular",
         "reduction": "regular"}
# small: tests and CI (under a second each); medium: the default pipeline
# (enough thread blocks and launches for sampling to matter); paper: near the
# seed's Table 6 scale (config/paper.yaml).
SIZE_NAMES = ("small", "medium", "paper")
SIZES = {b: {s: keys for s in SIZE_NAMES} for b, keys in _PARAMS.items()}
