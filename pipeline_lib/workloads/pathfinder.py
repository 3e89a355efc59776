"""Pathfinder: minimum-cost path down a grid by dynamic programming, several rows per launch."""
import numpy as np

from .base import Workload, assert_equal, register
from .params import Param

BS = 256


@register
class Pathfinder(Workload):
    name = "pathfinder"
    ptx = "pathfinder.ptx"
    description = "row-by-row DP in shared memory, `pyramid` rows per launch with recomputed halos"
    kind = "regular"
    param_specs = {
        "cols": Param(int, "grid columns", min=1),
        "rows": Param(int, "grid rows", min=2),
        "pyramid": Param(int, "rows advanced per launch", min=1, max=BS // 2 - 1),
    }
    sizes = {
        "small": {"cols": 1000, "rows": 20, "pyramid": 4},
        "medium": {"cols": 40000, "rows": 100, "pyramid": 10},
        "paper": {"cols": 200000, "rows": 200, "pyramid": 20},
    }

    def make_inputs(self, rng):
        p = self.params
        return {"wall": rng.integers(0, 10, (p["rows"], p["cols"])).astype(np.int32)}

    def run(self, dev, mod, inp):
        p = self.params
        cols, rows, pyr = p["cols"], p["rows"], p["pyramid"]
        d_wall = dev.to_device(inp["wall"])
        a, b = dev.to_device(inp["wall"][0]), dev.zeros(cols, np.int32)
        for start in range(1, rows, pyr):
            h = min(pyr, rows - start)
            blocks = -(-cols // (BS - 2 * h))
            dev.launch(mod, "pathfinder_step", (blocks,), (BS,), [d_wall, a, b, cols, start, h])
            a, b = b, a
        return {"cost": dev.from_device(a, np.int32, cols)}

    def reference(self, inp, out=None):
        wall = inp["wall"].astype(np.int64)
        cost = wall[0].copy()
        for r in range(1, len(wall)):
            m = cost.copy()
            m[1:] = np.minimum(m[1:], cost[:-1])
            m[:-1] = np.minimum(m[:-1], cost[1:])
            cost = m + wall[r]
        return {"cost": cost.astype(np.int32)}

    def check(self, out, ref):
        assert_equal("pathfinder costs", out["cost"], ref["cost"])
