"""Snakemake entry point of rule ``export_traceg`` (logic: pipeline_lib.trace.traceg_export)."""
import sys
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.trace.traceg_export import export_traceg

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    summary = export_traceg(Path(sm.input.check).parent, sm.output[0], compress=sm.params.compress)
    print(f"{sm.wildcards.wl}: {summary}", file=sys.stderr)
