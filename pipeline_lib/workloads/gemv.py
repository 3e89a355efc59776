"""GEMV: dense matrix-vector product, one warp per row with a shuffle reduction."""
import numpy as np

from .base import Workload, assert_close, grid_for, register
from .params import Param

BLOCK = 256


@register
class Gemv(Workload):
    name = "gemv"
    ptx = "gemv.ptx"
    description = "dense y = A x, a warp per row, coalesced row reads, __shfl_down_sync reduction"
    kind = "regular"
    param_specs = {
        "rows": Param(int, "matrix rows (one warp each)", min=1),
        "cols": Param(int, "matrix columns", min=1),
        "repeats": Param(int, "products with the same matrix (one launch each)", min=1),
    }
    sizes = {
        "small": {"rows": 256, "cols": 200, "repeats": 1},
        "medium": {"rows": 8192, "cols": 1024, "repeats": 2},
        "paper": {"rows": 16384, "cols": 2048, "repeats": 3},
    }

    def make_inputs(self, rng):
        p = self.params
        return {"A": rng.uniform(-1, 1, (p["rows"], p["cols"])).astype(np.float32),
                "x": rng.uniform(-1, 1, p["cols"]).astype(np.float32)}

    def run(self, dev, mod, inp):
        p = self.params
        d_a, d_x, d_y = dev.to_device(inp["A"]), dev.to_device(inp["x"]), dev.zeros(p["rows"], np.float32)
        for _ in range(p["repeats"]):
            dev.launch(mod, "gemv_warp", (grid_for(p["rows"] * 32, BLOCK),), (BLOCK,),
                       [d_a, d_x, d_y, p["rows"], p["cols"]])
        return {"y": dev.from_device(d_y, np.float32, p["rows"])}

    def reference(self, inp, out=None):
        return {"y": inp["A"].astype(np.float64) @ inp["x"].astype(np.float64)}

    def check(self, out, ref):
        assert_close("gemv y", out["y"], ref["y"], rtol=1e-4, atol=1e-4)
