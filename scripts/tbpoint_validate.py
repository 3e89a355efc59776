"""Snakemake entry point of rule ``tbpoint_validate`` (logic: pipeline_lib.tbpoint.run)."""
import json
from pathlib import Path

import pandas as pd

from pipeline_lib.jobs import job_log
from pipeline_lib.tbpoint.run import validate_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)


def _json(path):
    return json.loads(Path(path).read_text())


with job_log(sm):
    items, times = [], []
    for wl in sm.params.workloads:
        f = sm.params.files[wl]
        items.append({"workload": wl, "full": _json(f["full"]), "full_launches": pd.read_parquet(f["launches"]),
                      "tbpoint": _json(f["sampled"]), "tbpoint_launches": pd.read_parquet(f["sampled_table"]),
                      "baselines": pd.read_parquet(f["baselines"]), "seed": _json(f["seed"]) if "seed" in f else None})
        times.append({"workload": wl, "full": _json(f["full_host"]), "tbpoint": _json(f["sampled_host"])})
    validate_stage(sm.wildcards.hw, items, sm.output.table, sm.output.summary, Path(sm.output.figures[0]).parent,
                   times, sm.output.host_table, sm.output.host_summary)
