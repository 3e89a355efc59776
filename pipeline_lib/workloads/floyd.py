"""Floyd-Warshall: all-pairs shortest paths, one launch per intermediate vertex."""
import numpy as np

from .base import Workload, assert_equal, grid_for, register
from .params import Param

BX, BY = 32, 8
INF = 1 << 28          # no edge; INF + INF still fits an int32


@register
class Floyd(Workload):
    name = "floyd"
    ptx = "floyd.ptx"
    description = "Floyd-Warshall, one thread per pair, n launches; row and column k shared by all blocks"
    kind = "regular"
    param_specs = {
        "vertices": Param(int, "graph vertices", min=2),
        "density": Param(float, "share of ordered pairs joined by an edge", min=0.0, max=1.0),
    }
    sizes = {
        "small": {"vertices": 40, "density": 0.2},
        "medium": {"vertices": 128, "density": 0.05},
        "paper": {"vertices": 512, "density": 0.02},
    }

    def make_inputs(self, rng):
        p = self.params
        n = p["vertices"]
        d = np.where(rng.random((n, n)) < p["density"], rng.integers(1, 100, (n, n)), INF).astype(np.int32)
        np.fill_diagonal(d, 0)
        return {"D": d}

    def run(self, dev, mod, inp):
        n = self.params["vertices"]
        d = dev.to_device(inp["D"])
        grid = (grid_for(n, BX), grid_for(n, BY))
        for k in range(n):
            dev.launch(mod, "fw_step", grid, (BX, BY), [d, n, k])
        return {"D": np.minimum(dev.from_device(d, np.int32, n * n).reshape(n, n), INF)}

    def reference(self, inp, out=None):
        from scipy.sparse.csgraph import shortest_path

        d = inp["D"].astype(np.float64)
        d[d >= INF] = np.inf
        sp = shortest_path(d, method="FW", directed=True)
        return {"D": np.where(np.isinf(sp), INF, sp).astype(np.int32)}

    def check(self, out, ref):
        assert_equal("floyd distances", out["D"], ref["D"])
