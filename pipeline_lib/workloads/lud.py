"""LUD: blocked LU decomposition without pivoting (diagonal, perimeter and internal tile kernels)."""
import numpy as np

from .base import Workload, assert_close, register
from .params import Param

T = 16


@register
class Lud(Workload):
    name = "lud"
    ptx = "lud.ptx"
    description = "blocked LU without pivoting, 16 x 16 shared-memory tiles; grids shrink to one block"
    kind = "regular"
    param_specs = {
        "n": Param(int, "matrix order (a multiple of 16)", min=16),
    }
    sizes = {
        "small": {"n": 64},
        "medium": {"n": 384},
        "paper": {"n": 1024},
    }

    def make_inputs(self, rng):
        n = self.params["n"]
        if n % T:
            raise ValueError(f"lud: n = {n} is not a multiple of {T}")
        a = rng.uniform(-1, 1, (n, n))
        a[np.diag_indices(n)] = n + rng.uniform(0, 1, n)        # diagonally dominant: no pivoting needed
        return {"A": a.astype(np.float32)}

    def run(self, dev, mod, inp):
        n = self.params["n"]
        nt = n // T
        d_a = dev.to_device(inp["A"])
        for i in range(nt):
            off = i * T
            dev.launch(mod, "lud_diagonal", (1,), (T,), [d_a, n, off])
            if i < nt - 1:
                rest = nt - i - 1
                dev.launch(mod, "lud_perimeter", (rest,), (2 * T,), [d_a, n, off])
                dev.launch(mod, "lud_internal", (rest, rest), (T, T), [d_a, n, off])
        return {"LU": dev.from_device(d_a, np.float32, n * n).reshape(n, n)}

    def reference(self, inp, out=None):
        a = inp["A"].astype(np.float64)
        n = len(a)
        for k in range(n - 1):                       # Doolittle, unit lower triangle, in place
            a[k + 1:, k] /= a[k, k]
            a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
        return {"LU": a}

    def check(self, out, ref):
        assert_close("lud factors", out["LU"], ref["LU"], rtol=1e-3, atol=1e-4)
