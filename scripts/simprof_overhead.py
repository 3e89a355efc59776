"""Snakemake entry point of rule ``simprof_overhead`` (logic: pipeline_lib.simprof.run)."""
from pipeline_lib.jobs import job_log
from pipeline_lib.simprof.run import overhead_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm, capture=False):  # the stage writes the log itself
    overhead_stage(sm.params.spec, sm.input.jar, sm.input.data, sm.params.spark, sm.params.repeats, sm.output[0],
                   sm.log[0])
