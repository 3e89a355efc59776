"""BlackScholes: European option pricing in many launches over batches of the book."""
import numpy as np

from .base import Workload, assert_close, grid_for, register
from .params import Param

BLOCK = 128
RATE, VOL = 0.02, 0.30


@register
class BlackScholes(Workload):
    name = "blackscholes"
    ptx = "blackscholes.ptx"
    description = "Black-Scholes call/put prices, the option book split over many launches"
    kind = "regular"
    param_specs = {
        "options": Param(int, "options priced per launch", min=1),
        "launches": Param(int, "launches", min=1),
    }
    sizes = {
        "small": {"options": 8192, "launches": 8},
        "medium": {"options": 1_048_576, "launches": 12},
        "paper": {"options": 2_000_000, "launches": 87},
    }

    def make_inputs(self, rng):
        n = self.params["options"]
        return {"spot": rng.uniform(5, 30, n).astype(np.float32),
                "strike": rng.uniform(1, 100, n).astype(np.float32),
                "years": rng.uniform(0.25, 10, n).astype(np.float32)}

    def run(self, dev, mod, inp):
        n, nl = self.params["options"], self.params["launches"]
        d = {k: dev.to_device(v) for k, v in inp.items()}
        d_call, d_put = dev.zeros(n, np.float32), dev.zeros(n, np.float32)
        bounds = np.linspace(0, n, nl + 1).astype(int)
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            dev.launch(mod, "black_scholes", (grid_for(hi - lo, BLOCK),), (BLOCK,),
                       [d["spot"], d["strike"], d["years"], d_call, d_put, RATE, VOL, int(lo), int(hi - lo)])
        return {"call": dev.from_device(d_call, np.float32, n), "put": dev.from_device(d_put, np.float32, n)}

    def reference(self, inp, out=None):
        from scipy.stats import norm  # scipy is loaded only when a reference is computed
        s, x, t = (inp[k].astype(np.float64) for k in ("spot", "strike", "years"))
        d1 = (np.log(s / x) + (RATE + 0.5 * VOL * VOL) * t) / (VOL * np.sqrt(t))
        d2 = d1 - VOL * np.sqrt(t)
        e = np.exp(-RATE * t)
        return {"call": s * norm.cdf(d1) - x * e * norm.cdf(d2),
                "put": x * e * norm.cdf(-d2) - s * norm.cdf(-d1)}

    def check(self, out, ref):
        # the kernel's polynomial CND has ~1e-7 absolute error (Abramowitz-Stegun 26.2.17)
        assert_close("call price", out["call"], ref["call"], rtol=1e-4, atol=2e-4)
        assert_close("put price", out["put"], ref["put"], rtol=1e-4, atol=2e-4)
