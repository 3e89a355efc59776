"""LBM: D2Q9 BGK lattice-Boltzmann, pull streaming, bounce-back obstacles, one launch per step."""
import numpy as np

from .base import Workload, assert_close, grid_for, register
from .params import Param

BLOCK = 128
W = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)
EX = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1])
EY = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1])
OPP = np.array([0, 3, 4, 1, 2, 7, 8, 5, 6])


def equilibrium(rho, ux, uy):
    usq = 1.5 * (ux * ux + uy * uy)
    f = np.empty((9,) + rho.shape)
    for q in range(9):
        eu = 3.0 * (EX[q] * ux + EY[q] * uy)
        f[q] = W[q] * rho * (1 + eu + 0.5 * eu * eu - usq)
    return f


@register
class LBM(Workload):
    name = "lbm"
    ptx = "lbm.ptx"
    description = "D2Q9 lattice-Boltzmann time steps around a cylinder"
    kind = "regular"
    param_specs = {
        "nx": Param(int, "lattice width (cells)", min=3),
        "ny": Param(int, "lattice height (cells)", min=3),
        "steps": Param(int, "time steps (one launch each)", min=1),
        "omega": Param(float, "BGK relaxation rate (stable below 2)", min=0.0, max=2.0),
    }
    sizes = {
        "small": {"nx": 128, "ny": 32, "steps": 3, "omega": 1.2},
        "medium": {"nx": 512, "ny": 256, "steps": 4, "omega": 1.2},
        "paper": {"nx": 1024, "ny": 256, "steps": 6, "omega": 1.2},
    }

    def make_inputs(self, rng):
        p = self.params
        nx, ny = p["nx"], p["ny"]
        yy, xx = np.mgrid[0:ny, 0:nx]
        obstacle = ((xx - nx / 4) ** 2 + (yy - ny / 2) ** 2 < (ny / 8) ** 2)
        obstacle |= rng.random((ny, nx)) < 0.01  # porous debris
        rho = 1.0 + 0.01 * rng.standard_normal((ny, nx))
        f = equilibrium(rho, np.full((ny, nx), 0.05), np.zeros((ny, nx)))
        return {"f": f.astype(np.float32).reshape(9, -1), "obstacle": obstacle.astype(np.uint8).ravel()}

    def run(self, dev, mod, inp):
        p = self.params
        nx, ny = p["nx"], p["ny"]
        bufs = [dev.to_device(inp["f"]), dev.zeros(inp["f"].size, np.float32)]
        d_obs = dev.to_device(inp["obstacle"])
        for _ in range(p["steps"]):
            dev.launch(mod, "lbm_step", (grid_for(nx, BLOCK), ny), (BLOCK,),
                       [bufs[0], bufs[1], d_obs, nx, ny, float(p["omega"])])
            bufs.reverse()
        return {"f": dev.from_device(bufs[0], np.float32, inp["f"].size).reshape(9, ny, nx)}

    def reference(self, inp, out=None):
        p = self.params
        nx, ny, omega = p["nx"], p["ny"], p["omega"]
        f = inp["f"].astype(np.float64).reshape(9, ny, nx)
        obs = inp["obstacle"].reshape(ny, nx).astype(bool)
        for _ in range(p["steps"]):
            g = np.stack([np.roll(np.roll(f[q], EY[q], 0), EX[q], 1) for q in range(9)])
            rho = g.sum(0)
            ux = (g * EX[:, None, None]).sum(0) / rho
            uy = (g * EY[:, None, None]).sum(0) / rho
            out = g + omega * (equilibrium(rho, ux, uy) - g)
            bounced = g[OPP]  # f_out[opp[q]] = f[q]  <=>  f_out[q] = f[opp[q]]
            f = np.where(obs[None], bounced, out)
        return {"f": f}

    def check(self, out, ref):
        assert_close("lbm distributions", out["f"], ref["f"], rtol=1e-4, atol=1e-6)
