"""Mandelbrot: escape-time counts, compute-bound with divergent loop exits."""
import numpy as np

from .base import Workload, assert_equal, grid_for, register
from .params import Param

BX, BY = 16, 16
X0, Y0, SPAN = -2.1, -1.3, 2.6


@register
class Mandelbrot(Workload):
    name = "mandelbrot"
    ptx = "mandelbrot.ptx"
    description = "escape-time iteration counts over a grid of points, one thread each; divergent exits"
    kind = "regular"
    param_specs = {
        "width": Param(int, "points per row", min=1),
        "height": Param(int, "rows", min=1),
        "max_iter": Param(int, "iteration limit", min=1),
    }
    sizes = {
        "small": {"width": 64, "height": 48, "max_iter": 64},
        "medium": {"width": 384, "height": 256, "max_iter": 128},
        "paper": {"width": 1536, "height": 1024, "max_iter": 256},
    }

    def make_inputs(self, rng):
        return {}

    def _steps(self):
        p = self.params
        return np.float32(SPAN / p["width"] * 1.3), np.float32(SPAN / p["height"])

    def run(self, dev, mod, inp):
        p = self.params
        w, h = p["width"], p["height"]
        dx, dy = self._steps()
        d_out = dev.zeros(w * h, np.int32)
        dev.launch(mod, "mandel", (grid_for(w, BX), grid_for(h, BY)), (BX, BY),
                   [d_out, w, h, np.float32(X0), np.float32(Y0), dx, dy, p["max_iter"]])
        return {"it": dev.from_device(d_out, np.int32, w * h).reshape(h, w)}

    def reference(self, inp, out=None):
        """The kernel's float32 recurrence in numpy, every point at once, with
        the fused multiply-adds nvcc emits (the point's coordinates and the
        update of zi: ``fma.rn.f32`` in mandelbrot.ptx) done as float64
        products, which are exact for float32 operands, rounded once."""
        p = self.params
        dx, dy = self._steps()
        f = np.float32

        def fma(a, b, c):
            return (a.astype(np.float64) * b + np.float64(c)).astype(np.float32) if np.ndim(c) == 0 else \
                (a.astype(np.float64) * b + c.astype(np.float64)).astype(np.float32)

        cr = fma(np.arange(p["width"], dtype=np.float32), np.float64(dx), f(X0))[None, :].repeat(p["height"], 0)
        ci = fma(np.arange(p["height"], dtype=np.float32), np.float64(dy), f(Y0))[:, None].repeat(p["width"], 1)
        zr, zi = np.zeros_like(cr), np.zeros_like(ci)
        it = np.zeros(cr.shape, np.int32)
        live = np.ones(cr.shape, bool)
        for _ in range(p["max_iter"]):
            live &= zr * zr + zi * zi <= f(4.0)
            if not live.any():
                break
            t = cr + (zr * zr - zi * zi)
            zi = np.where(live, fma(zr + zr, zi.astype(np.float64), ci), zi)
            zr = np.where(live, t, zr)
            it += live
        return {"it": it}

    def check(self, out, ref):
        assert_equal("mandelbrot iteration counts", out["it"], ref["it"])
