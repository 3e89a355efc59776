"""Versions of the parts of the library whose results the workflow caches.

Snakemake cannot see edits to an imported library, so every rule passes the
version of the code it runs through ``params:``.  Bump a version when a change
alters that stage's outputs; the dependent jobs then rerun.  Each version
is recorded with a digest of the code it stands for (:data:`COVERS`,
``versions.lock.json``), so that a changed stage cannot go unnoticed.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

EMULATOR_VERSION = "1"   # PTX parser/decoder/emulator, workload drivers, trace writer
SIMULATOR_VERSION = "4"  # detailed timing simulator (pipeline_lib/sim: engine, simulator, output)
POWER_VERSION = "2"      # power model energies and scaling (pipeline_lib/sim/power.py)
TBPOINT_VERSION = "7"    # TBPoint clustering, regions, sampling policy and baselines (pipeline_lib/tbpoint)
GPUMECH_VERSION = "8"    # GPUMech collector, interval algorithm, representative warp, models (pipeline_lib/gpumech)
SCALING_VERSION = "10"    # Table II counters, scaling model (clusters or regression), its validation (pipeline_lib/scaling)
SIMPROF_VERSION = "8"    # SimProf inputs, jobs and plugin, profile tables, units, phases, sampling (pipeline_lib/simprof)
REPORT_VERSION = "1"     # the HTML report's pages (pipeline_lib/report.py)
IMPORTER_VERSION = "1"   # Accel-Sim trace importer and exporter (pipeline_lib/trace/traceg.py, traceg_export.py)

# -- what each version stands for --------------------------------------------------------------------------------
# Bumping stays a decision: a digest of the code as the cache key would rerun
# every later stage (hours at paper scale) after an edit that leaves the
# outputs the same bytes -- a comment, a refactoring.  Instead the digest of
# the code each version stands for is recorded beside it in versions.lock.json
# and a test fails when the code has changed since: bump the version if the
# stage's outputs change, then record (python -m pipeline_lib.versions --record).

#: version name -> the files and directories under pipeline_lib/ it stands for
COVERS = {
    "EMULATOR_VERSION": ("ptx", "intrinsics.py", "trace/__init__.py", "trace/generate.py", "trace/schema.py",
                         "trace/sink.py"),
    "SIMULATOR_VERSION": ("sim/__init__.py", "sim/engine.py", "sim/hardware.py", "sim/output.py", "sim/run.py",
                          "sim/sampling.py", "sim/simulator.py", "sim/specialized.py", "sim/static.py",
                          "sim/trace_reader.py"),
    "POWER_VERSION": ("sim/power.py",),
    "TBPOINT_VERSION": ("tbpoint", "pairwise.py"),                    # pairwise.py: the epoch table's sums
    # the static table GPUMech reads, and the contention model's sums
    "GPUMECH_VERSION": ("gpumech", "sim/static.py", "pairwise.py"),
    "SCALING_VERSION": ("scaling",),
    "SIMPROF_VERSION": ("simprof",),
    "REPORT_VERSION": ("report.py",),
    "IMPORTER_VERSION": ("trace/traceg.py", "trace/sass.py", "trace/traceg_export.py"),
}
#: files of the stages' packages that no output depends on (the hardware doc's generator)
UNCOVERED = ("sim/__main__.py",)
PACKAGE = Path(__file__).resolve().parent
LOCK = PACKAGE / "versions.lock.json"
_SOURCES = (".py", ".java", ".jfc", ".c")


def code_digest(paths, root: Path = PACKAGE) -> str:
    """SHA-256 over the bytes and relative names of the source files under
    ``paths`` (files or directories below ``root``), in name order."""
    files = []
    for p in paths:
        p = root / p
        files += sorted(f for f in p.rglob("*") if f.suffix in _SOURCES and "__pycache__" not in f.parts) \
            if p.is_dir() else [p]
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def current(root: Path = PACKAGE) -> dict:
    """Version name -> {version, digest} of the code as it is now."""
    return {name: {"version": globals()[name], "digest": code_digest(paths, root)} for name, paths in COVERS.items()}


def stale(recorded: dict, now: dict) -> list[str]:
    """One message per version whose code or number differs from ``recorded``."""
    out = []
    for name, entry in now.items():
        if recorded.get(name) == entry:
            continue
        was = recorded.get(name, {})
        what = ", ".join(COVERS[name])
        if was.get("version") == entry["version"]:
            out.append(f"{name} {entry['version']}: its code ({what}) changed since it was recorded; bump it if the "
                       f"stage's outputs change, then run python -m pipeline_lib.versions --record")
        else:
            out.append(f"{name}: {was.get('version', 'none')} recorded, {entry['version']} now; "
                       f"run python -m pipeline_lib.versions --record")
    return out


def main(argv=None) -> int:
    """``python -m pipeline_lib.versions [--record]``: check (or record) that
    each version was decided on its code as it is."""
    import sys

    args = list(argv if argv is not None else sys.argv[1:])
    now = current()
    if args == ["--record"]:
        LOCK.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
        print(f"{LOCK.name}: {len(now)} versions recorded")
        return 0
    if args:
        print("usage: python -m pipeline_lib.versions [--record]", file=sys.stderr)
        return 2
    problems = stale(json.loads(LOCK.read_text()) if LOCK.exists() else {}, now)
    for p in problems:
        print(p, file=sys.stderr)
    if not problems:
        print(f"{LOCK.name}: every version recorded on its code as it is")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
