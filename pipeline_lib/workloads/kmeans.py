"""k-means (Lloyd): assignment and atomic accumulation kernels, host update, several iterations."""
import numpy as np

from .base import Workload, assert_close, assert_equal, grid_for, register

BLOCK = 128


@register
class KMeans(Workload):
    name = "kmeans"
    ptx = "kmeans.ptx"
    kind = "regular"
    description = "Lloyd k-means: nearest-centroid assignment and atomic centroid sums"
    sizes = {
        "small": {"points": 4096, "features": 8, "k": 5, "iters": 3},
        "paper": {"points": 131_072, "features": 16, "k": 8, "iters": 15},
    }

    def make_inputs(self, rng):
        p = self.params
        centres = rng.uniform(-10, 10, (p["k"], p["features"]))
        lab = rng.integers(0, p["k"], p["points"])
        pts = centres[lab] + rng.normal(0, 1.0, (p["points"], p["features"]))
        pts = pts.astype(np.float32)
        init = pts[rng.choice(p["points"], p["k"], replace=False)].copy()
        return {"pts": pts, "init": init}

    def run(self, dev, mod, inp):
        p = self.params
        n, nf, k = p["points"], p["features"], p["k"]
        d_pts = dev.to_device(np.ascontiguousarray(inp["pts"].T))   # feature-major
        cent = inp["init"].copy()
        d_cent = dev.to_device(cent)
        d_mem = dev.zeros(n, np.int32)
        d_sums, d_counts = dev.zeros(k * nf, np.float32), dev.zeros(k, np.int32)
        grid = (grid_for(n, BLOCK),)
        for _ in range(p["iters"]):
            dev.copy_to(d_cent, cent)
            dev.launch(mod, "kmeans_assign", grid, (BLOCK,), [d_pts, d_cent, d_mem, n, k, nf])
            dev.copy_to(d_sums, np.zeros(k * nf, np.float32))
            dev.copy_to(d_counts, np.zeros(k, np.int32))
            dev.launch(mod, "kmeans_accumulate", grid, (BLOCK,), [d_pts, d_mem, d_sums, d_counts, n, nf])
            sums = dev.from_device(d_sums, np.float32, k * nf).reshape(k, nf)
            counts = dev.from_device(d_counts, np.int32, k)
            cent = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], cent).astype(np.float32)
        return {"membership": dev.from_device(d_mem, np.int32, n), "centroids": cent}

    def reference(self, inp):
        pts = inp["pts"].astype(np.float64)
        cent = inp["init"].astype(np.float64)
        for _ in range(self.params["iters"]):
            mem = np.argmin(((pts[:, None, :] - cent[None]) ** 2).sum(-1), 1)
            for c in range(len(cent)):
                if (mem == c).any():
                    cent[c] = pts[mem == c].mean(0)
        return {"membership": mem.astype(np.int32), "centroids": cent}

    def check(self, out, ref):
        assert_equal("kmeans membership", out["membership"], ref["membership"])
        assert_close("kmeans centroids", out["centroids"], ref["centroids"], rtol=1e-4, atol=1e-4)
