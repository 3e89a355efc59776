"""Snakemake entry point of rule ``scaling_summary`` (logic: pipeline_lib.scaling.run)."""

from pipeline_lib.jobs import job_log
from pipeline_lib.scaling.run import summary_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p = sm.params
    summary_stage(p.sweep, sm.input.dataset, {m: r["dir"] for m, r in p.metrics.items()},
                  {m: r["model"] for m, r in p.metrics.items()}, list(p.host_times), sm.output.summary, sm.output.host_time)
