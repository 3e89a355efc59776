"""Backprop: a perceptron layer's forward pass (shared-memory column sums) and its weight update."""
import numpy as np

from .base import Workload, assert_close, register
from .params import Param

TB = 16
ETA, MOMENTUM = 0.3, 0.3


@register
class Backprop(Workload):
    name = "backprop"
    ptx = "backprop.ptx"
    description = "input layer of a two-layer perceptron: 16 x 16 tile products reduced in shared memory, momentum update"
    kind = "regular"
    param_specs = {
        "inputs": Param(int, "input units (a multiple of 16)", min=16),
        "hidden": Param(int, "hidden units (a multiple of 16)", min=16),
        "steps": Param(int, "training steps (two launches each)", min=1),
    }
    sizes = {
        "small": {"inputs": 256, "hidden": 16, "steps": 1},
        "medium": {"inputs": 8192, "hidden": 64, "steps": 2},
        "paper": {"inputs": 65536, "hidden": 64, "steps": 2},
    }

    def make_inputs(self, rng):
        p = self.params
        for k in ("inputs", "hidden"):
            if p[k] % TB:
                raise ValueError(f"backprop: {k} = {p[k]} is not a multiple of {TB}")
        return {"x": rng.random(p["inputs"]).astype(np.float32),
                "w": rng.uniform(-0.1, 0.1, (p["inputs"], p["hidden"])).astype(np.float32),
                "delta": rng.uniform(-0.05, 0.05, (p["steps"], p["hidden"])).astype(np.float32)}

    def run(self, dev, mod, inp):
        p = self.params
        n_in, hid = p["inputs"], p["hidden"]
        d_x, d_w = dev.to_device(inp["x"]), dev.to_device(inp["w"])
        d_old = dev.zeros(n_in * hid, np.float32)
        d_part = dev.zeros(n_in // TB * hid, np.float32)
        grid = (hid // TB, n_in // TB)
        hidden = []
        for s in range(p["steps"]):
            dev.launch(mod, "bp_forward", grid, (TB, TB), [d_x, d_w, d_part, n_in, hid])
            hidden.append(dev.from_device(d_part, np.float32, n_in // TB * hid).reshape(-1, hid).sum(axis=0))
            d_delta = dev.to_device(inp["delta"][s])
            dev.launch(mod, "bp_adjust", grid, (TB, TB), [d_w, d_old, d_delta, d_x, n_in, hid, ETA, MOMENTUM])
        return {"hidden": np.array(hidden), "w": dev.from_device(d_w, np.float32, n_in * hid).reshape(n_in, hid)}

    def reference(self, inp, out=None):
        x = inp["x"].astype(np.float64)
        w = inp["w"].astype(np.float64)
        old = np.zeros_like(w)
        hidden = []
        for s in range(self.params["steps"]):
            hidden.append(x @ w)
            dw = ETA * inp["delta"][s].astype(np.float64)[None, :] * x[:, None] + MOMENTUM * old
            w, old = w + dw, dw
        return {"hidden": np.array(hidden), "w": w}

    def check(self, out, ref):
        assert_close("backprop hidden sums", out["hidden"], ref["hidden"], rtol=1e-4, atol=1e-4)
        assert_close("backprop weights", out["w"], ref["w"], rtol=1e-5, atol=1e-6)
