"""Snakemake entry point of rule ``scaling_predict`` (logic: pipeline_lib.scaling.run)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.scaling.run import predict_stage
from pipeline_lib.sim.hardware import variant_name

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p, i = sm.params, sm.input
    models = {Path(m).stem.removeprefix("model_"): m for m in i.models}
    predict_stage(sm.wildcards.wl, models, i.profile, i.trace_launches, Path(p.sim_dir), dict(p.hw), p.base,
                  lambda s, c, m: variant_name(p.sweep_base, sm=s, cc=c, mc=m), sm.output[0], i.prior)
