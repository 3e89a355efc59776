"""SSSP: worklist Bellman-Ford with atomicMin; the launch count depends on the graph."""
import numpy as np

from .base import Workload, assert_equal, grid_for, register
from .inputs import graph_params, make_graph

BLOCK = 128
INF = 0x3FFFFFFF


@register
class SSSP(Workload):
    name = "sssp"
    ptx = "sssp.ptx"
    description = "worklist Bellman-Ford, atomicMin relaxations, deduplicated pushes"
    kind = "irregular"
    param_specs = graph_params(weighted=True)
    sizes = {
        "small": {"graph": "rmat", "scale": 10, "edge_factor": 8, "rows": 24, "cols": 24, "max_weight": 100},
        "medium": {"graph": "rmat", "scale": 15, "edge_factor": 8, "rows": 128, "cols": 128, "max_weight": 100},
        "paper": {"graph": "rmat", "scale": 19, "edge_factor": 8, "rows": 512, "cols": 512, "max_weight": 100},
    }

    def make_inputs(self, rng):
        p = self.params
        g = make_graph(p["graph"], rng, scale=p["scale"], edge_factor=p["edge_factor"],
                       rows=p["rows"], cols=p["cols"], max_weight=p["max_weight"])
        g["source"] = int(np.argmax(np.diff(g["row_ptr"])))
        return g

    def run(self, dev, mod, g):
        n = g["n"]
        dist = np.full(n, INF, np.int32)
        dist[g["source"]] = 0
        d_row, d_col, d_w = (dev.to_device(g[k]) for k in ("row_ptr", "col_idx", "weight"))
        d_dist = dev.to_device(dist)
        d_flag = dev.zeros(n, np.int32)
        lists = [dev.to_device(np.array([g["source"]] + [0] * (n - 1), np.int32)), dev.zeros(n, np.int32)]
        d_size = dev.zeros(1, np.int32)
        size = 1
        while size > 0:
            dev.copy_to(d_size, np.zeros(1, np.int32))
            dev.launch(mod, "sssp_relax", (grid_for(size, BLOCK),), (BLOCK,),
                       [d_row, d_col, d_w, lists[0], size, d_dist, d_flag, lists[1], d_size])
            size = int(dev.from_device(d_size, np.int32, 1)[0])
            if size:
                dev.launch(mod, "sssp_clear_flags", (grid_for(size, BLOCK),), (BLOCK,), [lists[1], size, d_flag])
            lists.reverse()
        return {"dist": dev.from_device(d_dist, np.int32, n)}

    def reference(self, g, out=None):
        from scipy.sparse import csr_matrix  # scipy is loaded only when a reference is computed
        from scipy.sparse.csgraph import dijkstra
        n = g["n"]
        a = csr_matrix((g["weight"].astype(np.float64), g["col_idx"], g["row_ptr"]), shape=(n, n))
        d = dijkstra(a, indices=g["source"])
        return {"dist": np.where(np.isinf(d), INF, d).astype(np.int32)}

    def check(self, out, ref):
        assert_equal("sssp distance", out["dist"], ref["dist"])
