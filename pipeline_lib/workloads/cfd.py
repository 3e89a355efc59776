"""CFD: explicit unstructured-mesh solver (flux gather over indexed neighbours, then update)."""
import numpy as np

from .base import Workload, assert_close, grid_for, register
from .params import Param

BLOCK = 128


def _flux(vars_, nbr, normals):
    rho, mx, my, en = vars_
    u, v = mx / rho, my / rho
    p = 0.4 * (en - 0.5 * rho * (u * u + v * v))
    speed = np.sqrt(1.4 * np.abs(p) / rho) + np.sqrt(u * u + v * v)
    fl = np.zeros_like(vars_)
    for j in range(4):
        nb = nbr[j]
        nxv, nyv = normals[2 * j], normals[2 * j + 1]
        ok = nb >= 0
        s_ = np.where(ok, nb, 0)
        rn, mxn, myn, enn = vars_[:, s_]
        un, vn = mxn / rn, myn / rn
        pn = 0.4 * (enn - 0.5 * rn * (un * un + vn * vn))
        vel = 0.5 * ((u + un) * nxv + (v + vn) * nyv)
        s = 0.5 * (speed + np.sqrt(1.4 * np.abs(pn) / rn) + np.sqrt(un * un + vn * vn))
        fl[0] += np.where(ok, vel * 0.5 * (rho + rn) - s * (rn - rho), 0)
        fl[1] += np.where(ok, vel * 0.5 * (mx + mxn) + 0.5 * (p + pn) * nxv - s * (mxn - mx), p * nxv)
        fl[2] += np.where(ok, vel * 0.5 * (my + myn) + 0.5 * (p + pn) * nyv - s * (myn - my), p * nyv)
        fl[3] += np.where(ok, vel * 0.5 * (en + enn + p + pn) - s * (enn - en), 0)
    return fl


@register
class CFD(Workload):
    name = "cfd"
    ptx = "cfd.ptx"
    description = "unstructured-mesh Euler-like flux and update, indirect neighbour gathers"
    kind = "regular"
    param_specs = {
        "cells": Param(int, "mesh cells", min=1),
        "steps": Param(int, "time steps (flux and update launches each)", min=1),
        "dt": Param(float, "time step (s)", min=0.0),
    }
    sizes = {
        "small": {"cells": 4096, "steps": 2, "dt": 0.002},
        "medium": {"cells": 65_536, "steps": 4, "dt": 0.001},
        "paper": {"cells": 97_152, "steps": 50, "dt": 0.0005},
    }

    def make_inputs(self, rng):
        n = self.params["cells"]
        side = int(np.ceil(np.sqrt(n)))
        perm = rng.permutation(n)            # cell numbering scrambles the mesh order
        pos = np.empty(n, np.int64)
        pos[perm] = np.arange(n)            # pos[cell] = grid position
        cell_at = np.full(side * side, -1, np.int64)
        cell_at[pos] = np.arange(n)
        r, c = pos // side, pos % side
        nbr = np.full((4, n), -1, np.int32)
        normals = np.zeros((8, n), np.float32)
        for j, (dr, dc) in enumerate(((0, 1), (1, 0), (0, -1), (-1, 0))):
            rr, cc = r + dr, c + dc
            ok = (rr >= 0) & (rr < side) & (cc >= 0) & (cc < side)
            idx = np.where(ok, rr * side + cc, 0)
            nb = np.where(ok, cell_at[idx], -1)
            nbr[j] = nb
            jitter = rng.uniform(0.9, 1.1, n)
            normals[2 * j] = dc * jitter
            normals[2 * j + 1] = dr * jitter
        vars_ = np.stack([1 + 0.1 * rng.random(n), 0.05 * rng.standard_normal(n),
                          0.05 * rng.standard_normal(n), 2.5 + 0.1 * rng.random(n)]).astype(np.float32)
        return {"vars": vars_, "nbr": nbr, "normals": normals,
                "area": rng.uniform(0.8, 1.2, n).astype(np.float32)}

    def run(self, dev, mod, inp):
        p = self.params
        n = p["cells"]
        d = {k: dev.to_device(v) for k, v in inp.items()}
        d_flux = dev.zeros(4 * n, np.float32)
        grid = (grid_for(n, BLOCK),)
        for _ in range(p["steps"]):
            dev.launch(mod, "cfd_compute_flux", grid, (BLOCK,), [d["vars"], d["nbr"], d["normals"], d_flux, n])
            dev.launch(mod, "cfd_time_step", grid, (BLOCK,), [d["vars"], d_flux, d["area"], float(p["dt"]), n])
        return {"vars": dev.from_device(d["vars"], np.float32, 4 * n).reshape(4, n)}

    def reference(self, inp, out=None):
        v = inp["vars"].astype(np.float64)
        for _ in range(self.params["steps"]):
            fl = _flux(v, inp["nbr"], inp["normals"].astype(np.float64))
            v = v - (self.params["dt"] / inp["area"].astype(np.float64)) * fl
        return {"vars": v}

    def check(self, out, ref):
        assert_close("cfd conserved variables", out["vars"], ref["vars"], rtol=1e-4, atol=1e-5)
