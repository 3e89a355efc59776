"""Snakemake entry point of rule ``scaling_train`` (logic: pipeline_lib.scaling.run)."""

from pipeline_lib.jobs import job_log
from pipeline_lib.scaling.run import train_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p = sm.params
    train_stage(sm.input[0], dict(p.base), p.clusters, p.seed, dict(sm.output.items()), features=p.features,
                method=p.method, assignment=p.assignment,
                classifier=p.classifier, split_by=p.split_by, applications=dict(p.applications))
