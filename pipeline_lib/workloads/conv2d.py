"""Conv2D: separable 9-tap filter, a row pass and a column pass through global memory."""
import numpy as np

from .base import Workload, assert_close, grid_for, register
from .params import Param

BX, BY = 32, 8
R = 4


@register
class Conv2D(Workload):
    name = "conv2d"
    ptx = "conv2d.ptx"
    description = "separable 9-tap image filter (row then column pass), clamped borders, no textures"
    kind = "regular"
    param_specs = {
        "width": Param(int, "image width", min=1),
        "height": Param(int, "image height", min=1),
        "passes": Param(int, "filter applications (two launches each)", min=1),
    }
    sizes = {
        "small": {"width": 96, "height": 64, "passes": 1},
        "medium": {"width": 512, "height": 512, "passes": 2},
        "paper": {"width": 2048, "height": 2048, "passes": 2},
    }

    def make_inputs(self, rng):
        p = self.params
        w = np.exp(-0.5 * (np.arange(-R, R + 1) / 2.0) ** 2)
        return {"img": rng.random((p["height"], p["width"])).astype(np.float32),
                "taps": (w / w.sum()).astype(np.float32)}

    def run(self, dev, mod, inp):
        p = self.params
        wd, ht = p["width"], p["height"]
        a, b = dev.to_device(inp["img"]), dev.zeros(wd * ht, np.float32)
        d_w = dev.to_device(inp["taps"])
        grid = (grid_for(wd, BX), grid_for(ht, BY))
        for _ in range(p["passes"]):
            dev.launch(mod, "conv_rows", grid, (BX, BY), [a, b, d_w, wd, ht])
            dev.launch(mod, "conv_cols", grid, (BX, BY), [b, a, d_w, wd, ht])
        return {"img": dev.from_device(a, np.float32, wd * ht).reshape(ht, wd)}

    def reference(self, inp, out=None):
        img = inp["img"].astype(np.float64)
        w = inp["taps"].astype(np.float64)
        ht, wd = img.shape
        cols = np.clip(np.arange(wd)[:, None] + np.arange(-R, R + 1)[None, :], 0, wd - 1)
        rows = np.clip(np.arange(ht)[:, None] + np.arange(-R, R + 1)[None, :], 0, ht - 1)
        for _ in range(self.params["passes"]):
            img = (img[:, cols] * w).sum(axis=2)
            img = (img[rows, :] * w[None, :, None]).sum(axis=1)
        return {"img": img}

    def check(self, out, ref):
        assert_close("conv2d image", out["img"], ref["img"], rtol=1e-5, atol=1e-6)
