"""Benchmark names and their size parameters, importable without numba
(the Snakefile validates config with it on every parse).  A test checks that
it matches the drivers' ``sizes``."""
SIZES = {
    "bfs": {"small": ["cols", "edge_factor", "graph", "rows", "scale"],
            "paper": ["cols", "edge_factor", "graph", "rows", "scale"]},
    "sssp": {"small": ["cols", "edge_factor", "graph", "max_weight", "rows", "scale"],
             "paper": ["cols", "edge_factor", "graph", "max_weight", "rows", "scale"]},
    "mst": {"small": ["cols", "edge_factor", "graph", "max_weight", "rows", "scale"],
            "paper": ["cols", "edge_factor", "graph", "max_weight", "rows", "scale"]},
    "mri_gridding": {"small": ["batches", "grid", "radius", "samples"],
                     "paper": ["batches", "grid", "radius", "samples"]},
    "spmv": {"small": ["iters", "mean_nnz", "rows", "skew", "variant"],
             "paper": ["iters", "mean_nnz", "rows", "skew", "variant"]},
    "lbm": {"small": ["nx", "ny", "omega", "steps"], "paper": ["nx", "ny", "omega", "steps"]},
    "cfd": {"small": ["cells", "dt", "steps"], "paper": ["cells", "dt", "steps"]},
    "kmeans": {"small": ["features", "iters", "k", "points"], "paper": ["features", "iters", "k", "points"]},
    "hotspot": {"small": ["cols", "iters", "rows"], "paper": ["cols", "iters", "rows"]},
    "streamcluster": {"small": ["candidates", "dim", "facility_cost", "points"],
                      "paper": ["candidates", "dim", "facility_cost", "points"]},
    "blackscholes": {"small": ["launches", "options"], "paper": ["launches", "options"]},
    "matmul": {"small": ["k", "m", "n"], "paper": ["k", "m", "n"]},
    "histogram": {"small": ["blocks", "bytes"], "paper": ["blocks", "bytes"]},
    "reduction": {"small": ["blocks", "elements"], "paper": ["blocks", "elements"]},
}
