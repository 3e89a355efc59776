"""Where the emulator's compiled code spends its time, by machine instruction.

    .venv/bin/python benchmarks/perf_asm.py cfd [--size paper] [--top 15] [--out DIR]
    .venv/bin/python benchmarks/perf_asm.py --micro "mov.u32 %r3, 5;" [--blocks 512]
    .venv/bin/python benchmarks/perf_asm.py --simulator results/traces/spmv-scalar [--hw gpumech-baseline]
    .venv/bin/python benchmarks/perf_asm.py --simulator results/traces/spmv-scalar --count [--misses]

Runs itself again under ``perf record -e cpu-clock`` (a software clock: no
hardware counters needed).  The child runs a workload (or a micro-kernel
of one instruction repeated, as ``emulator_micro.py``'s, or with
``--simulator`` the detailed simulator on a trace directory), then finds
each compiled emulator (or simulator) function's load address (numba's
JIT engine, by the symbol names of the objects in the function's cache
files, one per compiled specialisation, and in the entry function's, which
carries a linked copy of each function it calls: the emulator runs that
copy of ``_interp``) and writes the
machine code as loaded, read from its own memory.  The parent maps every
sample to a function and an offset, prints each function's share and its
hottest runs of instructions (runs of sampled instructions less than 48
bytes apart), and writes the whole disassembly with a sample count per
instruction to ``DIR/<function>.ann``.

``numba_profile.py`` maps samples to source lines through a second copy
of the module emitted with debug information, whose code need not be laid
out as the loaded one is; this script reads the loaded bytes themselves,
so the attribution is exact, to the instruction (a sample lands on the
instruction after the one that stalled, as the clock interrupt is taken).
Finding which source line a hot run belongs to is left to reading it: the
column offsets (``0xf8`` = 31 x 8 bytes is the code table's ``fast``
column) and the lane loops' shapes make most runs easy to place.

With ``--count`` the child runs under valgrind's callgrind instead of
perf, and each instruction's figure is how many times it ran, not clock
samples: exact and the same from run to run whatever else the host is
doing (this host's timings drift by up to 40%), so two versions of the
code can be compared by the instructions they execute, function by
function.  Instructions are not time (the host overlaps them, and a
cache miss or a mispredicted branch costs many), so a count confirms
where work was removed, and a timing (``simulator_ab.py``) whether it
mattered.  Valgrind does not run AVX-512 code, so the child is compiled
for a fixed AVX2 processor (:data:`COUNT_CPU`, its own numba cache
entries) and first compiled natively, outside valgrind; it runs about
20-25x slower there (the medium ``spmv-scalar``: about two minutes in all).  With
``--misses`` callgrind also models the host's branch predictor and
caches, and each function's mispredicted branches and cache misses are
printed beside its instructions (models, not the host's own counters,
which this host does not have: a guide to where the host waits).

Needs ``perf``, ``nm`` and ``objdump`` (Debian: linux-perf, binutils);
``--count`` needs ``valgrind`` instead of ``perf``.
"""
import argparse
import collections
import ctypes
import glob
import os
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = "PERF_ASM_DIR"
FUNCTIONS = ("_interp", "exec_general", "_half_warps", "run_blocks")
#: the processor the child is compiled for with --count (numba's cache key
#: holds both, so the native compile and the run under valgrind share it)
COUNT_CPU = {"NUMBA_CPU_NAME": "haswell",
             "NUMBA_CPU_FEATURES": "+64bit,+avx,+avx2,+bmi,+bmi2,+cmov,+cx16,+cx8,+f16c,+fma,+fxsr,+lzcnt,+mmx,"
                                   "+movbe,+popcnt,+sahf,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+xsave"}


def _cache_files(dispatcher) -> list[str]:
    """``dispatcher``'s numba cache files (none if it was never compiled)."""
    code = dispatcher.py_func.__code__
    return glob.glob(str(Path(code.co_filename).parent / "__pycache__" /
                         f"{Path(code.co_filename).stem}.{code.co_name}-{code.co_firstlineno}.*.nbc"))


