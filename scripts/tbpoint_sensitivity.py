"""Snakemake entry point of rule ``tbpoint_sensitivity`` (logic: pipeline_lib.tbpoint.sensitivity)."""
import json
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.tbpoint.sensitivity import sensitivity_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    items = [{"workload": r["workload"], "hardware": dict(r["hardware"]), "full": json.loads(Path(r["full"]).read_text()),
              "tbpoint": json.loads(Path(r["sampled"]).read_text())} for r in sm.params.runs]
    sensitivity_stage(items, sm.output.table, sm.output.summary, Path(sm.output.figures[0]).parent)
