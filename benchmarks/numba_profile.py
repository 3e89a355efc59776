"""Where the compiled simulator or emulator spends its time, by source line.

    .venv/bin/python benchmarks/numba_profile.py simulator results/traces/kmeans [--hw gpumech-baseline]
    .venv/bin/python benchmarks/numba_profile.py emulator cfd [--size medium]
    .venv/bin/python benchmarks/numba_profile.py collector results/traces/spmv-vector [--hw gpumech-baseline-w16]

Numba's machine code has no symbols that ``perf`` can read, so this script
runs itself again under ``perf record -e cpu-clock`` (a software clock: no
hardware counters needed) with an empty numba cache and numba's debug
information on.  The child compiles the engine on a small input, writes the
compiled module as an object file (it carries the line table) and the
address at which each of its functions was loaded, then runs the target.
The parent maps every sample in compiled code to its function and source
line and prints the shares.  Compiling with debug information takes a few
minutes.  Numba keeps the optimisation level with debug information but
marks every function it lowers ``noinline`` (for debuggers), so its
overloads of ``min`` and ``max`` became calls and the loops around them
were no longer vectorised: the paper ``spmv`` ran 67 s under the profiler
against 50 s, with 7.3% of the compiled samples in ``min``'s overload.
The child lifts that mark (:func:`_inline_as_optimised`), so the profiled
code is the ordinary optimised code with a line table, and inlined code is
attributed to the line it was inlined from (``builtins.py`` for ``min``).

Needs ``perf``, ``nm`` and ``objdump`` (Debian: linux-perf, binutils).
"""
import argparse
import bisect
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = "NUMBA_PROFILE_DIR"


def _dump_library(dispatcher, out: Path) -> None:
    """The object file of ``dispatcher``'s compiled module and the load
    address of each function defined in it (addresses.txt)."""
    (_, cres), = dispatcher.overloads.items()
    lib = cres.library
    (out / "jit.o").write_bytes(lib._codegen._tm.emit_object(lib._final_module))
    names = subprocess.run(["nm", str(out / "jit.o")], capture_output=True, text=True, check=True).stdout
    with open(out / "addresses.txt", "w") as f:
        for line in names.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TW":
                f.write(f"{lib._codegen._engine.get_function_address(p[2])} {p[2]}\n")


def _inline_as_optimised() -> None:
    """Compile as an ordinary run does: numba marks each function it lowers
    with full debug information ``noinline``, which the optimised build
    would have inlined (its overloads of ``min`` and ``max`` among them)."""
    from numba.core import lowering

    pre_lower = lowering.Lower.pre_lower

    def without_noinline(self):
        pre_lower(self)
        self.builder.function.attributes.discard("noinline")
    lowering.Lower.pre_lower = without_noinline


def child(args, out: Path) -> None:
    _inline_as_optimised()
    if args.engine == "simulator":
        from pipeline_lib.sim import load_hardware
        from pipeline_lib.sim.simulator import Simulator
        from pipeline_lib.sim.trace_reader import TraceDir
        from pipeline_lib.trace.generate import trace_workload

        hw = load_hardware(args.hw)
        warm = out / "warm-trace"
        trace_workload("reduction-small", {"benchmark": "reduction", "size": "small", "seed": 1, "params": {}},
                       warm, progress=False)
        sim = Simulator(hw, TraceDir(warm))
        sim.run()
        _dump_library(sim.engine.run, out)     # the engine compiled for hw's structure
        t0 = time.perf_counter()
        Simulator(hw, TraceDir(args.target)).run()
    elif args.engine == "collector":     # GPUMech's scheduler-ordered collector, collecting again in full
        from pipeline_lib.gpumech import scheduled
        from pipeline_lib.gpumech.analysis import GPUMech, warm_up
        from pipeline_lib.gpumech.reevaluate import Reevaluation
        from pipeline_lib.sim import load_hardware
        from pipeline_lib.sim.trace_reader import TraceDir

        hw = load_hardware(args.hw)
        warm_up(hw)
        _dump_library(scheduled._launch_scheduled, out)
        trace = TraceDir(args.target)
        base = GPUMech(hw).run(trace)
        ev = Reevaluation(trace, base["launches"], base["collected"], hw=hw)
        t0 = time.perf_counter()
        ev.collect(hw)
    else:
        from pipeline_lib.ptx import Device, emulator
        from pipeline_lib.workloads import get

        get("reduction", "small").execute(Device())
        _dump_library(emulator.run_blocks, out)
        t0 = time.perf_counter()
        get(args.target, args.size).execute(Device())
    print(f"target ran in {time.perf_counter() - t0:.1f} s", file=sys.stderr)


