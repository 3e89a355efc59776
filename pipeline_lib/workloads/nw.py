"""Needleman-Wunsch: alignment score matrix by anti-diagonals of 16 x 16 tiles."""
import numpy as np

from .base import Workload, assert_equal, register
from .params import Param

T = 16
PENALTY = 10


@register
class NeedlemanWunsch(Workload):
    name = "nw"
    ptx = "nw.ptx"
    description = "Needleman-Wunsch DP, one launch per anti-diagonal of 16x16 tiles, shared-memory wavefront"
    kind = "regular"
    param_specs = {
        "length": Param(int, "sequence length (a multiple of 16)", min=16),
    }
    sizes = {
        "small": {"length": 64},
        "medium": {"length": 1024},
        "paper": {"length": 2048},
    }

    def make_inputs(self, rng):
        n = self.params["length"]
        if n % T:
            raise ValueError(f"workload nw: length {n} is not a multiple of {T}")
        a, b = rng.integers(0, 4, n), rng.integers(0, 4, n)
        # substitution scores: +5 for a match, -3 for a mismatch (BLOSUM-like sign pattern)
        sim = np.where(a[:, None] == b[None, :], 5, -3).astype(np.int32)
        return {"sim": sim}

    def run(self, dev, mod, inp):
        n = self.params["length"]
        score = np.zeros((n + 1, n + 1), np.int32)
        score[0, :] = -PENALTY * np.arange(n + 1)
        score[:, 0] = -PENALTY * np.arange(n + 1)
        d_score, d_sim = dev.to_device(score), dev.to_device(inp["sim"])
        tiles = n // T
        for d in range(2 * tiles - 1):
            blocks = d + 1 if d < tiles else 2 * tiles - 1 - d
            dev.launch(mod, "nw_diagonal", (blocks,), (T,), [d_score, d_sim, n, d, PENALTY])
        return {"score": dev.from_device(d_score, np.int32, (n + 1) ** 2).reshape(n + 1, n + 1)}

    def reference(self, inp, out=None):
        sim = inp["sim"].astype(np.int64)
        n = sim.shape[0]
        s = np.zeros((n + 1, n + 1), np.int64)
        s[0, :] = -PENALTY * np.arange(n + 1)
        s[:, 0] = -PENALTY * np.arange(n + 1)
        # cell by cell anti-diagonal (i + j = k), vectorised along each diagonal
        for k in range(2, 2 * n + 1):
            i = np.arange(max(1, k - n), min(n, k - 1) + 1)
            j = k - i
            s[i, j] = np.maximum(s[i - 1, j - 1] + sim[i - 1, j - 1],
                                 np.maximum(s[i - 1, j], s[i, j - 1]) - PENALTY)
        return {"score": s.astype(np.int32)}

    def check(self, out, ref):
        assert_equal("nw score matrix", out["score"], ref["score"])
