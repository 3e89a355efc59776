"""TBPoint inside the simulator: inter-launch selection and homogeneous
region sampling (seed 000, 3.4.4, Fig. 9 and Table 4), as a
:class:`~pipeline_lib.sim.sampling.SamplingPolicy`.
"""
from __future__ import annotations

from bisect import bisect_right

import numpy as np
import pandas as pd

from ..sim.sampling import SamplingPolicy
from .clustering import closest_to_centre
from .inter_launch import FEATURES
from .launch_model import SMALL_LAUNCH_RULES, GroupSampler, MODEL_FEATURES, launch_groups
from .warming import LAUNCH_RULES, enough_launches, phase_spread, region_ipc, warming_function

NORMAL, WARMING = 0, 1

#: what ends a sampling unit (:class:`TBPointPolicy` ``unit_rule``)
UNIT_RULES = ("turnover", "block")


class TBPointPolicy(SamplingPolicy):
    """Simulate only each inter-launch cluster's representative (or, under
    the ``confidence`` launch rule, as many of its launches as the spread of
    their CPIs needs) and, inside a simulated launch, sample its homogeneous
    regions.

    A sampling unit is the lifetime of a specified block (``unit_rule``):
    the launch's first dispatched block, then, when it retires, the next
    block dispatched.  At the start of a unit, if every running block (the
    specified one included; stragglers excepted under ``turnover``) lies in
    one homogeneous region not yet sampled, the region is entered and
    warms: its units are simulated until the warming rule stops
    (:mod:`.warming`: the seed's two consecutive units within
    ``ipc_tolerance``, or our confidence interval after the start-up
    transient within ``interval_tolerance``, under ``phases`` with the
    blocks' schedule settled too); then the region's blocks not
    yet dispatched are skipped and predicted at the IPC the rule gives.  The region is left when a block of
    another region is dispatched.

    Parameters
    ----------
    inter : pandas.DataFrame or None
        The inter-launch table (:meth:`InterLaunchSampler.table`); None
        simulates every launch.
    regions : pandas.DataFrame or None
        The region table (Table 3, with a launch column); None switches
        intra-launch sampling off.
    ipc_tolerance : float
        The seed's warming rule's tolerance (10%): the relative IPC
        difference of two consecutive units.
    interval_tolerance : float
        Our rules' tolerance (the ``confidence`` and ``phases`` warming
        rules and the ``confidence`` launch rule):
        the largest relative half-width of the 95% confidence interval of
        the mean.  Default 3%, from the accuracy asked of the method (no
        workload above 3% error, docs/tbpoint.md): a region or cluster
        accepted at a wider interval may carry a larger error than that, as
        `reduction`'s paper input did at the seed's 10% (three units of the
        start-up transient agreed within a 9.6% interval, 8% below the
        steady IPC).
    functional_warming : bool
        Replay skipped blocks' and launches' memory lines through the caches
        (ours; the seed leaves the caches as they were, 3.5.3).
    warming_rule : str
        ``consecutive`` (the seed), ``confidence`` or ``phases`` (ours),
        :mod:`.warming`.
    unit_rule : str
        What ends a sampling unit.  ``block`` (the seed, 3.4.4): the
        specified block's retirement.  ``turnover`` (ours, the default): that
        retirement or, if the block is still running then, the moment as
        many blocks have retired since its dispatch as the system holds (its
        system occupancy); the unit's IPC is then the GPU's over that
        window, and the next unit starts with the next block dispatched.
        Under ``turnover`` a running block that has outlived that many
        retirements (a straggler) does not keep a region from being
        entered.  Deviation, because a block's lifetime measures the
        region's throughput only when blocks are alike: in a homogeneous
        region every block running at the specified block's dispatch retires
        before it, so at most system occupancy - 1 others retire in its
        lifetime; a block that outlives a full turnover of the machine's
        block slots is an outlier.  On graph inputs with power-law degrees
        the first block of a launch can hold a hub vertex and run for the
        whole launch (`sssp-rmat`'s paper input: a launch of 1,481 blocks
        was one unit, and its block 0, running throughout, kept its
        12-epoch region from ever being entered).
    launch_rule : str
        ``representative`` (the seed, 3.3): one launch per cluster;
        ``confidence`` (ours, :func:`.warming.enough_launches`): from the
        representative on, in launch order, the cluster's launches are
        simulated until the confidence interval of their mean CPI is within
        ``interval_tolerance``; every launch of the cluster not simulated
        (before the representative or after the stop) is predicted at the ratio of
        the simulated launches' predicted cycles to their instructions.
        Launches before the representative are not candidates because the
        decision to simulate a launch is taken when the simulator reaches
        it, and the representative (the middle of identical launches) is
        the first the rule sees.
    small_launches : str
        ``cluster`` (the seed): every launch belongs to its inter-launch
        cluster.  ``model`` (ours, :mod:`.launch_model`): a kernel's
        launches with no homogeneous region and the same block count form a
        group when there are more than its pilot of them; the group's
        members are sampled and predicted by a regression on their
        instructions and memory requests, the inter-launch clusters keep
        the other launches.  Needs ``launches``.
    launches : pandas.DataFrame or None
        The trace's launches table (the model's features).

    After the run, :attr:`launch_log` has one row per simulated launch with
    the skipped instructions per region and the predicted region IPCs.
    """

    def __init__(self, inter: pd.DataFrame | None = None, regions: pd.DataFrame | None = None,
                 ipc_tolerance: float = 0.10, functional_warming: bool = False,
                 warming_rule: str = "consecutive", launch_rule: str = "representative",
                 unit_rule: str = "block", interval_tolerance: float = 0.03, small_launches: str = "cluster",
                 launches: pd.DataFrame | None = None):
        if small_launches not in SMALL_LAUNCH_RULES:
            raise ValueError(f"tbpoint.small_launches: {small_launches!r} is not one of "
                             f"{', '.join(SMALL_LAUNCH_RULES)}")
        if unit_rule not in UNIT_RULES:
            raise ValueError(f"tbpoint.unit_rule: {unit_rule!r} is not one of {', '.join(UNIT_RULES)}")
        self.unit_rule = unit_rule
        if launch_rule not in LAUNCH_RULES:
            raise ValueError(f"tbpoint.launch_rule: {launch_rule!r} is not one of {', '.join(LAUNCH_RULES)}")
        self.launch_rule = launch_rule
        self.ipc_tolerance = ipc_tolerance
        self.interval_tolerance = interval_tolerance
        self.warming_rule = warming_rule
        warming_function(warming_rule)      # an unknown rule fails here, before simulating
        self._warming_tolerance = ipc_tolerance if warming_rule == "consecutive" else interval_tolerance
        self.functional_warming = functional_warming
        self.intra = regions is not None
        self.watch_blocks = self.intra
        self._rep_of = ({int(a): int(b) for a, b in zip(inter["launch"], inter["representative"])}
                        if inter is not None else None)
        self._cluster_of = ({int(a): int(b) for a, b in zip(inter["launch"], inter["cluster"])}
                            if inter is not None else {})
        self._population = ({int(k): len(g) for k, g in inter.groupby("cluster")} if inter is not None else {})
        self._simulated: dict[int, list[int]] = {}     # cluster -> its simulated launches, in order
        self._enough: set[int] = set()                 # clusters whose sample is complete
        self._regions = ({int(k): g.sort_values("region") for k, g in regions.groupby("launch")}
                         if regions is not None else {})
        self._rows: dict[int, dict] = {}
        self._pred: dict[int, float] = {}
        self.launch_log: list[dict] = []
        self._group: dict[int, GroupSampler] = {}      # modelled launch -> its group's sampler
        if small_launches == "model" and inter is not None:
            if launches is None:
                raise ValueError("tbpoint.small_launches: model needs the trace's launches table")
            L = launches.sort_values("launch")
            key_of = launch_groups(L, regions)
            lid = L["launch"].astype(int)
            G = L[lid.isin(key_of)]
            for _, g in G.groupby(lid[G.index].map(key_of), sort=False):
                sampler = GroupSampler(g["launch"], g[MODEL_FEATURES].to_numpy(float), interval_tolerance)
                self._group.update({int(x): sampler for x in g["launch"]})
            self._clusters_without(inter, set(self._group))

    def _clusters_without(self, inter: pd.DataFrame, modelled: set) -> None:
        """Take the modelled launches out of their inter-launch clusters.  A
        cluster can mix them with others (eq. 6 does not see block counts or
        regions); where its representative is modelled, the closest of the
        others to their centre (ties to the middle in launch order, as
        ``tbpoint.representative: middle``) represents it, so that every
        launch left in a cluster has one simulated."""
        if not modelled:
            return
        left = inter[~inter["launch"].astype(int).isin(modelled)].sort_values("launch")
        self._population = {int(k): len(g) for k, g in left.groupby("cluster")}
        cols = [c for c in FEATURES if c in left.columns]
        for c, g in left.groupby("cluster"):
            lids = g["launch"].astype(int).to_numpy()
            if int(g["representative"].iloc[0]) in modelled:
                X = g[cols].to_numpy(float) if cols else np.zeros((len(g), 1))
                rep = int(lids[closest_to_centre(X, np.zeros(len(g), np.int64), "middle")[0]])
                self._rep_of.update({int(x): rep for x in lids})

    # -- inter-launch ------------------------------------------------------------
    def modelled_groups(self) -> dict[int, list[int]]:
        """Modelled launch -> its group's members in launch order (empty
        unless ``small_launches`` is ``model``)."""
        return {lid: g.members for lid, g in self._group.items()}

    def representative_of(self, launch: int) -> int:
        """The cluster's representative (the first launch of it simulated;
        of a modelled launch, its group's first)."""
        if int(launch) in self._group:
            return self._group[int(launch)].members[0]
        return launch if self._rep_of is None else self._rep_of[int(launch)]

    def sources_of(self, launch: int) -> list[int]:
        """The simulated launches whose figures predict ``launch``: itself
        if it was simulated, else its cluster's simulated launches."""
        lid = int(launch)
        if self._rep_of is None or lid in self._rows:
            return [lid]
        if lid in self._group:
            return self._group[lid].sources()
        return self._simulated[self._cluster_of[lid]]

    def select_launch(self, launch: dict) -> bool:
        if self._rep_of is None:
            return True
        lid = int(launch["launch"])
        if lid in self._group:
            return self._group[lid].select(lid)
        rep = self._rep_of[lid]
        if lid == rep:
            return True
        if self.launch_rule == "representative" or lid < rep:
            return False
        return self._cluster_of[lid] not in self._enough

    # -- intra-launch ------------------------------------------------------------
    def launch_begin(self, control) -> None:
        n = control.n_blocks
        self._region_of = np.full(n, -1, np.int64)
        self._region_end = {}
        for r in self._regions.get(int(control.launch["launch"]), pd.DataFrame()).to_dict("records"):
            self._region_of[r["start_block"]:r["end_block"] + 1] = r["region"]
            self._region_end[int(r["region"])] = int(r["end_block"])
        self._warp_instrs = control.blocks["warp_instrs"].to_numpy(np.int64)
        self._state, self._region, self._unit_ipcs, self._unit_spreads = NORMAL, -1, [], []
        self._sampled: set[int] = set()
        self._region_ipc: dict[int, float] = {}
        self._skipped: dict[int, int] = {}
        self._units = 0
        self._retired: list[int] = []      # cycle of each retirement in this launch, in order
        self._turnover = control.system_occupancy if self.unit_rule == "turnover" else 0
        self._spec = 0 if n > 0 else -1
        if self.intra and n > 0:     # the first wave: blocks 0 .. system occupancy - 1
            self._maybe_enter(control, np.arange(min(n, control.system_occupancy)))

    def blocks_retired(self, control, blocks) -> None:
        if self._turnover:
            self._retired.extend([control.cycle] * len(blocks))
        if self._spec < 0:
            return
        if self._spec in blocks:
            rec = control.block_record(self._spec)
            cycles = rec["retire"] - rec["dispatch"]
            ipc = (rec["issued_at_retire"] - rec["issued_at_dispatch"]) / cycles if cycles > 0 else 0.0
        elif self._turnover and self._spec < control.next_block and self._outlived(control, self._spec):
            rec = control.block_record(self._spec)
            cycles = control.cycle - rec["dispatch"]
            ipc = (control.issued - rec["issued_at_dispatch"]) / cycles if cycles > 0 else 0.0
        else:
            return
        self._units += 1
        nxt = control.next_block
        if self._state == WARMING:
            r = self._region
            end = self._region_end[r]
            self._unit_ipcs.append(ipc)
            remaining = None
            if self.warming_rule == "phases":     # the running blocks' phases, over the unit's length
                self._unit_spreads.append(phase_spread(control.dispatch_cycles(control.running_blocks()),
                                                       control.cycle, cycles))
                remaining = max(end + 1 - nxt, 0) / max(control.system_occupancy, 1)
            estimate = region_ipc(self.warming_rule, self._unit_ipcs, self._warming_tolerance,
                                  self._unit_spreads, remaining)
            if estimate is not None:
                self._region_ipc[r] = estimate
                if nxt <= end:
                    control.skip(np.arange(nxt, end + 1))
                    self._skipped[r] = int(self._warp_instrs[nxt:end + 1].sum())
                    nxt = end + 1
                self._sampled.add(r)
                self._state = NORMAL
            elif nxt > end:        # the region's blocks ran out while warming
                self._sampled.add(r)
                self._state = NORMAL
        # the next unit: the next block the dispatcher will hand out
        self._spec = nxt if nxt < control.n_blocks else -1
        if self._spec >= 0 and self._state == NORMAL:
            self._maybe_enter(control, control.running_blocks())

    def _outlived(self, control, block: int) -> bool:
        """Whether ``block`` has seen a full turnover: as many retirements
        after its dispatch cycle as the system holds blocks."""
        n = len(self._retired) - bisect_right(self._retired, control.block_record(block)["dispatch"])
        return n >= self._turnover

    def _maybe_enter(self, control, running) -> None:
        if self._turnover:
            running = [b for b in running if not self._outlived(control, int(b))]
        ids = np.append(np.asarray(running, np.int64), self._spec)
        regs = self._region_of[ids]
        r = int(regs[0])
        if r >= 0 and (regs == r).all() and r not in self._sampled:
            self._state, self._region, self._unit_ipcs, self._unit_spreads = WARMING, r, [], []

    def launch_end(self, row: dict) -> None:
        lid = int(row["launch"])
        self._rows[lid] = row
        # Table 4, intra-launch: simulated cycles + skipped instructions at their region's IPC
        cycles = float(row["cycles"])
        for r, n in self._skipped.items():
            cycles += n / self._region_ipc[r]
        self._pred[lid] = cycles
        if lid in self._group:
            self._group[lid].simulated(lid, cycles)
        elif self._rep_of is not None:
            c = self._cluster_of[lid]
            members = self._simulated.setdefault(c, [])
            members.append(lid)
            cpis = [self._pred[m] / self._instrs(m) for m in members]
            if self.launch_rule == "representative" or enough_launches(cpis, self._population[c],
                                                                        self.interval_tolerance):
                self._enough.add(c)
        self.launch_log.append({"launch": lid, "units": self._units,
                                "regions_sampled": len(self._region_ipc),
                                "skipped_intra": int(sum(self._skipped.values())),
                                "region_ipc": {int(k): float(v) for k, v in self._region_ipc.items()}})
        if sum(self._skipped.values()) != int(row["skipped_warp_instrs"]):
            raise RuntimeError(f"launch {lid}: the simulator skipped {row['skipped_warp_instrs']} warp instructions, "
                               f"the policy accounted for {sum(self._skipped.values())}")

    def predict(self, launch: dict, row: dict | None) -> float:
        lid = int(launch["launch"])
        if row is not None:
            return self._pred[lid]
        # Table 4, inter-launch: the launch runs at its representative's CPI
        # (the seed), or at the ratio estimate of its cluster's simulated
        # launches (ours; the same with one), or by its group's model (ours)
        if lid in self._group:
            return self._group[lid].predicted(lid)
        src = self.sources_of(lid)
        return float(launch["warp_instrs"]) * sum(self._pred[m] for m in src) / sum(self._instrs(m) for m in src)

    def _instrs(self, lid: int) -> int:
        row = self._rows[lid]
        return int(row["warp_instrs"] + row["skipped_warp_instrs"])
