"""Snakemake entry point of rule ``gpumech_validate`` (logic: pipeline_lib.gpumech.run)."""
import json
from pathlib import Path

import pandas as pd

from pipeline_lib.jobs import job_log
from pipeline_lib.gpumech.run import validate_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p, i = sm.params, sm.input
    items = [{"workload": wl, "predictions": pd.read_parquet(pr), "launches": pd.read_parquet(la),
              "sim": {"rr": pd.read_parquet(rr), "gto": pd.read_parquet(gto)}, "stacks": pd.read_parquet(st),
              "stalls": {"rr": pd.read_parquet(srr), "gto": pd.read_parquet(sgto)}}
             for wl, pr, la, rr, gto, st, srr, sgto in zip(p.workloads, i.predictions, i.launches, i.sim_rr,
                                                          i.sim_gto, i.stacks, i.stalls_rr, i.stalls_gto)]
    times = [{"workload": wl, **json.loads(Path(h).read_text()),
              "sim_s": json.loads(Path(s).read_text())["simulation_s"]}
             for wl, h, s in zip(p.workloads, i.host, i.sim_host)]
    validate_stage(sm.wildcards.hw, items, p.cores, p.min_waves, sm.output.table, sm.output.summary,
                   Path(sm.output.figures[0]).parent, times, sm.output.host_summary, sm.output.stack_check,
                   p.issue_width)
