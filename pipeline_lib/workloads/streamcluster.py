"""StreamCluster-like pgain: one launch per candidate centre; the host opens
centres whose gain beats the facility cost (Rodinia streamcluster's loop)."""
import numpy as np

from .base import CheckError, Workload, assert_close, grid_for, register
from .params import Param

BLOCK = 128


@register
class StreamCluster(Workload):
    name = "streamcluster"
    ptx = "streamcluster.ptx"
    description = "per-candidate gain kernel launched many times, atomics into per-centre gains"
    kind = "irregular"
    param_specs = {
        "points": Param(int, "points", min=1),
        "dim": Param(int, "dimensions per point", min=1),
        "candidates": Param(int, "candidate facilities (one pgain launch each)", min=1),
        "facility_cost": Param(float, "cost of opening a facility", min=0.0),
    }
    sizes = {
        "small": {"points": 2048, "dim": 8, "candidates": 6, "facility_cost": 50.0},
        "medium": {"points": 65_536, "dim": 8, "candidates": 8, "facility_cost": 200.0},
        "paper": {"points": 65_536, "dim": 16, "candidates": 21, "facility_cost": 800.0},
    }

    def make_inputs(self, rng):
        p = self.params
        centres = rng.uniform(-5, 5, (12, p["dim"]))
        lab = rng.integers(0, 12, p["points"])
        pts = (centres[lab] + rng.normal(0, 1, (p["points"], p["dim"]))).astype(np.float32)
        return {"pts": pts, "weight": rng.uniform(0.5, 1.5, p["points"]).astype(np.float32),
                "candidates": rng.choice(p["points"], p["candidates"], replace=False).astype(np.int32)}

    def run(self, dev, mod, inp):
        p = self.params
        n, dim = p["points"], p["dim"]
        pts, w = inp["pts"], inp["weight"]
        # start with point 0 as the only open centre
        assign = np.zeros(n, np.int32)
        cost = (((pts - pts[0]) ** 2).sum(1) * w).astype(np.float32)
        d_pts, d_w = dev.to_device(pts), dev.to_device(w)
        d_cost, d_assign = dev.to_device(cost), dev.to_device(assign)
        d_lower, d_switch = dev.zeros(n, np.float32), dev.zeros(n, np.int32)
        launches = []
        for cand in inp["candidates"]:
            dev.copy_to(d_cost, cost)
            dev.copy_to(d_assign, assign)
            dev.copy_to(d_lower, np.zeros(n, np.float32))
            dev.launch(mod, "sc_pgain", (grid_for(n, BLOCK),), (BLOCK,),
                       [d_pts, d_w, d_cost, d_assign, int(cand), n, dim, d_lower, d_switch])
            lower = dev.from_device(d_lower, np.float32, n)
            switch = dev.from_device(d_switch, np.int32, n).astype(bool)
            launches.append((cost.copy(), assign.copy(), int(cand), lower, switch))
            gain = float(lower[cand])
            if gain > p["facility_cost"]:
                x_cost = ((pts - pts[cand]) ** 2).sum(1) * w
                assign = np.where(switch, cand, assign).astype(np.int32)
                cost = np.where(switch, x_cost, cost).astype(np.float32)
        return {"launches": launches}

    def reference(self, inp, out=None):
        pts = inp["pts"].astype(np.float64)
        w = inp["weight"].astype(np.float64)
        exp = []
        for cost, assign, cand, _, _ in out["launches"]:
            x_cost = ((pts - pts[cand]) ** 2).sum(1) * w
            switch = x_cost < cost
            lower = np.zeros(len(cost))
            np.add.at(lower, np.where(switch, cand, assign), cost - x_cost)
            exp.append((switch, lower, x_cost, cost))
        return {"launches": exp}

    def check(self, out, ref):
        for i, ((_, _, _, lower, switch), (sw_ref, low_ref, x_cost, cost)) in enumerate(
                zip(out["launches"], ref["launches"])):
            # a point whose two costs tie to float32 precision may go either way
            clear = np.abs(x_cost - cost) > 1e-4 * np.maximum(1.0, np.abs(cost))
            if (switch != sw_ref)[clear].any():
                raise CheckError(f"streamcluster launch {i}: switch decisions differ from the reference")
            scale = max(1.0, float(np.abs(low_ref).max()))
            assert_close(f"streamcluster launch {i} gains", lower, low_ref, rtol=1e-3, atol=1e-4 * scale)
