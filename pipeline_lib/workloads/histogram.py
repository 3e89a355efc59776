"""256-bin byte histogram: shared-memory atomics per block, global merge."""
import numpy as np

from .base import Workload, assert_equal, register
from .params import Param

BLOCK = 256


@register
class Histogram(Workload):
    name = "histogram"
    ptx = "histogram.ptx"
    description = "per-block shared-memory histogram with atomics, merged globally"
    kind = "regular"
    param_specs = {
        "bytes": Param(int, "input bytes", min=1),
        "blocks": Param(int, "thread blocks (grid-stride loop)", min=1),
    }
    sizes = {
        "small": {"bytes": 65_536, "blocks": 16},
        "medium": {"bytes": 8_388_608, "blocks": 2048},
        "paper": {"bytes": 33_554_432, "blocks": 4096},
    }

    def make_inputs(self, rng):
        # an image-like, skewed byte distribution (many hits on a few bins)
        v = np.clip(rng.normal(100, 30, self.params["bytes"]), 0, 255)
        return {"data": v.astype(np.uint8)}

    def run(self, dev, mod, inp):
        p = self.params
        d_data, d_hist = dev.to_device(inp["data"]), dev.zeros(256, np.uint32)
        dev.launch(mod, "histogram256", (p["blocks"],), (BLOCK,), [d_data, p["bytes"], d_hist])
        return {"hist": dev.from_device(d_hist, np.uint32, 256)}

    def reference(self, inp, out=None):
        return {"hist": np.bincount(inp["data"], minlength=256).astype(np.uint32)}

    def check(self, out, ref):
        assert_equal("histogram", out["hist"], ref["hist"])
