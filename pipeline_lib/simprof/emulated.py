"""The emulated counter mode (ours; docs/simprof.md, "Counter modes"): the
Spark job's JVM runs under QEMU user-mode emulation with our TCG plugin
(``qemu/simprof_counter.c``), which counts every thread's retired
instructions, runs its loads and stores through a private two-level
cache model, its instruction fetches through a private L1 instruction
cache backed by the same L2, and its conditional branches through a
private gshare predictor, so that hosts without a PMU still get the seed's
units of 100 M instructions of one thread and a CPI per unit.

The CPI is modelled, not measured: an in-order core that retires
``base_cpi`` cycles per instruction, stalls ``l2_latency`` cycles on every
L1 miss (data or instruction) and a further ``memory_latency`` cycles on
every L2 miss, and loses ``mispredict_penalty`` cycles on every
mispredicted conditional branch::

    cycles = base_cpi * instructions + l2_latency * (l1_misses + l1i_misses)
             + memory_latency * (l2_misses + l2i_misses) + mispredict_penalty * mispredicts

The parameters are ``simprof.emulated`` in the configuration (defaults:
32 KB 8-way L1 data and instruction caches and a 1 MB 16-way L2 of 64-byte
lines, 12 and 200 cycles, a gshare predictor of 2^14 two-bit counters
(McFarling 1993) and a 15-cycle misprediction penalty, typical of a current x86 server core; none
was fitted to SimProf's errors).  What varies between a job's phases -- how
much of its working set misses, how predictable its branches are -- is
what the model keeps; what it leaves out (out-of-order overlap,
prefetching, shared caches) it leaves out alike in every phase.  The
instruction-fetch and branch terms are SIMPROF_VERSION 6's: before them
the model had the data caches alone, and the modelled CPI varied too
little from unit to unit for phases to explain much of it
(docs/simprof.md, "Emulated mode on the seed's six jobs"); data-analytic
jobs are known to lose much of their time in the front end, to
instruction-cache misses over large code footprints and to mispredictions
(Ferdman et al., ASPLOS 2012; Yasin et al., ISPASS 2014).

Cost, measured on the default configuration's Spark jobs (docs/simprof.md,
"Emulated mode on the default configuration"): a profile takes 35-85x the
wall time of one in cpu-time mode, JFR's start-up under emulation included.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd

from ..io import build_once
from . import perf

SOURCE = Path(__file__).resolve().parent / "qemu" / "simprof_counter.c"
QEMU = "qemu-x86_64"
#: the plugin's record columns (cumulative per-thread totals)
RECORD_COLUMNS = ["time_ns", "os_tid", "instructions", "mem_accesses", "l1_misses", "l2_misses", "l1i_misses",
                  "l2i_misses", "branches", "mispredicts"]
#: the records' model counts the profile's ``perf`` table keeps beside perf's events (-1 in other modes), so
#: that the CPI model's terms can be told apart afterwards (benchmarks/simprof_cpi_terms.py)
MODEL_COUNTS = RECORD_COLUMNS[3:]
#: the plugin's arguments that come from ``simprof.emulated`` (the rest is the CPI model's)
PLUGIN_FIELDS = ("window", "line_bytes", "l1_kb", "l1_ways", "l1i_kb", "l1i_ways", "l2_kb", "l2_ways",
                 "predictor_bits")


class EmulationError(RuntimeError):
    """QEMU, the compiler or the plugin is missing or failed; the message says which."""


def qemu_binary() -> str:
    path = shutil.which(QEMU)
    if path is None:
        raise EmulationError(f"'{QEMU}' not found on PATH: the emulated counter mode needs QEMU's user-mode "
                             "emulator; on Debian: apt-get install qemu-user (make system-packages)")
    return path


def available() -> tuple[bool, str]:
    """Whether this host can run the emulated mode: QEMU and a C compiler."""
    missing = [t for t in (QEMU, "gcc") if shutil.which(t) is None]
    if missing:
        return False, f"{' and '.join(missing)} not found on PATH"
    return True, f"{QEMU} and gcc found"


def source_digest() -> str:
    return hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]


def build_plugin(cache_dir) -> Path:
    """Compile the plugin into ``cache_dir/simprof_counter-<digest>.so``
    (once per digest; a concurrent builder renames a complete file)."""
    cc = shutil.which("gcc")
    if cc is None:
        raise EmulationError("'gcc' not found on PATH: the emulated counter mode compiles its QEMU plugin at set-up")

    def build(tmp: Path) -> Path:
        part = tmp / "simprof_counter.so"
        res = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-o", str(part), str(SOURCE),
                              "-lpthread"], capture_output=True, text=True)
        if res.returncode:
            raise EmulationError(f"gcc failed on {SOURCE}:\n{res.stderr[-3000:]}")
        return part
    return build_once(Path(cache_dir) / f"simprof_counter-{source_digest()}.so", build)


def plugin_option(plugin: Path, out: Path, model: dict) -> str:
    """QEMU's ``-plugin`` argument: the plugin, its record file and the cache geometry of ``model``."""
    geometry = {"window": model["window"], "cache": 1, "line": model["line_bytes"], "l1_kb": model["l1_kb"],
                "l1_ways": model["l1_ways"], "l1i_kb": model["l1i_kb"], "l1i_ways": model["l1i_ways"],
                "l2_kb": model["l2_kb"], "l2_ways": model["l2_ways"], "bp_bits": model["predictor_bits"]}
    for k, v in geometry.items():
        if int(v) != v or v <= 0:
            raise ValueError(f"simprof.emulated: {k} must be a positive whole number, got {v!r}")
    if str(out).find(",") >= 0:
        raise ValueError(f"the plugin's record file may not contain a comma: {out}")
    return ",".join([str(plugin), f"out={out}", *(f"{k}={int(v)}" for k, v in geometry.items())])