def engine_calls(module) -> list[str]:
    """The engine's functions that stay calls of their own, ``run`` first:
    those not compiled with ``inline="always"`` (which have no code of
    their own) and compiled at least once (a cache file)."""
    import numba
    names = [name for name, f in vars(module).items()
             if isinstance(f, numba.core.registry.CPUDispatcher) and f.py_func.__module__ == module.__name__
             and f.targetoptions.get("inline") != "always" and _cache_files(f)]
    return sorted(names, key=lambda name: name != "run")


def _cached_objects(dispatcher) -> list[bytes]:
    """The ELF objects in ``dispatcher``'s cache files, one per compiled
    specialisation (numba keeps each there as the bytes it loads)."""
    files = _cache_files(dispatcher)
    if not files:
        raise SystemExit(f"perf_asm: no numba cache file of {dispatcher.py_func.__qualname__} "
                         f"({dispatcher.py_func.__code__.co_filename})")
    objects = []
    for path in sorted(files, key=os.path.getmtime, reverse=True):
        data = open(path, "rb").read()
        i = data.find(b"\x7fELF")
        shoff, = struct.unpack_from("<Q", data, i + 0x28)
        shentsize, shnum = struct.unpack_from("<HH", data, i + 0x3A)
        objects.append(data[i:i + shoff + shentsize * shnum])
    return objects


def child(args, out: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from pipeline_lib.ptx import Device, emulator
    module, functions, entry = emulator, FUNCTIONS, "run_blocks"
    if args.simulator:
        from pipeline_lib.sim import load_hardware
        from pipeline_lib.sim.simulator import Simulator
        from pipeline_lib.sim.trace_reader import TraceDir
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from simulator_speed import traced
        hw = load_hardware(args.hw)
        with tempfile.TemporaryDirectory() as tmp:     # load or compile the engine first
            Simulator(hw, traced("reduction", "small", Path(tmp))).run()
        t0 = time.perf_counter()
        sim = Simulator(hw, TraceDir(args.simulator))
        sim.run()
        print(f"{args.simulator}: {time.perf_counter() - t0:.2f} s", file=sys.stderr)
        # the engine compiled for hw's structure, and those of its functions that are calls of their own
        module, functions, entry = sim.engine, engine_calls(sim.engine), "run"
    elif args.micro:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from emulator_micro import KERNEL
        dev = Device()
        mod = dev.load_module(KERNEL.format(body="\n".join([args.micro] * 200)), source="<micro>")
        buf = dev.malloc(4 * 256 * args.blocks)
        dev.launch(mod, "k", (1, 1, 1), (256, 1, 1), [buf])
        info = dev.launch(mod, "k", (args.blocks, 1, 1), (256, 1, 1), [buf])
        n = int(info.block_stats[:, 1].sum())
        print(f"{info.seconds / n * 1e9:.1f} ns per warp instruction ({n / 1e6:.1f} M)", file=sys.stderr)
    else:
        from pipeline_lib.workloads import get
        get("reduction", "small").execute(Device())     # load or compile the emulator first
        t0 = time.perf_counter()
        get(args.workload, args.size).execute(Device())
        print(f"{args.workload} {args.size}: {time.perf_counter() - t0:.2f} s", file=sys.stderr)
    (_, cres), = getattr(module, entry).overloads.items()
    jit = cres.library._codegen._engine
    def symbol_tables(name: str) -> list[str]:     # nm's table of each of the function's cached objects
        tables = []
        for data in _cached_objects(getattr(module, name)):
            obj = out / f"{name}.o"
            obj.write_bytes(data)
            tables.append(subprocess.run(["nm", "-S", str(obj)], capture_output=True, text=True, check=True).stdout)
        return tables

    # the copy that runs may be the one linked into the entry's own object
    # (a weak symbol there), not the function's own object
    entry_tables = symbol_tables(entry)
    with open(out / "functions.txt", "w") as f:
        for name in functions:
            found = 0      # a function may be loaded in several specialisations: name, name.1, ...
            seen = set()
            tables = entry_tables if name == entry else symbol_tables(name) + entry_tables
            for nm in tables:
                for line in nm.splitlines():
                    p = line.split()
                    if len(p) == 4 and p[2] in "TtWw" and name in p[3] and "cpython" not in p[3] and "cfunc" not in p[3]:
                        addr, size = jit.get_function_address(p[3]), int(p[1], 16)
                        if addr and addr not in seen:
                            seen.add(addr)
                            label = name if not found else f"{name}.{found}"
                            (out / f"{label}.bin").write_bytes(ctypes.string_at(addr, size))
                            f.write(f"{label} {addr} {size}\n")
                            found += 1
                        break


def _disassembly(path: Path) -> list[tuple[int, str]]:
    text = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", str(path)],
                          capture_output=True, text=True, check=True).stdout
    rows = []
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3 and parts[0].strip().endswith(":"):
            try:
                rows.append((int(parts[0].strip()[:-1], 16), "\t".join(parts[2:]).strip()))
            except ValueError:
                pass
    return rows


