"""Bitonic sort: one launch per compare-and-swap step of the sorting network."""
import numpy as np

from .base import Workload, assert_equal, grid_for, register
from .params import Param

BLOCK = 256


@register
class Bitonic(Workload):
    name = "bitonic"
    ptx = "bitonic.ptx"
    description = "global-memory bitonic sorting network, log2(n)(log2(n)+1)/2 short strided launches"
    kind = "regular"
    param_specs = {
        "log2_keys": Param(int, "log2 of the number of keys", min=1, max=26),
    }
    sizes = {
        "small": {"log2_keys": 12},
        "medium": {"log2_keys": 15},
        "paper": {"log2_keys": 20},
    }

    def make_inputs(self, rng):
        n = 1 << self.params["log2_keys"]
        return {"keys": rng.integers(0, 1 << 30, n).astype(np.int32)}

    def run(self, dev, mod, inp):
        n = 1 << self.params["log2_keys"]
        d_a = dev.to_device(inp["keys"])
        k = 2
        while k <= n:
            j = k >> 1
            while j > 0:
                dev.launch(mod, "bitonic_step", (grid_for(n, BLOCK),), (BLOCK,), [d_a, n, j, k])
                j >>= 1
            k <<= 1
        return {"keys": dev.from_device(d_a, np.int32, n)}

    def reference(self, inp, out=None):
        return {"keys": np.sort(inp["keys"])}

    def check(self, out, ref):
        assert_equal("bitonic sorted keys", out["keys"], ref["keys"])
