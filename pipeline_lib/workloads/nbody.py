"""N-body: all-pairs accelerations through shared-memory tiles, leapfrog update."""
import numpy as np

from .base import Workload, assert_close, grid_for, register
from .params import Param

B = 128
EPS2 = 0.01
DT = 0.001


@register
class NBody(Workload):
    name = "nbody"
    ptx = "nbody.ptx"
    description = "all-pairs gravity, shared-memory tiles and rsqrt (compute-bound), leapfrog update"
    kind = "regular"
    param_specs = {
        "bodies": Param(int, "bodies", min=1),
        "steps": Param(int, "time steps (two launches each)", min=1),
    }
    sizes = {
        "small": {"bodies": 512, "steps": 2},
        "medium": {"bodies": 2048, "steps": 2},
        "paper": {"bodies": 8192, "steps": 2},
    }

    def make_inputs(self, rng):
        n = self.params["bodies"]
        return {"pos": rng.normal(0, 1, (3, n)).astype(np.float32),
                "vel": rng.normal(0, 0.1, (3, n)).astype(np.float32),
                "mass": rng.uniform(0.5, 1.5, n).astype(np.float32)}

    def run(self, dev, mod, inp):
        n = self.params["bodies"]
        pos = [dev.to_device(inp["pos"][k]) for k in range(3)]
        vel = [dev.to_device(inp["vel"][k]) for k in range(3)]
        acc = [dev.zeros(n, np.float32) for _ in range(3)]
        d_m = dev.to_device(inp["mass"])
        for _ in range(self.params["steps"]):
            dev.launch(mod, "nbody_accel", (grid_for(n, B),), (B,), [*pos, d_m, *acc, n, EPS2])
            dev.launch(mod, "nbody_update", (grid_for(n, 256),), (256,), [*pos, *vel, *acc, n, DT])
        return {"pos": np.stack([dev.from_device(a, np.float32, n) for a in pos]),
                "vel": np.stack([dev.from_device(a, np.float32, n) for a in vel])}

    def reference(self, inp, out=None):
        pos = inp["pos"].astype(np.float64)
        vel = inp["vel"].astype(np.float64)
        m = inp["mass"].astype(np.float64)
        for _ in range(self.params["steps"]):
            acc = np.zeros_like(pos)
            for lo in range(0, pos.shape[1], 1024):      # rows of the pair matrix in chunks (memory)
                d = pos[:, None, :] - pos[:, lo:lo + 1024, None]          # (3, chunk, n): j - i
                inv = 1.0 / np.sqrt((d * d).sum(axis=0) + EPS2)
                acc[:, lo:lo + 1024] = (d * (m[None, None, :] * inv ** 3)).sum(axis=2)
            vel = vel + DT * acc
            pos = pos + DT * vel
        return {"pos": pos, "vel": vel}

    def check(self, out, ref):
        assert_close("nbody velocities", out["vel"], ref["vel"], rtol=1e-3, atol=1e-4)
        assert_close("nbody positions", out["pos"], ref["pos"], rtol=1e-4, atol=1e-5)
