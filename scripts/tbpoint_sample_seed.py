"""Snakemake entry point of rule ``tbpoint_sample_seed`` (logic: pipeline_lib.tbpoint.run)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.tbpoint.run import seed_sample_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p = sm.params
    seed_sample_stage(sm.wildcards.wl, Path(sm.input.check).parent, dict(p.hw), p.inter_sigma, p.intra_sigma,
                      p.max_variation, p.min_epochs, p.ipc_tolerance, sm.output[0], progress_s=p.progress_s)
