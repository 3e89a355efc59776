"""Sum reduction with warp shuffles, shared-memory partials and one atomic per block."""
import numpy as np

from .base import Workload, assert_close, register
from .params import Param

BLOCK = 256


@register
class Reduction(Workload):
    name = "reduction"
    ptx = "reduction.ptx"
    description = "grid-stride sum, __shfl_down_sync tree, atomicAdd per block"
    kind = "regular"
    param_specs = {
        "elements": Param(int, "input elements", min=1),
        "blocks": Param(int, "thread blocks (grid-stride loop)", min=1),
    }
    sizes = {
        "small": {"elements": 65_536, "blocks": 16},
        "medium": {"elements": 8_388_608, "blocks": 2048},
        "paper": {"elements": 33_554_432, "blocks": 4096},
    }

    def make_inputs(self, rng):
        return {"x": rng.random(self.params["elements"]).astype(np.float32)}

    def run(self, dev, mod, inp):
        p = self.params
        d_x, d_out = dev.to_device(inp["x"]), dev.zeros(1, np.float32)
        dev.launch(mod, "reduce_sum", (p["blocks"],), (BLOCK,), [d_x, p["elements"], d_out])
        return {"sum": dev.from_device(d_out, np.float32, 1)}

    def reference(self, inp, out=None):
        return {"sum": np.array([inp["x"].astype(np.float64).sum()])}

    def check(self, out, ref):
        assert_close("reduction sum", out["sum"], ref["sum"], rtol=1e-5, atol=0)
