"""Snakemake entry point of rule ``trace`` (logic: pipeline_lib.trace.generate)."""
import contextlib
import sys
from pathlib import Path

from pipeline_lib.trace.generate import trace_workload

sm = snakemake  # noqa: F821  (injected by Snakemake)
out_dir = Path(sm.output.check).parent
with open(sm.log[0], "w") as log, contextlib.redirect_stderr(log):
    p = sm.params
    trace_workload(sm.wildcards.wl, p.spec, out_dir, warp_trace=p.warp_trace,
                   instr_limit=p.instr_limit, chunk_records=p.chunk_records)
    if not p.warp_trace:  # keep the declared output: an empty table with the schema
        from pipeline_lib.trace import arrow_schema, write_table
        import pyarrow as pa
        write_table(pa.Table.from_pylist([], schema=arrow_schema("warp_trace")), out_dir / "warp_trace.parquet")
