"""Which warp instructions still take the emulator's general path.

    .venv/bin/python benchmarks/emulator_general_path.py [workload ...] [--top 6]

For each workload's trace under results/traces/ (default: every one there),
counts the executed warp instructions per (kernel, PC) from the warp trace,
decodes the workload's PTX with the working tree's decoder, and prints the
share of warp instructions whose code-table row has no fast path
(``fast`` column FK_NONE; branches, ``ret``, ``exit`` and ``bar`` excepted,
as they have their own path), with the most frequent opcodes among them.
An instruction on the general path costs several fast-path ones (its
sources copied to operand rows, a call, the write-back), so this names the
next fast paths worth writing (docs/emulator.md, Speed).
"""
import argparse
import collections
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from pipeline_lib.ptx import Device, isa

ROOT = Path(__file__).resolve().parents[1]
CONTROL = (isa.OP_BRA, isa.OP_RET, isa.OP_EXIT, isa.OP_BAR)


def general_share(trace_dir: Path) -> tuple[int, collections.Counter]:
    """(warp instructions, general-path warp instructions per opcode text)."""
    meta = pq.ParquetFile(trace_dir / "warp_trace.parquet").schema_arrow.metadata
    module = Device().load_module(ROOT / "workloads" / f"{meta[b'benchmark'].decode()}.ptx")
    kernels = pd.read_parquet(trace_dir / "launches.parquet", columns=["launch", "kernel"])
    pcs = pq.read_table(trace_dir / "warp_trace.parquet", columns=["launch", "pc"]).to_pandas()
    counts = pcs.merge(kernels, on="launch").groupby(["kernel", "pc"]).size()
    general = collections.Counter()
    for (kernel, pc), n in counts.items():
        dk = module.kernel(kernel)
        row = dk.code[pc]
        if row[isa.F_FAST] == isa.FK_NONE and row[isa.F_OP] not in CONTROL:
            general[dk.texts[pc].split()[0]] += int(n)
    return int(counts.sum()), general


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workloads", nargs="*")
    ap.add_argument("--top", type=int, default=6, help="opcodes listed per workload")
    args = ap.parse_args()
    base = ROOT / "results" / "traces"
    names = args.workloads or sorted(p.name for p in base.iterdir() if (p / "warp_trace.parquet").exists())
    for name in names:
        if not (base / name / "warp_trace.parquet").exists():
            raise SystemExit(f"emulator_general_path: no trace at {base / name} (run the trace stage first)")
        total, general = general_share(base / name)
        top = ", ".join(f"{op} {100 * n / total:.1f}%" for op, n in general.most_common(args.top))
        print(f"{name:16s} {total / 1e6:7.2f} M warp instr, general path {100 * sum(general.values()) / total:5.1f}%"
              + (f": {top}" if top else ""))


if __name__ == "__main__":
    main()
