"""Entry points of rules ``simulate`` and ``power`` (thin scripts call these)."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd

from .. import __version__
from ..io import write_json
from ..versions import POWER_VERSION, SIMULATOR_VERSION
from .output import write_result, write_sim_table
from .power import power_table
from .simulator import Simulator
from .trace_reader import TraceDir

def simulate_workload(wl: str, trace_dir, hw: dict, out_dir, *, unit_warp_instrs: int = 1_000_000,
                      min_units: int = 20, progress_s: float = 10.0, trace: TraceDir | None = None) -> dict:
    """Full detailed simulation of one traced workload on ``hw``; writes the
    tables of docs/simulator.md into ``out_dir`` and returns a summary.
    Host time goes to ``host_time.json`` alone, so that every other file
    has the same bytes on every run.  ``trace``: ``trace_dir`` already
    opened (a batch of points shares it and its decoded launches)."""
    t0 = time.perf_counter()
    trace = trace or TraceDir(trace_dir)
    sim = Simulator(hw, trace, unit_warp_instrs=unit_warp_instrs, min_units=min_units,
                    progress_s=progress_s, label=f"{wl} on {hw['name']}")
    res = sim.run()
    meta = {"workload": wl, "hardware": hw["name"], "simulator_version": SIMULATOR_VERSION,
            "library_version": __version__, "unit_warp_instrs": sim.unit,
            "trace_emulator_version": trace.metadata.get("emulator_version", "")}
    write_result(res, out_dir, meta)
    summary = workload_summary(wl, hw["name"], res.launches, unit_warp_instrs=sim.unit)
    write_json(summary, Path(out_dir) / "summary.json")
    write_host_time(Path(out_dir) / "host_time.json", res.info["host_seconds"], time.perf_counter() - t0)
    print(f"{wl} on {hw['name']}: {summary['warp_instrs']:,} warp instructions, {summary['cycles']:,} cycles, "
          f"IPC {summary['ipc']:.3f}, {res.info['host_seconds']:.1f} s", file=sys.stderr)
    return summary


def workload_summary(wl: str, hw_name: str, launches, **extra) -> dict:
    """The ``summary.json`` of a simulation from its launches table (a full
    one, or one estimated from a sampled run), with ``extra`` fields."""
    cycles = int(launches["cycles"].sum())
    n = int(launches["warp_instrs"].sum())
    return {"workload": wl, "hardware": hw_name, "launches": len(launches), "cycles": cycles, "warp_instrs": n,
            "thread_instrs": int(launches["thread_instrs"].sum()), "ipc": float(n / cycles) if cycles else 0.0,
            "simulator_version": SIMULATOR_VERSION, **extra}


# a batch keeps a trace's decoded launches in memory up to this size
BATCH_CACHE_BYTES = 1 << 30


def simulate_points(wl: str, trace_dir, points: list[dict], simulate=None, **options) -> None:
    """Full simulation and power of one workload at several hardware
    configurations in one process (a batched sweep job): ``points`` are
    dicts with ``hw`` (timing fields), ``hw_power`` (power fields) and
    ``out_dir``.  The outputs are those of rules ``simulate`` and ``power``.
    ``simulate``: what simulates one point, called as
    :func:`simulate_workload` is (default; TBPoint's sampled points pass
    ``pipeline_lib.tbpoint.run.estimate_workload``), with ``options``."""
    trace = TraceDir(trace_dir, cache_limit_bytes=BATCH_CACHE_BYTES)
    for i, pt in enumerate(points):
        out = Path(pt["out_dir"])
        (simulate or simulate_workload)(wl, trace_dir, pt["hw"], out, trace=trace, **options)
        power_workload(wl, out / "activity.parquet", pt["hw_power"], pt["hw"]["name"], out / "power.parquet")
        print(f"point {i + 1} of {len(points)} done", file=sys.stderr, flush=True)


def write_host_time(path, simulation_s: float, job_s: float) -> None:
    """Host seconds of a simulation: the engine's run and the whole job
    (trace reading and table writing included)."""
    write_json({"simulation_s": round(simulation_s, 3), "job_s": round(job_s, 3)}, path)


POWER_COLUMNS_DOC = {"launch": "launch index", "cycles": "simulated cycles", "energy_j": "dynamic energy, joules",
                     "seconds": "cycles / core clock", "voltage": "supply voltage from vf_table, V",
                     "dynamic_power_w": "energy_j / seconds, watts"}


def power_workload(wl: str, activity_path, hw_power: dict, hw_name: str, out_path) -> None:
    """Dynamic power per launch from the simulation's activity counts."""
    import pyarrow as pa

    table = power_table(pd.read_parquet(activity_path), hw_power)
    cols = [(c, pa.int32() if c == "launch" else pa.int64() if c == "cycles" else pa.float64(),
             POWER_COLUMNS_DOC.get(c, "energy of this event class, joules")) for c in table.columns]
    meta = {"workload": wl, "hardware": hw_name, "stage": "power", "power_version": POWER_VERSION,
            "library_version": __version__}
    write_sim_table(table, cols, "power", out_path, meta)
