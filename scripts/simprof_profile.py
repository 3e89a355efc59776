"""Snakemake entry point of rule ``simprof_profile`` (logic: pipeline_lib.simprof.run)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.simprof.run import profile_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
# the Spark job's own output goes to the log; the stage's progress to stderr
with job_log(sm, capture=False):
    profile_stage(sm.wildcards.run, sm.params.spec, sm.input.jar, sm.input.data, sm.params.spark,
                  Path(sm.output[0]).parent, sm.log[0])
