"""Snakemake entry point of rule ``tbpoint_sensitivity`` (logic: pipeline_lib.tbpoint.sensitivity)."""
import json
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.tbpoint.sensitivity import sensitivity_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    items = [{"workload": wl, "hardware": dict(hw), "full": json.loads(Path(f).read_text()),
              "tbpoint": json.loads(Path(s).read_text())}
             for wl, hw, f, s in zip(sm.params.workloads, sm.params.hardware, sm.input.full, sm.input.sampled)]
    sensitivity_stage(items, sm.output.table, sm.output.summary, Path(sm.output.figures[0]).parent)
