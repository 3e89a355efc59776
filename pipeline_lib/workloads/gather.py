"""Gather: chains of dependent loads through a random permutation (no locality)."""
import numpy as np

from .base import Workload, assert_equal, grid_for, register
from .params import Param

BLOCK = 256
HASH = 2654435761


@register
class Gather(Workload):
    name = "gather"
    ptx = "gather.ptx"
    description = "dependent random gathers through a permutation table: latency- or DRAM-bound, no locality"
    kind = "regular"
    param_specs = {
        "table": Param(int, "entries of the permutation table (4 bytes each)", min=1),
        "starts": Param(int, "chains, one per thread", min=1),
        "hops": Param(int, "dependent loads per chain", min=1),
    }
    sizes = {
        "small": {"table": 65_536, "starts": 4096, "hops": 4},
        "medium": {"table": 4_194_304, "starts": 262_144, "hops": 16},
        "paper": {"table": 16_777_216, "starts": 1_048_576, "hops": 16},
    }

    def make_inputs(self, rng):
        return {"perm": rng.permutation(self.params["table"]).astype(np.int32)}

    def run(self, dev, mod, inp):
        p = self.params
        d_perm, d_out = dev.to_device(inp["perm"]), dev.zeros(p["starts"], np.int32)
        dev.launch(mod, "gather_hops", (grid_for(p["starts"], BLOCK),), (BLOCK,),
                   [d_perm, d_out, p["table"], p["starts"], p["hops"]])
        return {"end": dev.from_device(d_out, np.int32, p["starts"])}

    def reference(self, inp, out=None):
        p = self.params
        v = (np.arange(p["starts"], dtype=np.int64) * HASH) % p["table"]
        for _ in range(p["hops"]):
            v = inp["perm"][v].astype(np.int64)
        return {"end": v.astype(np.int32)}

    def check(self, out, ref):
        assert_equal("gather chain ends", out["end"], ref["end"])
