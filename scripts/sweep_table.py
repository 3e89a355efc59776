"""Snakemake entry point of rule ``sweep_table`` (logic: pipeline_lib.sweeps)."""
import json
from pathlib import Path

import pandas as pd

from pipeline_lib.jobs import job_log
from pipeline_lib.sweeps import sweep_table

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p = sm.params
    rows = []
    for pt in p.points:
        for wl in p.workloads:
            d = Path(p.dirs[pt["name"]][wl])
            rows.append({"point": pt, "workload": wl, "core_clock_mhz": p.clocks[pt["name"]],
                         "summary": json.loads((d / "summary.json").read_text()),
                         "power": pd.read_parquet(d / "power.parquet")})
    sweep_table(sm.wildcards.sweep, rows, sm.output[0])
