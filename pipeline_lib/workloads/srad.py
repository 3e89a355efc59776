"""SRAD: speckle reducing anisotropic diffusion (statistics, coefficient and update kernels)."""
import numpy as np

from .base import Workload, assert_close, grid_for, register
from .params import Param

BX, BY = 16, 16
STATS_BLOCKS, STATS_THREADS = 64, 256
LAMBDA = 0.5


@register
class Srad(Workload):
    name = "srad"
    ptx = "srad.ptx"
    description = "SRAD diffusion: block sums for q0, per-pixel coefficient, divergence update; clamped borders"
    kind = "regular"
    param_specs = {
        "width": Param(int, "image width", min=2),
        "height": Param(int, "image height", min=2),
        "iters": Param(int, "diffusion iterations (three launches each)", min=1),
    }
    sizes = {
        "small": {"width": 64, "height": 48, "iters": 2},
        "medium": {"width": 256, "height": 256, "iters": 4},
        "paper": {"width": 1024, "height": 1024, "iters": 6},
    }

    def make_inputs(self, rng):
        p = self.params
        # a speckled image: a smooth field times exponential (multiplicative) noise, strictly positive
        y, x = np.mgrid[0:p["height"], 0:p["width"]]
        field = 1.0 + 0.5 * np.sin(x / 9.0) * np.cos(y / 13.0)
        return {"img": (field * rng.exponential(1.0, field.shape) + 0.05).astype(np.float32)}

    def run(self, dev, mod, inp):
        p = self.params
        w, h = p["width"], p["height"]
        npix = w * h
        img = dev.to_device(inp["img"])
        parts = dev.zeros(2 * STATS_BLOCKS, np.float32)
        dn, ds, dw, de, c = (dev.zeros(npix, np.float32) for _ in range(5))
        grid = (grid_for(w, BX), grid_for(h, BY))
        q0s = []
        for _ in range(p["iters"]):
            dev.launch(mod, "srad_stats", (STATS_BLOCKS,), (STATS_THREADS,), [img, parts, npix])
            s = dev.from_device(parts, np.float32, 2 * STATS_BLOCKS).astype(np.float64).reshape(-1, 2).sum(axis=0)
            mean = s[0] / npix
            var = s[1] / npix - mean * mean
            q0sq = np.float32(var / (mean * mean))
            q0s.append(float(q0sq))
            dev.launch(mod, "srad_coeff", grid, (BX, BY), [img, dn, ds, dw, de, c, w, h, q0sq])
            dev.launch(mod, "srad_update", grid, (BX, BY), [img, dn, ds, dw, de, c, w, h, LAMBDA])
        return {"img": dev.from_device(img, np.float32, npix).reshape(h, w), "q0sq": np.array(q0s)}

    def reference(self, inp, out=None):
        """SRAD in float64, each iteration from the statistic q0^2 the kernels
        used (out["q0sq"]); q0^2 itself is checked against float64 sums."""
        img = inp["img"].astype(np.float64)
        h, w = img.shape
        ys, xs = np.arange(h), np.arange(w)
        up, down = np.maximum(ys - 1, 0), np.minimum(ys + 1, h - 1)
        left, right = np.maximum(xs - 1, 0), np.minimum(xs + 1, w - 1)
        q0_ref = []
        for it in range(self.params["iters"]):
            q0_ref.append(img.var() / img.mean() ** 2)
            q0sq = out["q0sq"][it] if out is not None else q0_ref[-1]
            n, s = img[up, :] - img, img[down, :] - img
            we, e = img[:, left] - img, img[:, right] - img
            g2 = (n * n + s * s + we * we + e * e) / (img * img)
            lap = (n + s + we + e) / img
            qsq = (0.5 * g2 - 0.0625 * lap * lap) / (1 + 0.25 * lap) ** 2
            c = np.clip(1.0 / (1.0 + (qsq - q0sq) / (q0sq * (1.0 + q0sq))), 0.0, 1.0)
            d = c * n + c[down, :] * s + c * we + c[:, right] * e
            img = img + 0.25 * LAMBDA * d
        return {"img": img, "q0sq": np.array(q0_ref)}

    def check(self, out, ref):
        assert_close("srad q0^2", out["q0sq"], ref["q0sq"], rtol=1e-4, atol=0)
        assert_close("srad image", out["img"], ref["img"], rtol=2e-3, atol=2e-4)
