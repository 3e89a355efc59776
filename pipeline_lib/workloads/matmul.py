"""Tiled dense matrix multiply through shared memory with barriers."""
import numpy as np

from .base import Workload, assert_close, grid_for, register
from .params import Param

TILE = 16


@register
class MatMul(Workload):
    name = "matmul"
    ptx = "matmul.ptx"
    description = "16x16 shared-memory tiled SGEMM"
    kind = "regular"
    param_specs = {
        "m": Param(int, "rows of A and C", min=1),
        "n": Param(int, "columns of B and C", min=1),
        "k": Param(int, "columns of A, rows of B", min=1),
    }
    sizes = {
        "small": {"m": 64, "n": 80, "k": 48},
        "medium": {"m": 512, "n": 512, "k": 128},
        "paper": {"m": 1024, "n": 1024, "k": 512},
    }

    def make_inputs(self, rng):
        p = self.params
        return {"a": rng.uniform(-1, 1, (p["m"], p["k"])).astype(np.float32),
                "b": rng.uniform(-1, 1, (p["k"], p["n"])).astype(np.float32)}

    def run(self, dev, mod, inp):
        p = self.params
        d_a, d_b, d_c = dev.to_device(inp["a"]), dev.to_device(inp["b"]), dev.zeros(p["m"] * p["n"], np.float32)
        dev.launch(mod, "matmul_tiled", (grid_for(p["n"], TILE), grid_for(p["m"], TILE)), (TILE, TILE),
                   [d_a, d_b, d_c, p["m"], p["n"], p["k"]])
        return {"c": dev.from_device(d_c, np.float32, p["m"] * p["n"]).reshape(p["m"], p["n"])}

    def reference(self, inp, out=None):
        return {"c": inp["a"].astype(np.float64) @ inp["b"].astype(np.float64)}

    def check(self, out, ref):
        assert_close("matmul C", out["c"], ref["c"], rtol=1e-4, atol=1e-5 * self.params["k"])
