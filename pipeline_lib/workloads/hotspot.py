"""Hotspot: 2D thermal stencil through shared-memory tiles with barriers, one launch per iteration."""
import numpy as np

from .base import Workload, assert_close, grid_for, register
from .params import Param

TILE = 16
CAP, RX, RY, RZ, AMB = 1.0, 0.1, 0.1, 0.05, 80.0


@register
class Hotspot(Workload):
    name = "hotspot"
    ptx = "hotspot.ptx"
    description = "2D thermal simulation, shared-memory tiles with halos and __syncthreads"
    kind = "regular"
    param_specs = {
        "rows": Param(int, "grid rows", min=1),
        "cols": Param(int, "grid columns", min=1),
        "iters": Param(int, "time steps (one launch each)", min=1),
    }
    sizes = {
        "small": {"rows": 64, "cols": 80, "iters": 2},
        "medium": {"rows": 512, "cols": 512, "iters": 3},
        "paper": {"rows": 688, "cols": 688, "iters": 1},
    }

    def make_inputs(self, rng):
        p = self.params
        return {"temp": (AMB + 10 * rng.random((p["rows"], p["cols"]))).astype(np.float32),
                "power": (0.5 * rng.random((p["rows"], p["cols"]))).astype(np.float32)}

    def run(self, dev, mod, inp):
        p = self.params
        rows, cols = p["rows"], p["cols"]
        bufs = [dev.to_device(inp["temp"]), dev.zeros(rows * cols, np.float32)]
        d_pow = dev.to_device(inp["power"])
        for _ in range(p["iters"]):
            dev.launch(mod, "hotspot_step", (grid_for(cols, TILE), grid_for(rows, TILE)), (TILE, TILE),
                       [bufs[0], d_pow, bufs[1], rows, cols, CAP, RX, RY, RZ, AMB])
            bufs.reverse()
        return {"temp": dev.from_device(bufs[0], np.float32, rows * cols).reshape(rows, cols)}

    def reference(self, inp, out=None):
        t = inp["temp"].astype(np.float64)
        pw = inp["power"].astype(np.float64)
        for _ in range(self.params["iters"]):
            pad = np.pad(t, 1, mode="edge")
            c = pad[1:-1, 1:-1]
            delta = (pw + (pad[1:-1, 2:] + pad[1:-1, :-2] - 2 * c) * RX
                     + (pad[2:, 1:-1] + pad[:-2, 1:-1] - 2 * c) * RY + (AMB - c) * RZ) / CAP
            t = c + delta
        return {"temp": t}

    def check(self, out, ref):
        assert_close("hotspot temperature", out["temp"], ref["temp"], rtol=1e-5, atol=1e-3)
