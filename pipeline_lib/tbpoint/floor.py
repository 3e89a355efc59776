"""The least sample size TBPoint's structure allows on a workload (ours).

TBPoint simulates at least one launch of every inter-launch cluster (3.3)
and, inside a simulated launch, every block outside its homogeneous regions
and the warming of each region (3.4.4): the seed's rule needs two units, a
unit being one block's lifetime, during which about one system occupancy of
blocks is dispatched.  So no setting of the warming or launch rules can
sample less than

    sum over clusters of the cheapest launch's (blocks outside regions +
    the first 2 x system occupancy blocks of each region)

over the workload's warp instructions.  Launches that the per-kernel model
predicts (:mod:`.launch_model`) are not in a cluster's sum; each group of
them adds its pilot instead (its first members, which every group
simulates).  The validation reports this floor
beside the sample size, so that a target below it is seen to ask for
something the method cannot do on that input (launches a few waves long,
clusters of one launch), not for better rules.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..sim.hardware import occupancy
from .launch_model import PILOT

#: units of warming per region in the floor: the seed's two consecutive units
WARMING_UNITS = 2


def launch_floor(block_instrs: np.ndarray, regions: pd.DataFrame, epoch_size: int,
                 warming_units: int = WARMING_UNITS) -> int:
    """Warp instructions of one launch that must be simulated if it is:
    ``block_instrs`` per block in id order, ``regions`` its rows of the
    region table (start_block, end_block inclusive), ``epoch_size`` its
    system occupancy."""
    skippable = np.zeros(len(block_instrs), bool)
    for start, end in zip(regions["start_block"], regions["end_block"]):
        skippable[int(start) + warming_units * epoch_size:int(end) + 1] = True
    return int(np.asarray(block_instrs, np.int64)[~skippable].sum())


def launch_costs(launches: pd.DataFrame, blocks_by_launch: dict, regions: pd.DataFrame | None, hw: dict,
                 warming_units: int = WARMING_UNITS) -> dict[int, int]:
    """launch -> :func:`launch_floor` of each launch of the trace (all of
    it where its blocks are unknown); arguments as :func:`sample_floor`."""
    reg = dict(iter(regions.groupby("launch"))) if regions is not None and len(regions) else {}
    empty = pd.DataFrame({"start_block": [], "end_block": []})
    cost = {}
    for r in launches.sort_values("launch").to_dict("records"):
        lid = int(r["launch"])
        b = blocks_by_launch.get(lid)
        if b is None or not len(b):
            cost[lid] = int(r["warp_instrs"])
            continue
        occ = occupancy(hw, int(r["threads_per_block"]), int(r["regs_per_thread"]), int(r["shared_bytes"]))
        cost[lid] = launch_floor(b["warp_instrs"].to_numpy(), reg.get(lid, empty),
                                 occ["system_occupancy"], warming_units)
    return cost


def cluster_floors(cost: dict[int, int], inter: pd.DataFrame, modelled: dict | None = None
                   ) -> tuple[dict[int, int], list[int]]:
    """What the floor simulates of a clustered trace: cluster -> the cost of
    its cheapest launch outside the modelled groups, and the launches of the
    groups' pilots (each group's first :data:`.launch_model.PILOT` members)."""
    modelled = modelled or {}
    cheapest = {}
    for lid, c in zip(inter["launch"], inter["cluster"]):
        if int(lid) not in modelled:
            cheapest[int(c)] = min(cheapest.get(int(c), np.inf), cost[int(lid)])
    pilots = sorted({lid for m in modelled.values() for lid in m[:PILOT]})
    return cheapest, pilots


def sample_floor(launches: pd.DataFrame, blocks_by_launch: dict, inter: pd.DataFrame | None,
                 regions: pd.DataFrame | None, hw: dict, warming_units: int = WARMING_UNITS,
                 modelled: dict | None = None) -> float:
    """The module's floor as a share of the workload's warp instructions.

    Parameters
    ----------
    launches : the trace's launches table
    blocks_by_launch : launch -> its blocks (block, warp_instrs) in block
        order, as :meth:`TraceDir.blocks_by_launch` gives them
    inter : the inter-launch table (launch, cluster), or None (every launch
        simulated)
    regions : the region table (launch, start_block, end_block), or None (no
        intra-launch sampling)
    hw : the hardware configuration (its occupancy fields)
    modelled : launch -> its group's members in launch order, for the
        launches the per-kernel model predicts
        (:meth:`.policy.TBPointPolicy.modelled_groups`)
    """
    total = float(launches["warp_instrs"].sum())
    if not total:
        return 0.0
    cost = launch_costs(launches, blocks_by_launch, regions, hw, warming_units)
    if inter is None:
        return sum(cost.values()) / total
    cheapest, pilots = cluster_floors(cost, inter, modelled)
    return float(sum(cheapest.values()) + sum(cost[lid] for lid in pilots)) / total