def _perf_samples(out: Path) -> collections.Counter:
    """Clock samples by instruction address, from perf's record."""
    ips = subprocess.run(["perf", "script", "-i", str(out / "perf.data"), "-F", "ip"],
                         capture_output=True, text=True, check=True).stdout.split()
    return collections.Counter(int(x, 16) for x in ips)


def _callgrind_events(path: Path) -> tuple[list[str], dict[int, list[int]]]:
    """(the event names, {instruction address: each event's count}) from a
    callgrind profile written with ``--dump-instr=yes --compress-pos=no``
    (each cost line starts with its absolute address; trailing zero costs
    are left out).  The cost line after a ``calls=`` line is the call's
    inclusive cost, already counted at the callee's own addresses."""
    events, costs = ["Ir"], {}
    after_call = False
    npos = 1        # position columns before the costs ("positions: instr line")
    for line in open(path):
        if line.startswith("positions:"):
            npos = len(line.split()) - 1
        elif line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("calls="):
            after_call = True
        elif line.startswith("0x"):
            if after_call:
                after_call = False
                continue
            parts = line.split()
            if len(parts) > npos:
                row = costs.setdefault(int(parts[0], 16), [0] * len(events))
                for k, x in enumerate(parts[npos:]):
                    row[k] += int(x)
    return events, costs


def _instructions(costs: dict) -> collections.Counter:
    """Instructions executed (callgrind's first event, Ir), by address, of
    :func:`_callgrind_events`' costs."""
    return collections.Counter({a: row[0] for a, row in costs.items() if row[0]})


def _callgrind_counts(path: Path) -> collections.Counter:
    """Instructions executed, by address, from a callgrind profile."""
    return _instructions(_callgrind_events(path)[1])


def _event_totals(events: list, costs: dict, funcs: list) -> None:
    """Each listed function's total of every event of a profile taken with
    ``--misses``: its branches and mispredicted branches as callgrind's
    predictor models them, its loads and stores and their misses in the
    host's L1 as its cache model has them."""
    if len(events) == 1:
        return
    print(f"\nper function ({' '.join(events)}; callgrind's models of the branch predictor and caches):")
    for name, addr, size in funcs:
        total = [0] * len(events)
        for a, row in costs.items():
            if addr <= a < addr + size:
                total = [x + y for x, y in zip(total, row)]
        if total[0]:
            print(f"  {name:18s} " + " ".join(f"{e}={x}" for e, x in zip(events, total)))