def read_records(path) -> pd.DataFrame:
    """The plugin's records (:data:`RECORD_COLUMNS`), sorted by thread and
    time; a malformed line raises ValueError naming the file and line."""
    path = Path(path)
    lines = path.read_text().splitlines()
    if not lines or lines[0].split() != RECORD_COLUMNS:
        raise ValueError(f"{path}: line 1 is not the plugin's header ({' '.join(RECORD_COLUMNS)})")
    rows = []
    for i, line in enumerate(lines[1:], start=2):
        f = line.split()
        if len(f) != len(RECORD_COLUMNS) or not all(x.isdigit() for x in f):
            raise ValueError(f"{path}: line {i} is not {len(RECORD_COLUMNS)} whole numbers: {line!r}")
        rows.append([int(x) for x in f])
    t = pd.DataFrame(rows, columns=RECORD_COLUMNS, dtype=np.int64)
    return t.sort_values(["os_tid", "time_ns", "instructions"], kind="stable", ignore_index=True)


#: the CPI model's miss and misprediction terms (:func:`modelled_cycles`)
TERMS = ("data", "instruction", "branch")


def modelled_cycles(records: pd.DataFrame, model: dict, terms=TERMS) -> np.ndarray:
    """The CPI model's cycles (module docstring) at every record (or row of
    a ``perf`` table, which keeps the same counts), with the penalties of
    ``terms`` only: the data caches' misses, the instruction fetches'
    misses, the mispredictions (all by default; fewer to see what each
    adds, benchmarks/simprof_cpi_terms.py)."""
    unknown = set(terms) - set(TERMS)
    if unknown:
        raise ValueError(f"unknown CPI model term(s) {sorted(unknown)} (known: {', '.join(TERMS)})")

    def n(col):
        return records[col].to_numpy(np.float64)
    cycles = model["base_cpi"] * n("instructions")
    for term, l1, l2 in (("data", "l1_misses", "l2_misses"), ("instruction", "l1i_misses", "l2i_misses")):
        if term in terms:
            cycles = cycles + model["l2_latency"] * n(l1) + model["memory_latency"] * n(l2)
    if "branch" in terms:
        cycles = cycles + model["mispredict_penalty"] * n("mispredicts")
    return cycles


def perf_table(records: pd.DataFrame, model: dict) -> pd.DataFrame:
    """The records as the perf sampler's table (time_ns, os_tid and every
    :data:`.perf.EVENTS` column): instructions, modelled cycles, L2 misses
    (data and instruction) as the cache misses, and -1 (not counted) for the
    software events; then the records' :data:`MODEL_COUNTS`."""
    t = pd.DataFrame({"time_ns": records["time_ns"], "os_tid": records["os_tid"],
                      "instructions": records["instructions"],
                      "cycles": np.rint(modelled_cycles(records, model)).astype(np.int64),
                      "cache_misses": records["l2_misses"] + records["l2i_misses"]})
    for col in perf.EVENTS:
        if col not in t:
            t[col] = np.int64(-1)
    for col in MODEL_COUNTS:
        t[col] = records[col]
    return t


#: how often a job is run when QEMU aborts in its plugin code (:func:`crashed`)
ATTEMPTS = 3
#: what QEMU 7.2 prints when a memory callback runs with a stale callback list
QEMU_PLUGIN_ABORT = "qemu_plugin_vcpu_mem_cb: code should not be reached"


def crashed(log) -> bool:
    """Whether a job's log ends in QEMU's own abort in its plugin core, not
    in an error of the job.  Debian 12's QEMU (7.2) sometimes calls a memory
    callback with the callback list of a translation block that was left by
    a signal (the JVM takes SIGSEGV on purpose, for null checks and
    safepoints) and since freed; later QEMU versions clear the list when a
    block is left.  It struck 1 of the 7 emulated Spark runs measured
    (docs/simprof.md), at random, so such a run is simply repeated, up to
    :data:`ATTEMPTS` times."""
    try:
        return QEMU_PLUGIN_ABORT in Path(log).read_text(errors="replace")
    except OSError:
        return False


def java_home(directory: Path, records: Path, model: dict) -> Path:
    """A JAVA_HOME whose ``bin/java`` runs the installed JVM under QEMU with
    our plugin (built into ``directory``), which writes its records to
    ``records`` with the cache geometry of ``model`` (:func:`plugin_option`).
    Spark's launcher (which only builds the command line) runs natively."""
    home = Path(directory)
    plugin = plugin_option(build_plugin(home / "lib"), records, model)
    real = shutil.which("java")
    if real is None:
        raise EmulationError("'java' not found on PATH: SimProf needs a JDK 17 or newer")
    real = os.path.realpath(real)
    qemu = qemu_binary()
    (home / "bin").mkdir(parents=True, exist_ok=True)
    script = home / "bin" / "java"
    script.write_text("#!/bin/sh\n"
                      "for a in \"$@\"; do\n"
                      f"  [ \"$a\" = org.apache.spark.launcher.Main ] && exec '{real}' \"$@\"\n"
                      "done\n"
                      f"exec '{qemu}' -plugin '{plugin}' '{real}' \"$@\"\n")
    script.chmod(0o755)
    return home
