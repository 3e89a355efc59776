"""k-means (Lloyd): assignment and atomic accumulation kernels, host update, several iterations."""
import numpy as np

from .base import CheckError, Workload, assert_close, assert_equal, grid_for, register
from .params import Param

BLOCK = 128


@register
class KMeans(Workload):
    name = "kmeans"
    ptx = "kmeans.ptx"
    description = "Lloyd k-means: nearest-centroid assignment and atomic centroid sums"
    kind = "regular"
    param_specs = {
        "points": Param(int, "points", min=1),
        "features": Param(int, "features per point", min=1),
        "k": Param(int, "clusters", min=1),
        "iters": Param(int, "iterations (one assignment launch each)", min=1),
    }
    sizes = {
        "small": {"points": 4096, "features": 8, "k": 5, "iters": 3},
        "medium": {"points": 65_536, "features": 8, "k": 5, "iters": 4},
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
        iterations = []
        for _ in range(p["iters"]):
            dev.copy_to(d_cent, cent)
            dev.launch(mod, "kmeans_assign", grid, (BLOCK,), [d_pts, d_cent, d_mem, n, k, nf])
            dev.copy_to(d_sums, np.zeros(k * nf, np.float32))
            dev.copy_to(d_counts, np.zeros(k, np.int32))
            dev.launch(mod, "kmeans_accumulate", grid, (BLOCK,), [d_pts, d_mem, d_sums, d_counts, n, nf])
            membership = dev.from_device(d_mem, np.int32, n)
            sums = dev.from_device(d_sums, np.float32, k * nf).reshape(k, nf)
            counts = dev.from_device(d_counts, np.int32, k)
            iterations.append((cent.copy(), membership, sums, counts))
            cent = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], cent).astype(np.float32)
        return {"iterations": iterations}

    def reference(self, inp, out=None):
        # Each iteration is checked from the centroids the kernels were given:
        # Lloyd's iterates are chaotic at cluster boundaries, so comparing
        # against an independent float64 run would flag float32 rounding.
        pts = inp["pts"].astype(np.float64)
        k = self.params["k"]
        expected = []
        for cent, membership, _, _ in out["iterations"]:
            d = ((pts[:, None, :] - cent.astype(np.float64)[None]) ** 2).sum(-1)
            best = np.argmin(d, 1)
            srt = np.sort(d, 1)
            tie = (srt[:, 1] - srt[:, 0]) <= 1e-5 * np.maximum(1.0, srt[:, 0])
            sums = np.zeros((k, pts.shape[1]))
            np.add.at(sums, membership, pts)
            counts = np.bincount(membership, minlength=k)
            expected.append((best, tie, sums, counts, d))
        return {"iterations": expected}

    def check(self, out, ref):
        for i, ((_, membership, sums, counts), (best, tie, sums_ref, counts_ref, d)) in enumerate(
                zip(out["iterations"], ref["iterations"])):
            wrong = (membership != best) & ~tie
            if wrong.any():
                j = int(np.flatnonzero(wrong)[0])
                raise CheckError(f"kmeans iteration {i}: {int(wrong.sum())} points not assigned to their "
                                 f"nearest centroid (first: point {j} -> {membership[j]}, nearest {best[j]})")
            assert_equal(f"kmeans iteration {i} counts", counts, counts_ref)
            assert_close(f"kmeans iteration {i} sums", sums, sums_ref, rtol=1e-4,
                         atol=1e-5 * max(1.0, float(np.abs(sums_ref).max())))