def report(out: Path, top: int, count: bool = False) -> None:
    if count:     # the profile (tens of MB) read once, for the counts and the event totals
        events, costs = _callgrind_events(out / "callgrind.out")
        hits_at = _instructions(costs)
    else:
        hits_at = _perf_samples(out)
    what = "instructions executed" if count else "samples"
    funcs = [(n, int(a), int(s)) for n, a, s in (line.split() for line in open(out / "functions.txt"))]
    inside = sum(n for ip, n in hits_at.items() if any(a <= ip < a + s for _, a, s in funcs))
    print(f"{sum(hits_at.values())} {what}, {inside} in the listed compiled functions")
    for name, addr, size in funcs:
        hits = collections.Counter({ip - addr: n for ip, n in hits_at.items() if addr <= ip < addr + size})
        total = sum(hits.values())
        if not total:
            continue
        print(f"\n{name}: {total} {what} ({total / max(inside, 1) * 100:.1f}% of those)")
        rows = _disassembly(out / f"{name}.bin")
        with open(out / f"{name}.ann", "w") as f:
            for off, ins in rows:
                f.write(f"{hits.get(off, 0):7d} {off:6x}  {ins}\n")
        runs = []
        for off, ins in rows:
            n = hits.get(off, 0)
            if not n:
                continue
            if runs and off - runs[-1][1] < 48:
                runs[-1][1] = off
                runs[-1][2] += n
                runs[-1][3].append((n, ins))
            else:
                runs.append([off, off, n, [(n, ins)]])
        for first, last, n, ins in sorted(runs, key=lambda r: -r[2])[:top]:
            hot = " | ".join(i[:36] for _, i in sorted(ins, key=lambda x: -x[0])[:3])
            print(f"  {first:6x}-{last:6x} {n:7d} {n / total * 100:5.1f}%  {hot}")
    if count:
        _event_totals(events, costs, funcs)
    print(f"\nannotated disassembly: {out}/<function>.ann")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workload", nargs="?", help="a workload of pipeline_lib.workloads")
    ap.add_argument("--size", default="paper")
    ap.add_argument("--micro", help="one PTX instruction line, repeated in a loop (emulator_micro.py's kernel)")
    ap.add_argument("--blocks", type=int, default=512, help="blocks of 256 threads for --micro")
    ap.add_argument("--simulator", type=Path, metavar="TRACE_DIR", help="profile the detailed simulator on this trace")
    ap.add_argument("--hw", default="gpumech-baseline", help="hardware configuration for --simulator")
    ap.add_argument("--count", action="store_true",
                    help="count the instructions executed (valgrind's callgrind) instead of sampling time")
    ap.add_argument("--misses", action="store_true",
                    help="with --count: simulate the branch predictor and caches too (about 3x slower)")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--out", type=Path, help="where the samples and annotated disassembly go (default: a new temporary directory)")
    args = ap.parse_args()
    if not args.micro and not args.workload and not args.simulator:
        ap.error("name a workload or give --micro or --simulator")
    if args.misses and not args.count:
        ap.error("--misses goes with --count")
    if os.environ.get(CHILD):
        child(args, Path(os.environ[CHILD]))
        return
    out = args.out or Path(tempfile.mkdtemp(prefix="perf_asm-"))
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, CHILD: str(out)}
    if args.count:
        env.update(COUNT_CPU)
        subprocess.run([sys.executable, __file__] + sys.argv[1:], check=True, env=env, cwd=ROOT)  # compile natively
        cmd = ["valgrind", "-q", "--tool=callgrind", "--dump-instr=yes", "--compress-pos=no",
               f"--callgrind-out-file={out / 'callgrind.out'}"]
        if args.misses:
            cmd += ["--branch-sim=yes", "--cache-sim=yes"]
    else:
        cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-F", "5000", "-o", str(out / "perf.data")]
    subprocess.run(cmd + [sys.executable, __file__] + sys.argv[1:], check=True, env=env, cwd=ROOT)
    report(out, args.top, args.count)


if __name__ == "__main__":
    main()
