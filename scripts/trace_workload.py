"""Snakemake entry point of rule ``trace`` (logic: pipeline_lib.trace.generate, or
pipeline_lib.trace.traceg for an imported Accel-Sim trace)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.trace.generate import trace_workload
from pipeline_lib.trace.traceg import import_traceg

sm = snakemake  # noqa: F821  (injected by Snakemake)
out_dir = Path(sm.output.check).parent
with job_log(sm):
    p = sm.params
    if "traceg" in p.spec:
        import_traceg(sm.wildcards.wl, p.spec["traceg"], out_dir)
    else:
        trace_workload(sm.wildcards.wl, p.spec, out_dir, warp_trace=p.warp_trace,
                       instr_limit=p.instr_limit, chunk_records=p.chunk_records, lane_addresses=p.lane_addresses)
