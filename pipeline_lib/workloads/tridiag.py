"""Tridiag: batched tridiagonal solves by parallel cyclic reduction in shared memory."""
import numpy as np

from .base import Workload, assert_close, register
from .params import Param

N = 256


@register
class Tridiag(Workload):
    name = "tridiag"
    ptx = "tridiag.ptx"
    description = "parallel cyclic reduction, one 256-equation system per block, five shared arrays, 8 barrier steps"
    kind = "regular"
    param_specs = {
        "systems": Param(int, "independent systems (one block each)", min=1),
        "repeats": Param(int, "solves of the batch (one launch each)", min=1),
    }
    sizes = {
        "small": {"systems": 8, "repeats": 1},
        "medium": {"systems": 512, "repeats": 2},
        "paper": {"systems": 4096, "repeats": 2},
    }

    def make_inputs(self, rng):
        m = self.params["systems"]
        a = rng.uniform(-1, 1, (m, N))
        c = rng.uniform(-1, 1, (m, N))
        a[:, 0] = 0.0
        c[:, -1] = 0.0
        b = np.abs(a) + np.abs(c) + rng.uniform(1, 2, (m, N))        # strictly diagonally dominant
        d = rng.uniform(-1, 1, (m, N))
        return {k: v.astype(np.float32) for k, v in (("a", a), ("b", b), ("c", c), ("d", d))}

    def run(self, dev, mod, inp):
        m = self.params["systems"]
        args = [dev.to_device(inp[k]) for k in "abcd"]
        d_x = dev.zeros(m * N, np.float32)
        for _ in range(self.params["repeats"]):
            dev.launch(mod, "pcr_solve", (m,), (N,), [*args, d_x])
        return {"x": dev.from_device(d_x, np.float32, m * N).reshape(m, N)}

    def reference(self, inp, out=None):
        """Thomas' algorithm in float64, every system at once."""
        a, b, c, d = (inp[k].astype(np.float64) for k in "abcd")
        cp, dp = np.empty_like(c), np.empty_like(d)
        cp[:, 0], dp[:, 0] = c[:, 0] / b[:, 0], d[:, 0] / b[:, 0]
        for i in range(1, N):
            den = b[:, i] - a[:, i] * cp[:, i - 1]
            cp[:, i] = c[:, i] / den
            dp[:, i] = (d[:, i] - a[:, i] * dp[:, i - 1]) / den
        x = np.empty_like(d)
        x[:, -1] = dp[:, -1]
        for i in range(N - 2, -1, -1):
            x[:, i] = dp[:, i] - cp[:, i] * x[:, i + 1]
        return {"x": x}

    def check(self, out, ref):
        assert_close("tridiag solution", out["x"], ref["x"], rtol=1e-3, atol=1e-4)
