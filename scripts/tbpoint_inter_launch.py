"""Snakemake entry point of rule ``tbpoint_inter_launch`` (logic: pipeline_lib.tbpoint.run)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.tbpoint.run import inter_launch_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    inter_launch_stage(sm.wildcards.wl, Path(sm.input.check).parent, sm.params.sigma, sm.output[0],
                       sm.params.within_kernel, sm.params.representative, sm.params.scale)
