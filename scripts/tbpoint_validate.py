"""Snakemake entry point of rule ``tbpoint_validate`` (logic: pipeline_lib.tbpoint.run)."""
import json
from pathlib import Path

import pandas as pd

from pipeline_lib.jobs import job_log
from pipeline_lib.tbpoint.run import validate_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    seeds = [json.loads(Path(x).read_text()) for x in sm.input.seed] or [None] * len(sm.params.workloads)
    items = [{"workload": wl, "full": json.loads(Path(f).read_text()), "full_launches": pd.read_parquet(L),
              "tbpoint": json.loads(Path(s).read_text()), "tbpoint_launches": pd.read_parquet(st),
              "baselines": pd.read_parquet(b), "seed": seed}
             for wl, f, L, s, st, b, seed in zip(sm.params.workloads, sm.input.full, sm.input.launches,
                                                 sm.input.sampled, sm.input.sampled_table, sm.input.baselines, seeds)]
    times = [{"workload": wl, "full": json.loads(Path(f).read_text()), "tbpoint": json.loads(Path(s).read_text())}
             for wl, f, s in zip(sm.params.workloads, sm.input.full_host, sm.input.sampled_host)]
    validate_stage(sm.wildcards.hw, items, sm.output.table, sm.output.summary, Path(sm.output.figures[0]).parent,
                   times, sm.output.host_table, sm.output.host_summary)
