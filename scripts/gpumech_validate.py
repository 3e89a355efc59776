"""Snakemake entry point of rule ``gpumech_validate`` (logic: pipeline_lib.gpumech.run)."""
import json
from pathlib import Path

import pandas as pd

from pipeline_lib.jobs import job_log
from pipeline_lib.gpumech.run import validate_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p = sm.params
    items, times = [], []
    for wl in p.workloads:
        f = p.files[wl]
        items.append({"workload": wl, "predictions": pd.read_parquet(f["predictions"]),
                      "launches": pd.read_parquet(f["launches"]),
                      "sim": {"rr": pd.read_parquet(f["sim_rr"]), "gto": pd.read_parquet(f["sim_gto"])},
                      "stacks": pd.read_parquet(f["stacks"]),
                      "stalls": {"rr": pd.read_parquet(f["stalls_rr"]), "gto": pd.read_parquet(f["stalls_gto"])}})
        times.append({"workload": wl, **json.loads(Path(f["host"]).read_text()),
                      "sim_s": json.loads(Path(f["sim_host"]).read_text())["simulation_s"]})
    validate_stage(sm.wildcards.hw, items, p.cores, p.min_waves, sm.output.table, sm.output.summary,
                   Path(sm.output.figures[0]).parent, times, sm.output.host_summary, sm.output.stack_check,
                   p.issue_width)