def _readable(symbol: str) -> str:
    """``module.function`` from a numba symbol (``_ZN<len><name>...`` with
    an ABI tag after the last name)."""
    m = re.match(r"(?:cfunc\.)?_ZN(.*)", symbol)
    parts, rest = [], m.group(1) if m else ""
    while (d := re.match(r"(\d+)", rest)) is not None:
        n = int(d.group(1))
        parts.append(rest[len(d.group(1)):len(d.group(1)) + n])
        rest = rest[len(d.group(1)) + n:]
    return ".".join(parts[-2:]) if parts else symbol[:40]


def report(out: Path, top: int) -> None:
    loaded = {}
    for line in (out / "addresses.txt").read_text().splitlines():
        addr, name = line.split()
        loaded[name] = int(addr)
    sizes, offsets = {}, {}
    for line in subprocess.run(["nm", "-S", str(out / "jit.o")], capture_output=True, text=True).stdout.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "TW":
            offsets[p[3]], sizes[p[3]] = int(p[0], 16), int(p[1], 16)
    ranges = sorted((loaded[n], loaded[n] + sizes[n], offsets[n], n) for n in sizes if loaded.get(n))
    starts = [r[0] for r in ranges]
    dis = subprocess.run(["objdump", "-d", "-l", "--no-show-raw-insn", str(out / "jit.o")],
                         capture_output=True, text=True).stdout
    where, line_at = None, {}
    for line in dis.splitlines():
        m = re.match(r"^(/\S+\.py):(\d+)", line)
        if m:
            where = (m.group(1), int(m.group(2)))
            continue
        m = re.match(r"^\s+([0-9a-f]+):", line)
        if m and where:
            line_at[int(m.group(1), 16)] = where
    offs = sorted(line_at)
    samples = subprocess.run(["perf", "script", "-i", str(out / "perf.data"), "-F", "ip,dso"],
                             capture_output=True, text=True).stdout
    total, compiled = 0, 0
    by_fn, by_line = collections.Counter(), collections.Counter()
    for s in samples.splitlines():
        p = s.split()
        if len(p) < 2:
            continue
        total += 1
        if "perf-" not in p[1] and "JIT" not in p[1]:
            continue
        ip = int(p[0], 16)
        i = bisect.bisect_right(starts, ip) - 1
        if i < 0 or ip >= ranges[i][1]:
            continue
        compiled += 1
        a, _, o, name = ranges[i]
        by_fn[_readable(name)] += 1
        j = bisect.bisect_right(offs, o + ip - a) - 1
        if j >= 0:
            by_line[line_at[offs[j]]] += 1
    print(f"{total} samples, {compiled} in compiled code ({100 * compiled / max(1, total):.0f}%; the rest is "
          "Python, compiling, reading the input)")
    print("\nby compiled function:")
    for name, n in by_fn.most_common(12):
        print(f"  {100 * n / max(1, compiled):5.1f}%  {name}")
    print(f"\nby source line (top {top}):")
    sources = {}
    for (path, no), n in by_line.most_common(top):
        text = sources.setdefault(path, Path(path).read_text().splitlines() if Path(path).exists() else [])
        code = text[no - 1].strip()[:80] if no <= len(text) else ""
        print(f"  {100 * n / max(1, compiled):5.1f}%  {Path(path).name}:{no}  {code}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine", choices=["simulator", "emulator", "collector"])
    ap.add_argument("target", help="simulator, collector: a trace directory; emulator: a benchmark name")
    ap.add_argument("--hw", default="gpumech-baseline", help="simulator, collector: hardware configuration")
    ap.add_argument("--size", default="medium", help="emulator: input size")
    ap.add_argument("--top", type=int, default=30, help="source lines to list")
    args = ap.parse_args()
    if os.environ.get(CHILD):
        return child(args, Path(os.environ[CHILD]))
    for tool in ("perf", "nm", "objdump"):
        if shutil.which(tool) is None:
            sys.exit(f"numba_profile: `{tool}` is not installed (Debian: linux-perf, binutils)")
    if args.engine != "emulator" and not (Path(args.target) / "launches.parquet").exists():
        sys.exit(f"numba_profile: {args.target} is not a trace directory (no launches.parquet)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        env = {**os.environ, CHILD: tmp, "NUMBA_CACHE_DIR": str(out / "cache"), "NUMBA_DEBUGINFO": "1",
               "PYTHONWARNINGS": "ignore"}
        print("compiling with debug information and running under perf (a few minutes)...", file=sys.stderr)
        subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "2000", "-o", str(out / "perf.data"),
                        sys.executable, __file__, *sys.argv[1:]], env=env, check=True, cwd=ROOT)
        report(out, args.top)


if __name__ == "__main__":
    main()
