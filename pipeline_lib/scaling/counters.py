"""The classifier's features (seed 004, Table II) from our traces and
detailed-simulation statistics, one row per kernel instance.

A *kernel instance* is one kernel of one workload (kernel x input); its
launches are summed.  The instruction mix is hardware-independent and comes
from the trace (:func:`kernel_mix`, rule ``scaling_profile``); the rest is
measured by the detailed simulator at one hardware configuration
(:func:`kernel_counters`).  docs/scaling.md defines every feature and how it
stands for the seed's counter on a GCN GPU.

Deviations from Table II, and why:

- GCN's scalar unit has no counterpart on our GPU; ``salu_insts`` and
  ``salu_busy`` count control instructions (branch, barrier, exit, misc),
  which is the work the scalar unit does for a wavefront.
- ``sfetch_insts`` counts constant- and parameter-space loads (GCN's scalar
  fetches read kernel arguments and constants).
- WriteUnitStalled is left out: our stores never stall the issuing warp
  (they are fire-and-forget through the load/store unit, whose time is in
  ``mem_unit_busy``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from ..ptx import isa
from ..ptx.isa import OPCLASSES
from .prior import PRIOR_COLUMN

#: warp-instruction classes of each mix share (``warp``: shfl/vote, lane-crossing vector work)
VALU_CLASSES = ("int", "int_mul", "fp32", "fp64", "sfu", "warp")
CONTROL_CLASSES = ("branch", "barrier", "exit", "misc")
# resolved spaces of the warp trace (docs/trace_format.md)
_GLOBAL_SPACES = (isa.SP_GLOBAL, isa.SP_LOCAL, isa.SP_MIXED)
_CONST_SPACES = (isa.SP_CONST, isa.SP_PARAM)
_SHARED = isa.SP_SHARED

#: Mix columns written by :func:`kernel_mix` (counts of warp instructions).
MIX_COUNTS = ["warp_instrs", "thread_instrs", "valu", "control", "vfetch", "sfetch", "vwrite", "lds"]

#: (column, Table II name, definition) of every feature, in the classifier's order.
FEATURES = [
    ("valu_insts", "VALUInsts", "ALU, SFU and shfl/vote warp instructions / warp instructions"),
    ("salu_insts", "SALUInsts", "control warp instructions (branch, barrier, exit, misc) / warp instructions"),
    ("vfetch_insts", "VFetchInsts", "global and local load warp instructions / warp instructions"),
    ("sfetch_insts", "SFetchInsts", "constant and parameter load warp instructions / warp instructions"),
    ("vwrite_insts", "VWriteInsts", "global and local store and atomic warp instructions / warp instructions"),
    ("lds_insts", "LDSInsts", "shared-memory warp instructions / warp instructions"),
    ("valu_utilization", "VALUUtilization", "thread instructions / (warp instructions x warp size)"),
    ("valu_busy", "VALUBusy", "ALU warp instructions / (cycles x SMs x issue width)"),
    ("salu_busy", "SALUBusy", "control warp instructions / (cycles x SMs x issue width)"),
    ("cache_hit", "CacheHit", "L2 hits / L2 accesses (1 when there are none)"),
    ("mem_unit_busy", "MemUnitBusy", "lines through the load/store units (one per cycle) / (cycles x SMs)"),
    ("mem_unit_stalled", "MemUnitStalled", "cycles the load/store units waited for an MSHR / (cycles x SMs)"),
    ("lds_bank_conflict", "LDSBankConflict", "extra shared-memory pipeline cycles of bank conflicts / (cycles x SMs)"),
    ("occupancy", "Occupancy", "resident warps per SM / warp slots, cycle-weighted over the launches"),
    ("v_ipc", "V_IPC", "warp instructions / cycles (GPU-wide)"),
    ("mem_time", "MemTime", "DRAM bytes / peak DRAM bandwidth / run time"),
    ("fetch_per_load_byte", "FetchPerLoadByte", "global/local load instructions / bytes of the lines they read"),
    ("write_per_store_byte", "WritePerStoreByte", "store and atomic instructions / bytes of the lines they write"),
    ("num_work_groups", "NumWorkGroups", "thread blocks per launch (mean), saturating at 320 as in the seed"),
    ("read_bandwidth", "ReadBandwidth", "DRAM read bytes / run time, GB/s"),
    ("write_bandwidth", "WriteBandwidth", "DRAM write bytes / run time, GB/s"),
]
FEATURE_NAMES = [f for f, _, _ in FEATURES]
WORK_GROUP_CAP = 320

#: Features of ours that show how a kernel fills the GPU, which decides how
#: it scales with the SM count (docs/scaling.md, "Counters"): Table II
#: shows it only indirectly (NumWorkGroups saturates at 320 and says nothing
#: of the blocks an SM holds).  Launch figures are weighted by the launch's
#: cycles, as the kernel's time is.
EXTENDED = [
    ("log_blocks_per_sm", "ours", "log2(1 + thread blocks per launch / SMs), cycle-weighted over the launches"),
    ("log_waves", "ours", "log2(1 + waves), waves = blocks / (resident blocks per SM x SMs), cycle-weighted"),
    ("last_wave_fill", "ours", "waves / ceil(waves): how full the last wave is, cycle-weighted"),
    ("wave_ratio_double", "ours", "ceil(waves with twice the SMs) / ceil(waves), cycle-weighted: the time ratio "
                                  "of a kernel bound by its waves when the SMs double"),
    ("wave_ratio_half", "ours", "ceil(waves with half the SMs) / ceil(waves), cycle-weighted"),
    ("limited_by_registers", "ours", "share of cycles in launches whose occupancy registers limit"),
    ("limited_by_shared", "ours", "share of cycles in launches whose occupancy shared memory limits"),
    ("limited_by_warps", "ours", "share of cycles in launches whose occupancy warp or thread slots limit"),
    ("l2_per_sm", "ours", "L2 accesses / (cycles x SMs)"),
    ("dram_per_sm", "ours", "DRAM lines read and written / (cycles x SMs)"),
]
EXTENDED_NAMES = [f for f, _, _ in EXTENDED]
#: ``scaling.features``: the classifier's inputs
#: (``gpumech``: the extended ones and GPUMech's predicted scaling to every SM count of the grid, at the
#: base's clocks and the four clock corners, .prior)
FEATURE_SETS = {"seed": FEATURE_NAMES, "extended": FEATURE_NAMES + EXTENDED_NAMES,
                "gpumech": FEATURE_NAMES + EXTENDED_NAMES + [PRIOR_COLUMN]}


def feature_set(name: str) -> list[str]:
    """The feature columns of ``scaling.features`` = ``name``."""
    try:
        return FEATURE_SETS[name]
    except KeyError:
        raise ValueError(f"scaling.features: {name!r} is not one of {', '.join(FEATURE_SETS)}") from None


def kernel_mix(instructions: pd.DataFrame, launches: pd.DataFrame, warp_trace_path) -> pd.DataFrame:
    """Per kernel: warp and thread instructions and the warp-instruction
    counts of each class of the mix, from a workload's trace.  The warp
    trace is read one row group at a time (``launch``, ``pc``, ``space``)."""
    kernel_of = launches.set_index("launch")["kernel"]
    kernels = sorted(launches["kernel"].unique())
    kid = {k: i for i, k in enumerate(kernels)}
    cls_id = {c: i for i, c in enumerate(OPCLASSES)}
    npc = int(instructions["pc"].max()) + 1
    # per (kernel, pc): opclass id
    opcls = np.full((len(kernels), npc), -1, np.int64)
    ins = instructions[instructions["kernel"].isin(kid)]
    opcls[ins["kernel"].map(kid).to_numpy(), ins["pc"].to_numpy()] = ins["opclass"].map(cls_id).to_numpy()
    launch_kid = np.full(int(launches["launch"].max()) + 1, -1, np.int64)
    launch_kid[kernel_of.index.to_numpy()] = kernel_of.map(kid).to_numpy()
    # counts per (kernel, opclass, resolved space 0..6)
    counts = np.zeros((len(kernels), len(OPCLASSES), 7), np.int64)
    f = pq.ParquetFile(warp_trace_path)
    for i in range(f.num_row_groups):
        t = f.read_row_group(i, columns=["launch", "pc", "space"])
        k = launch_kid[t.column("launch").to_numpy()]
        c = opcls[k, t.column("pc").to_numpy()]
        s = t.column("space").to_numpy().astype(np.int64)
        counts += np.bincount((k * len(OPCLASSES) + c) * 7 + s,
                              minlength=counts.size).reshape(counts.shape)
    by_cls = {c: counts[:, cls_id[c]] for c in OPCLASSES}
    per_space = counts.sum(1)
    tot = launches.groupby("kernel")[["warp_instrs", "thread_instrs"]].sum().reindex(kernels)
    mix = pd.DataFrame({
        "kernel": kernels, "warp_instrs": tot["warp_instrs"].to_numpy(),
        "thread_instrs": tot["thread_instrs"].to_numpy(),
        "valu": sum(by_cls[c].sum(1) for c in VALU_CLASSES),
        "control": sum(by_cls[c].sum(1) for c in CONTROL_CLASSES),
        "vfetch": by_cls["load"][:, list(_GLOBAL_SPACES)].sum(1),
        "sfetch": by_cls["load"][:, list(_CONST_SPACES)].sum(1),
        "vwrite": (by_cls["store"] + by_cls["atomic"])[:, list(_GLOBAL_SPACES)].sum(1),
        "lds": per_space[:, _SHARED],
    })
    traced = counts.sum((1, 2))
    if not np.array_equal(traced, mix["warp_instrs"].to_numpy()):
        raise ValueError(f"{warp_trace_path}: warp trace holds {traced.tolist()} instructions per kernel, "
                         f"launches.parquet says {mix['warp_instrs'].tolist()}")
    return mix


def _ratio(a, b, empty=0.0):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.where(b > 0, a / np.where(b > 0, b, 1), empty)


def kernel_counters(mix: pd.DataFrame, trace_launches: pd.DataFrame, sim_launches: pd.DataFrame,
                    activity: pd.DataFrame, power: pd.DataFrame, hw: dict) -> pd.DataFrame:
    """Per kernel: run time (s), dynamic power (W) and the :data:`FEATURES`
    at hardware ``hw``, from one detailed simulation's ``launches``,
    ``activity`` and ``power`` tables and the trace's mix and launches."""
    from ..sim.hardware import dram_bandwidth_gbs

    act = activity.drop(columns=["cycles"]).merge(
        sim_launches[["launch", "kernel", "cycles", "warp_instrs", "blocks", "sm_occupancy", "l1_accesses",
                      "l1_misses", "l2_misses", "mshr_stall_cycles", "occupancy_limiter"]], on="launch",
        validate="1:1")
    act = act.merge(power[["launch", "energy_j"]], on="launch", validate="1:1")
    act = act.merge(trace_launches[["launch", "warps_per_block"]], on="launch", validate="1:1")
    act["occ_cycles"] = act["sm_occupancy"] * act["warps_per_block"] * act["cycles"]
    _launch_fill(act, hw["cores"])
    g = act.groupby("kernel", sort=True).sum(numeric_only=True)
    g["launches"] = act.groupby("kernel", sort=True).size()
    m = mix.set_index("kernel").reindex(g.index)
    if m.isna().any().any():
        raise ValueError(f"kernels {sorted(set(g.index) - set(mix['kernel']))} of the simulation are not in the mix")
    line = hw["l2"]["line_bytes"]
    cycles = g["cycles"].to_numpy(float)
    sm_cycles = cycles * hw["cores"]
    seconds = cycles / (hw["core_clock_mhz"] * 1e6)
    wi = m["warp_instrs"].to_numpy(float)
    store_lines = g["l2_accesses"] - g["l1_misses"]     # stores and atomics: each line goes to the L2
    dram_bytes = (g["dram_reads"] + g["dram_writes"]).to_numpy(float) * line
    out = pd.DataFrame({"kernel": g.index.to_numpy(), "launches": g["launches"].to_numpy(np.int64),
                        "cycles": g["cycles"].to_numpy(np.int64), "seconds": seconds,
                        "dynamic_power_w": _ratio(g["energy_j"], seconds)})
    feats = {
        "valu_insts": _ratio(m["valu"], wi), "salu_insts": _ratio(m["control"], wi),
        "vfetch_insts": _ratio(m["vfetch"], wi), "sfetch_insts": _ratio(m["sfetch"], wi),
        "vwrite_insts": _ratio(m["vwrite"], wi), "lds_insts": _ratio(m["lds"], wi),
        "valu_utilization": _ratio(m["thread_instrs"], wi * hw["warp_size"]),
        "valu_busy": _ratio(m["valu"], sm_cycles * hw["issue_width"]),
        "salu_busy": _ratio(m["control"], sm_cycles * hw["issue_width"]),
        "cache_hit": 1.0 - _ratio(g["l2_misses"], g["l2_accesses"]),
        "mem_unit_busy": _ratio(g["l1_accesses"] + store_lines, sm_cycles),
        "mem_unit_stalled": _ratio(g["mshr_stall_cycles"], sm_cycles),
        "lds_bank_conflict": _ratio(np.maximum(g["shared_accesses"].to_numpy(float) - m["lds"].to_numpy(float), 0),
                                    sm_cycles),
        "occupancy": _ratio(g["occ_cycles"], cycles * hw["sm_limits"]["warps"]),
        "v_ipc": _ratio(g["warp_instrs"], cycles),
        "mem_time": _ratio(dram_bytes / (dram_bandwidth_gbs(hw) * 1e9), seconds),
        "fetch_per_load_byte": _ratio(m["vfetch"], g["l1_accesses"] * line),
        "write_per_store_byte": _ratio(m["vwrite"], store_lines * line),
        "num_work_groups": np.minimum(_ratio(g["blocks"], g["launches"]), WORK_GROUP_CAP),
        "read_bandwidth": _ratio(g["dram_reads"].to_numpy(float) * line / 1e9, seconds),
        "write_bandwidth": _ratio(g["dram_writes"].to_numpy(float) * line / 1e9, seconds),
    }
    for col in (c for c in g.columns if c.startswith("w_")):      # cycle-weighted launch figures
        feats[col[2:]] = _ratio(g[col], cycles)
    feats["l2_per_sm"] = _ratio(g["l2_accesses"], sm_cycles)
    feats["dram_per_sm"] = _ratio(g["dram_reads"] + g["dram_writes"], sm_cycles)
    for name in FEATURE_NAMES + EXTENDED_NAMES:
        out[name] = np.asarray(feats[name], float)
    return out.reset_index(drop=True)


