"""Snakemake entry point of rule ``gpumech_analyse`` (logic: pipeline_lib.gpumech.run)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.gpumech.run import analyse_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    analyse_stage(sm.wildcards.wl, Path(sm.input.check).parent, dict(sm.params.hw), sm.wildcards.hw,
                  Path(sm.output.predictions).parent, sm.input.base[0] if sm.input.base else None,
                  dict(sm.params.sync), sm.input.collected[0] if sm.input.collected else None,
                  bool(sm.params.pacing))
