"""CG: conjugate-gradient iterations on an ELLPACK sparse matrix (spmv, dot, update, direction kernels)."""
import numpy as np

from .base import Workload, assert_close, grid_for, register
from .params import Param

B = 256
DOT_BLOCKS = 64


@register
class CG(Workload):
    name = "cg"
    ptx = "cg.ptx"
    description = "CG on a 2D Poisson-like SPD matrix plus random couplings, ELLPACK, float atomics for dot products"
    kind = "regular"
    param_specs = {
        "side": Param(int, "grid side (n = side^2 unknowns)", min=2),
        "extra": Param(int, "random symmetric couplings per row", min=0),
        "iters": Param(int, "CG iterations (six launches each)", min=1),
    }
    sizes = {
        "small": {"side": 24, "extra": 1, "iters": 3},
        "medium": {"side": 128, "extra": 2, "iters": 6},
        "paper": {"side": 512, "extra": 2, "iters": 10},
    }

    def make_inputs(self, rng):
        """A 5-point Laplacian plus ``extra`` random symmetric couplings per
        row, made strictly diagonally dominant (SPD); ELLPACK column-major."""
        p = self.params
        s = p["side"]
        n = s * s
        rows, cols = [], []
        idx = np.arange(n).reshape(s, s)
        for a, b in ((idx[:, :-1], idx[:, 1:]), (idx[:-1, :], idx[1:, :])):
            rows.append(a.ravel())
            cols.append(b.ravel())
        if p["extra"]:
            i = np.repeat(np.arange(n), p["extra"])
            j = rng.integers(0, n, len(i))
            keep = i != j
            rows.append(i[keep])
            cols.append(j[keep])
        i, j = np.concatenate(rows), np.concatenate(cols)
        pairs = np.unique(np.stack([np.minimum(i, j), np.maximum(i, j)], 1), axis=0)
        v = -rng.uniform(0.5, 1.0, len(pairs))
        r = np.concatenate([pairs[:, 0], pairs[:, 1]])
        c = np.concatenate([pairs[:, 1], pairs[:, 0]])
        v = np.concatenate([v, v])
        diag = np.zeros(n)
        np.add.at(diag, r, -v)
        r, c, v = np.concatenate([r, np.arange(n)]), np.concatenate([c, np.arange(n)]), \
            np.concatenate([v, diag + 0.1])
        order = np.lexsort((c, r))
        r, c, v = r[order], c[order], v[order]
        counts = np.bincount(r, minlength=n)
        width = int(counts.max())
        slot = np.arange(len(r)) - np.repeat(np.cumsum(counts) - counts, counts)
        ell_c = np.full((width, n), -1, np.int32)
        ell_v = np.zeros((width, n), np.float32)
        ell_c[slot, r] = c
        ell_v[slot, r] = v
        return {"cols": ell_c, "vals": ell_v, "b": rng.uniform(-1, 1, n).astype(np.float32)}

    def run(self, dev, mod, inp):
        n = inp["b"].size
        width = inp["cols"].shape[0]
        d_cols, d_vals = dev.to_device(inp["cols"]), dev.to_device(inp["vals"])
        x, r, p, q = dev.zeros(n, np.float32), dev.to_device(inp["b"]), dev.to_device(inp["b"]), dev.zeros(n, np.float32)
        acc = dev.zeros(1, np.float32)
        zero = np.zeros(1, np.float32)
        g = grid_for(n, B)

        def dot(a, b):
            dev.copy_to(acc, zero)
            dev.launch(mod, "cg_dot", (DOT_BLOCKS,), (B,), [a, b, acc, n])
            return float(dev.from_device(acc, np.float32, 1)[0])

        rr = dot(r, r)
        scalars = []
        for _ in range(self.params["iters"]):
            dev.launch(mod, "cg_spmv", (g,), (B,), [d_cols, d_vals, p, q, n, width])
            alpha = np.float32(rr / dot(p, q))
            dev.launch(mod, "cg_update", (g,), (B,), [x, r, p, q, alpha, n])
            rr_new = dot(r, r)
            beta = np.float32(rr_new / rr)
            dev.launch(mod, "cg_direction", (g,), (B,), [p, r, beta, n])
            scalars.append((float(alpha), float(beta)))
            rr = rr_new
        return {"x": dev.from_device(x, np.float32, n), "scalars": np.array(scalars)}

    def reference(self, inp, out=None):
        """CG in float64 with the same matrix; the iterates agree with the
        float32 ones to a few digits over a few iterations."""
        cols, vals = inp["cols"], inp["vals"].astype(np.float64)
        n = inp["b"].size

        def spmv(v):
            return (np.where(cols >= 0, vals * v[np.maximum(cols, 0)], 0.0)).sum(axis=0)

        x = np.zeros(n)
        r = inp["b"].astype(np.float64)
        p = r.copy()
        rr = r @ r
        scalars = []
        for _ in range(self.params["iters"]):
            q = spmv(p)
            alpha = rr / (p @ q)
            x += alpha * p
            r -= alpha * q
            rr_new = r @ r
            beta = rr_new / rr
            p = r + beta * p
            scalars.append((alpha, beta))
            rr = rr_new
        return {"x": x, "scalars": np.array(scalars)}

    def check(self, out, ref):
        assert_close("cg alpha, beta", out["scalars"], ref["scalars"], rtol=2e-3, atol=0)
        assert_close("cg solution", out["x"], ref["x"], rtol=2e-3, atol=2e-4)
