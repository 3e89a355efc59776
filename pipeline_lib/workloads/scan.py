"""Scan: inclusive prefix sum in three kernels (block scans, a one-block scan of
the block totals, the offsets added back)."""
import numpy as np

from .base import Workload, assert_equal, grid_for, register
from .params import Param

B = 256


@register
class Scan(Workload):
    name = "scan"
    ptx = "scan.ptx"
    description = "inclusive integer prefix sum: shared-memory block scans, a one-block scan of their totals, add"
    kind = "regular"
    param_specs = {
        "elements": Param(int, "input elements", min=1),
        "repeats": Param(int, "scans of the same input (three launches each)", min=1),
    }
    sizes = {
        "small": {"elements": 20_000, "repeats": 1},
        "medium": {"elements": 1_048_576, "repeats": 1},
        "paper": {"elements": 16_777_216, "repeats": 2},
    }

    def make_inputs(self, rng):
        return {"x": rng.integers(0, 16, self.params["elements"]).astype(np.int32)}

    def run(self, dev, mod, inp):
        n = self.params["elements"]
        nb = grid_for(n, B)
        d_in, d_out, d_sums = dev.to_device(inp["x"]), dev.zeros(n, np.int32), dev.zeros(nb, np.int32)
        for _ in range(self.params["repeats"]):
            dev.launch(mod, "scan_block", (nb,), (B,), [d_in, d_out, d_sums, n])
            dev.launch(mod, "scan_sums", (1,), (B,), [d_sums, nb])
            dev.launch(mod, "scan_add", (nb,), (B,), [d_out, d_sums, n])
        return {"y": dev.from_device(d_out, np.int32, n)}

    def reference(self, inp, out=None):
        return {"y": np.cumsum(inp["x"].astype(np.int64)).astype(np.int32)}

    def check(self, out, ref):
        assert_equal("scan prefix sums", out["y"], ref["y"])
