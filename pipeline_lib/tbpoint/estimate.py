"""A whole workload's simulation tables estimated from a TBPoint sampled run.

A design-space sweep needs, at every point, what a full simulation writes
per launch: cycles, instruction and cache counts (``launches.parquet``)
and the activity counts the power model charges (``activity.parquet``).
TBPoint (seed 3.5, Table 4) predicts each launch's cycles from the
simulated part; this module carries the same prediction over to the other
columns (ours: the seed predicts cycles and IPC only):

* counts of work (instructions, cache and DRAM accesses, energy events)
  scale with instructions: a launch takes its sources' simulated counts
  (itself, or its cluster's simulated launches) times its warp
  instructions over theirs, as :func:`~pipeline_lib.tbpoint.run.run_sampled_rows`
  already does for the cache traffic;
* counts of time (``mshr_stall_cycles``, ``sm_active_cycles``) scale with
  cycles: the sources' simulated counts times the launch's predicted cycles
  over their simulated cycles;
* the launch's own fields (blocks, occupancy) come from the trace and the
  hardware, and the rates are recomputed from the estimated counts.

The tables say that they are estimates in their metadata
(``stage: tbpoint_estimate``) and in the column ``simulated_share``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..sim.hardware import occupancy

#: launches-table columns that count work (scale with warp instructions)
WORK = ["thread_instrs", "l1_accesses", "l1_misses", "l1_mshr_merges", "l2_accesses", "l2_misses",
        "dram_reads", "dram_writes"]
#: ... that count cycles (scale with the predicted cycles)
TIME = ["mshr_stall_cycles"]
#: activity-table columns that count cycles; every other one counts events
ACTIVITY_TIME = ["sm_active_cycles"]


def estimated_tables(trace_launches: pd.DataFrame, sim_launches: pd.DataFrame, activity: pd.DataFrame,
                     sources: dict, predicted: dict, hw: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The launches and activity tables of a full simulation, estimated.

    Parameters
    ----------
    trace_launches : the trace's launches table (every launch).
    sim_launches, activity : the sampled run's tables (simulated launches only;
        their counts cover the simulated blocks).
    sources : launch -> the simulated launches whose figures predict it
        (``TBPointPolicy.sources_of``).
    predicted : launch -> predicted cycles (Table 4).
    hw : the hardware configuration (occupancy of launches not simulated).
    """
    sim = sim_launches.set_index("launch")
    act = activity.set_index("launch").drop(columns=["cycles"])
    pos = {int(lid): i for i, lid in enumerate(sim.index)}
    T = trace_launches.sort_values("launch", ignore_index=True)
    lids = T["launch"].to_numpy(np.int64)
    src = [np.array([pos[int(x)] for x in sources[int(lid)]]) for lid in lids]

    def over_sources(values):
        """Per launch, the sum of ``values`` over its sources (integer counts
        are summed as integers: the same bytes whatever the machine)."""
        v = np.asarray(values)
        return np.array([v[i].sum() for i in src], dtype=v.dtype)

    n = T["warp_instrs"].to_numpy(np.int64)
    cycles = np.rint([predicted[int(x)] for x in lids]).astype(np.int64)
    f = n / np.maximum(1, over_sources(sim["warp_instrs"].to_numpy(np.int64)))
    g = cycles / np.maximum(1, over_sources(sim["cycles"].to_numpy(np.int64)))

    def scaled(col, k):
        return np.rint(over_sources(col.to_numpy(np.int64)) * k).astype(np.int64)

    own = sim[["sm_occupancy", "system_occupancy", "occupancy_limiter"]].to_numpy(object)
    sim_instrs = sim["warp_instrs"].to_numpy(np.int64)

    def occ_of(lid, r):   # a simulated launch's own; else the hardware's for the launch's resources
        if int(lid) in pos:
            return list(own[pos[int(lid)]])
        o = occupancy(hw, int(r["threads_per_block"]), int(r["regs_per_thread"]), int(r["shared_bytes"]))
        return [o["sm_occupancy"], o["system_occupancy"], o["limited_by"]]

    occ = [occ_of(x, r) for x, r in zip(lids, T.to_dict("records"))]
    simulated = np.array([sim_instrs[pos[int(x)]] if int(x) in pos else 0 for x in lids])
    end = np.cumsum(cycles)
    L = pd.DataFrame({"launch": lids, "kernel": T["kernel"].to_numpy(), "start_cycle": end - cycles,
                      "end_cycle": end, "cycles": cycles, "warp_instrs": n,
                      "ipc": np.where(cycles > 0, n / np.maximum(cycles, 1), 0.0),
                      "blocks": T["n_blocks"].to_numpy(np.int64), "skipped_blocks": 0, "skipped_warp_instrs": 0,
                      "skipped_thread_instrs": 0, "sm_occupancy": [o[0] for o in occ],
                      "system_occupancy": [o[1] for o in occ], "occupancy_limiter": [o[2] for o in occ],
                      "simulated_share": np.where(n > 0, simulated / np.maximum(n, 1), 0.0)})
    for c in WORK:
        L[c] = scaled(sim[c], f)
    for c in TIME:
        L[c] = scaled(sim[c], g)
    L["l1_miss_rate"] = np.where(L["l1_accesses"] > 0, L["l1_misses"] / L["l1_accesses"].clip(lower=1), 0.0)
    L["l2_miss_rate"] = np.where(L["l2_accesses"] > 0, L["l2_misses"] / L["l2_accesses"].clip(lower=1), 0.0)
    line, ghz = hw["l2"]["line_bytes"], hw["core_clock_mhz"] / 1e3
    L["dram_bandwidth_gbs"] = np.where(cycles > 0, (L["dram_reads"] + L["dram_writes"]) * line * ghz
                                       / np.maximum(cycles, 1), 0.0)
    # loads' mean latency, weighted by the sources' load accesses
    w = over_sources(sim["l1_accesses"].to_numpy(np.int64))
    lat = over_sources((sim["avg_load_latency"] * sim["l1_accesses"]).to_numpy(float))
    L["avg_load_latency"] = np.where(w > 0, lat / np.maximum(w, 1), 0.0)
    A = pd.DataFrame({"launch": lids, "cycles": cycles})
    for c in act.columns:
        A[c] = scaled(act.loc[sim.index, c], g if c in ACTIVITY_TIME else f)
    return L, A