def _launch_fill(act: pd.DataFrame, cores: int) -> None:
    """Add each launch's :data:`EXTENDED` wave and limiter figures times its
    cycles (``w_<feature>`` columns), to be summed per kernel and divided by
    the kernel's cycles."""
    blocks = act["blocks"].to_numpy(float)
    per_sm = act["sm_occupancy"].to_numpy(float)
    cyc = act["cycles"].to_numpy(float)
    waves = blocks / (per_sm * cores)
    whole = np.maximum(1.0, np.ceil(waves))
    lim = act["occupancy_limiter"].to_numpy()
    fig = {"log_blocks_per_sm": np.log2(1.0 + blocks / cores), "log_waves": np.log2(1.0 + waves),
           "last_wave_fill": waves / whole,
           "wave_ratio_double": np.maximum(1.0, np.ceil(blocks / (per_sm * 2 * cores))) / whole,
           "wave_ratio_half": np.maximum(1.0, np.ceil(blocks / (per_sm * max(1, cores // 2)))) / whole,
           "limited_by_registers": (lim == "registers").astype(float),
           "limited_by_shared": (lim == "shared").astype(float),
           "limited_by_warps": np.isin(lim, ("warps", "threads")).astype(float)}
    for name, v in fig.items():
        act[f"w_{name}"] = v * cyc
