"""Stencil3D: 7-point Jacobi relaxation of a 3D grid, one launch per iteration."""
import numpy as np

from .base import Workload, assert_close, grid_for, register
from .params import Param

BX, BY = 32, 4
C0, C1 = 0.4, 0.1


@register
class Stencil3D(Workload):
    name = "stencil3d"
    ptx = "stencil3d.ptx"
    description = "7-point 3D Jacobi stencil, a thread per (x, y) column marching in z, global memory only"
    kind = "regular"
    param_specs = {
        "nx": Param(int, "grid points along x (the coalesced dimension)", min=3),
        "ny": Param(int, "grid points along y", min=3),
        "nz": Param(int, "grid points along z (each thread's loop)", min=3),
        "iters": Param(int, "Jacobi iterations (one launch each)", min=1),
    }
    sizes = {
        "small": {"nx": 32, "ny": 16, "nz": 8, "iters": 2},
        "medium": {"nx": 256, "ny": 128, "nz": 32, "iters": 3},
        "paper": {"nx": 512, "ny": 256, "nz": 64, "iters": 4},
    }

    def make_inputs(self, rng):
        p = self.params
        return {"u": rng.random((p["nz"], p["ny"], p["nx"])).astype(np.float32)}

    def run(self, dev, mod, inp):
        p = self.params
        nx, ny, nz = p["nx"], p["ny"], p["nz"]
        bufs = [dev.to_device(inp["u"]), dev.zeros(nx * ny * nz, np.float32)]
        for _ in range(p["iters"]):
            dev.launch(mod, "stencil3d_step", (grid_for(nx, BX), grid_for(ny, BY)), (BX, BY),
                       [bufs[0], bufs[1], nx, ny, nz, C0, C1])
            bufs.reverse()
        return {"u": dev.from_device(bufs[0], np.float32, nx * ny * nz).reshape(nz, ny, nx)}

    def reference(self, inp, out=None):
        u = inp["u"].astype(np.float64)
        for _ in range(self.params["iters"]):
            v = u.copy()
            v[1:-1, 1:-1, 1:-1] = C0 * u[1:-1, 1:-1, 1:-1] + C1 * (
                u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
                + u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1])
            u = v
        return {"u": u}

    def check(self, out, ref):
        assert_close("stencil3d grid", out["u"], ref["u"], rtol=1e-5, atol=1e-6)
