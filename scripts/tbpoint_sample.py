"""Snakemake entry point of rule ``tbpoint_sample`` (logic: pipeline_lib.tbpoint.run)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.tbpoint.run import sample_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p = sm.params
    sample_stage(sm.wildcards.wl, Path(sm.input.check).parent, dict(p.hw),
                 sm.input.inter if p.inter else None, sm.input.regions if p.intra else None,
                 p.ipc_tolerance, sm.output.table, sm.output.summary, sm.output.host_time, progress_s=p.progress_s,
                 functional_warming=p.functional_warming, warming_rule=p.warming_rule,
                 launch_rule=p.launch_rule, unit_rule=p.unit_rule, interval_tolerance=p.interval_tolerance,
                 small_launches=p.small_launches)
