"""Snakemake entry point of rule ``trace`` (logic: pipeline_lib.trace.generate)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.trace.generate import trace_workload

sm = snakemake  # noqa: F821  (injected by Snakemake)
out_dir = Path(sm.output.check).parent
with job_log(sm):
    p = sm.params
    trace_workload(sm.wildcards.wl, p.spec, out_dir, warp_trace=p.warp_trace,
                   instr_limit=p.instr_limit, chunk_records=p.chunk_records)
