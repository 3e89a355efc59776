"""Transpose: a naive (column-writing) and a shared-memory tiled matrix transpose."""
import numpy as np

from .base import Workload, assert_equal, grid_for, register
from .params import Param

TD, RB = 32, 8


@register
class Transpose(Workload):
    name = "transpose"
    ptx = "transpose.ptx"
    description = "out = in^T naively (uncoalesced stores) and through a padded 32 x 32 shared tile"
    kind = "regular"
    param_specs = {
        "rows": Param(int, "matrix rows", min=1),
        "cols": Param(int, "matrix columns", min=1),
        "repeats": Param(int, "transposes of each kind (two launches each, back and forth)", min=1),
    }
    sizes = {
        "small": {"rows": 100, "cols": 72, "repeats": 1},
        "medium": {"rows": 1024, "cols": 768, "repeats": 2},
        "paper": {"rows": 4096, "cols": 4096, "repeats": 2},
    }

    def make_inputs(self, rng):
        p = self.params
        return {"M": rng.random((p["rows"], p["cols"])).astype(np.float32)}

    def run(self, dev, mod, inp):
        p = self.params
        r, c = p["rows"], p["cols"]
        a, b = dev.to_device(inp["M"]), dev.zeros(r * c, np.float32)
        there, back = (grid_for(c, TD), grid_for(r, TD)), (grid_for(r, TD), grid_for(c, TD))
        for kernel in ("transpose_naive", "transpose_tiled"):
            for _ in range(p["repeats"]):
                dev.launch(mod, kernel, there, (TD, RB), [a, b, r, c])
                dev.launch(mod, kernel, back, (TD, RB), [b, a, c, r])
        return {"M": dev.from_device(a, np.float32, r * c).reshape(r, c),
                "T": dev.from_device(b, np.float32, r * c).reshape(c, r)}

    def reference(self, inp, out=None):
        return {"M": inp["M"], "T": inp["M"].T}

    def check(self, out, ref):
        assert_equal("transpose", out["T"], ref["T"])
        assert_equal("transpose back", out["M"], ref["M"])
