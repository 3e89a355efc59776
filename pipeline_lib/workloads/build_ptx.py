"""Regenerate ``workloads/*.ptx``, ``tests/kernels/*.ptx`` and their ``*.ptxas.txt``
from the CUDA sources.

``python -m pipeline_lib.workloads.build_ptx [--check]``.  The PTX is made
with ``nvcc -ptx -arch=sm_80 -O3`` (CUDA 13 has no sm_70); the ptxas report
(``ptxas -v``) gives registers per thread, which occupancy needs; its last
line records the SHA-256 of the ``.cu`` the PTX was made from, so that a trace
job can refuse PTX that is older than its source.  With
``--check`` nothing is written and the exit status says whether the committed
files match what nvcc produces now.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .base import source_digest

ROOT = Path(__file__).resolve().parents[2]
# benchmark sources and the test kernels of tests/kernels
SOURCE_DIRS = [ROOT / "workloads", ROOT / "tests" / "kernels"]
NVCC_FLAGS = ["-ptx", "-arch=sm_80", "-O3"]


def compile_one(cu: Path, out_dir: Path) -> tuple[Path, Path]:
    ptx = out_dir / (cu.stem + ".ptx")
    subprocess.run(["nvcc", *NVCC_FLAGS, str(cu), "-o", str(ptx)], check=True)
    res = subprocess.run(["ptxas", "-v", "-arch=sm_80", str(ptx), "-o", str(out_dir / (cu.stem + ".cubin"))],
                         check=True, capture_output=True, text=True)
    info = out_dir / (cu.stem + ".ptxas.txt")
    # keep only the per-kernel report lines, without temporary paths
    keep = [ln for ln in res.stderr.splitlines() if "ptxas info" in ln and "Compile time" not in ln]
    # the source's digest lets a trace job refuse PTX older than its .cu (base.check_ptx_current)
    keep.append(f"source sha256 {source_digest(cu)}")
    info.write_text("\n".join(keep) + "\n")
    return ptx, info


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    args = ap.parse_args(argv)
    if shutil.which("nvcc") is None:
        print("nvcc not found; the committed PTX is used as is", file=sys.stderr)
        return 2 if args.check else 1
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for cu in sorted(p for d in SOURCE_DIRS for p in d.glob("*.cu")):
            ptx, info = compile_one(cu, Path(tmp))
            for made in (ptx, info):
                committed = cu.parent / made.name
                if args.check:
                    if not committed.exists() or committed.read_text() != made.read_text():
                        bad.append(committed.name)
                else:
                    committed.write_text(made.read_text())
    if bad:
        print("out of date: " + ", ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
