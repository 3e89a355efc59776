"""Snakemake entry point of rule ``scaling_summary`` (logic: pipeline_lib.scaling.run)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.scaling.run import summary_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p, i = sm.params, sm.input
    dirs = {m: Path(h).parent for m, h in zip(p.metrics, i.heatmaps)}
    models = {m: x for m, x in zip(p.metrics, i.models)}
    hosts = [Path(d) / "host_time.json" for d in p.dirs]
    summary_stage(p.sweep, i.dataset, dirs, models, hosts, sm.output.summary, sm.output.host_time)
