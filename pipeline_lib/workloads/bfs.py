"""BFS: breadth-first search, one launch per level, over the level's frontier
(data-driven) or over every vertex (topology-driven, as LonestarGPU's BFS:
seed Table 6's graph benchmarks run 259 blocks in every launch)."""
import numpy as np

from .base import Workload, assert_equal, grid_for, register
from .inputs import graph_params, make_graph
from .params import Param

BLOCK = 128


@register
class BFS(Workload):
    name = "bfs"
    ptx = "bfs.ptx"
    description = "BFS, one launch per level: frontier (atomicCAS claims) or every vertex"
    kind = "irregular"
    param_specs = {
        "variant": Param(str, "launch grid: the level's frontier, or every vertex (topology-driven)",
                         choices=("frontier", "topology")),
        **graph_params(weighted=False),
    }
    sizes = {
        "small": {"variant": "frontier", "graph": "rmat", "scale": 10, "edge_factor": 8, "rows": 24, "cols": 24},
        "medium": {"variant": "frontier", "graph": "rmat", "scale": 16, "edge_factor": 8, "rows": 128, "cols": 128},
        "paper": {"variant": "frontier", "graph": "rmat", "scale": 20, "edge_factor": 8, "rows": 640, "cols": 640},
    }

    def make_inputs(self, rng):
        p = self.params
        g = make_graph(p["graph"], rng, scale=p["scale"], edge_factor=p["edge_factor"],
                       rows=p["rows"], cols=p["cols"])
        g["source"] = int(np.argmax(np.diff(g["row_ptr"])))
        return g

    def run(self, dev, mod, g):
        n = g["n"]
        level = np.full(n, -1, np.int32)
        level[g["source"]] = 0
        d_row, d_col = dev.to_device(g["row_ptr"]), dev.to_device(g["col_idx"])
        d_level = dev.to_device(level)
        if self.params["variant"] == "topology":
            self._run_topology(dev, mod, d_row, d_col, d_level, n)
        else:
            self._run_frontier(dev, mod, d_row, d_col, d_level, n, g["source"])
        return {"level": dev.from_device(d_level, np.int32, n)}

    @staticmethod
    def _run_frontier(dev, mod, d_row, d_col, d_level, n, source):
        """One launch over the level's frontier per level, until a launch
        finds no next frontier."""
        fronts = [dev.to_device(np.array([source] + [0] * (n - 1), np.int32)), dev.zeros(n, np.int32)]
        d_size = dev.zeros(1, np.int32)
        size, depth = 1, 0
        while size > 0:
            dev.copy_to(d_size, np.zeros(1, np.int32))
            dev.launch(mod, "bfs_expand", (grid_for(size, BLOCK),), (BLOCK,),
                       [d_row, d_col, fronts[0], size, d_level, fronts[1], d_size, depth])
            size = int(dev.from_device(d_size, np.int32, 1)[0])
            fronts.reverse()
            depth += 1

    @staticmethod
    def _run_topology(dev, mod, d_row, d_col, d_level, n):
        """One launch over every vertex per level, until a launch labels no
        vertex: the last level's, which the host cannot know to be the last."""
        d_changed = dev.zeros(1, np.int32)
        depth, changed = 0, 1
        while changed:
            dev.copy_to(d_changed, np.zeros(1, np.int32))
            dev.launch(mod, "bfs_topology", (grid_for(n, BLOCK),), (BLOCK,),
                       [d_row, d_col, n, d_level, d_changed, depth])
            changed = int(dev.from_device(d_changed, np.int32, 1)[0])
            depth += 1

    def reference(self, g, out=None):
        from scipy.sparse import csr_matrix  # scipy is loaded only when a reference is computed
        from scipy.sparse.csgraph import shortest_path
        n = g["n"]
        a = csr_matrix((np.ones(len(g["col_idx"])), g["col_idx"], g["row_ptr"]), shape=(n, n))
        d = shortest_path(a, unweighted=True, indices=g["source"])
        return {"level": np.where(np.isinf(d), -1, d).astype(np.int32)}

    def check(self, out, ref):
        assert_equal("bfs level", out["level"], ref["level"])
