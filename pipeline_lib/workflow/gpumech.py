"""What GPUMech's rules (rules/gpumech.smk) ask of the configuration: the
sweep points around each validated configuration (seed 4.6.5), the base
whose representative warps a point reuses, whether it may reuse the base's
collector counts, and the simulation that validates each scheduler."""
from __future__ import annotations

from ..gpumech.analysis import collection_key
from ..sim.hardware import SCHEDULERS, variant_name
from .paths import Paths


class GPUMechLayout:
    """GPUMech's sweep points and reuse decisions.

    Parameters
    ----------
    gm : the configuration's ``gpumech`` section
    hardware : function from a configuration or variant name to the loaded
        configuration (the workflow's cached loader)
    paths : the results tree
    """

    #: sweep key -> the configuration field it varies
    FIELDS = {"w": ("sm_limits", "warps"), "mshr": ("l1", "mshrs"), "mc": ("dram", "clock_mhz")}

    def __init__(self, gm: dict, hardware, paths: Paths):
        self.gm, self.hw, self.paths = gm, hardware, paths
        # sweep point -> the validated configuration whose representative warps it reuses (4.6.5)
        self.point_base = {p: hw for hw in sorted(gm["hardware"]) for _, _, p in self.sweep_points(hw) if p != hw}

    def point(self, hw: str, key: str, value: int) -> str:
        """The configuration of one sweep point: ``hw`` itself where it
        already has that value, else its variant (so no configuration is
        simulated twice)."""
        section, field = self.FIELDS[key]
        return hw if self.hw(hw)[section][field] == value else variant_name(hw, **{key: value})

    def sweep_points(self, hw: str) -> list[tuple[str, int, str]]:
        """(key, value, configuration) of every sweep point around ``hw``."""
        return [(key, int(v), self.point(hw, key, int(v))) for key, values in sorted(self.gm["sweeps"].items())
                for v in values]

    def reused_collection(self, wl: str, hw: str) -> list[str]:
        """The base's collector counts, where the sweep point ``hw`` differs
        from its base only in timing fields (analysis.collection_key) and
        gpumech.reuse_collection is on: then the point's analysis runs no
        collector.  [] otherwise."""
        base = self.point_base.get(hw)
        if base is None or not self.gm["reuse_collection"] or \
                collection_key(self.hw(hw)) != collection_key(self.hw(base)):
            return []
        return [self.paths.gpumech(wl, base, "collected.parquet")]

    def validation_files(self, hw: str, workloads) -> dict:
        """Per workload, by name, the files rule gpumech_validate reads for
        configuration ``hw``: GPUMech's outputs, the simulations under each
        scheduler and their stall breakdowns, the host times."""
        sims, P = self.policy_sims(hw), self.paths
        return {wl: {"predictions": P.gpumech(wl, hw, "predictions.parquet"),
                     "launches": P.gpumech(wl, hw, "launches.parquet"),
                     "host": P.gpumech(wl, hw, "host_time.json"),
                     "stacks": P.gpumech(wl, hw, "stacks.parquet"),
                     **{f"sim_{p}": P.sim("launches.parquet", wl, s) for p, s in sims.items()},
                     **{f"stalls_{p}": P.gpumech(wl, s, "sim_stalls.parquet") for p, s in sims.items()},
                     "sim_host": P.sim("host_time.json", wl, hw)} for wl in workloads}

    def policy_sims(self, hw: str) -> dict:
        """Simulation name per scheduler: the configuration itself for its
        own scheduler, its -rr/-gto variant for the other."""
        own = self.hw(hw)["scheduler"]
        return {p: hw if p == own else variant_name(hw, sched=p) for p in SCHEDULERS}
