"""benchmarks/perf_asm.py --count: reading callgrind's per-instruction
profile (docs/simulator.md, Speed)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import perf_asm  # noqa: E402

# callgrind's format with --dump-instr=yes --compress-pos=no, as valgrind
# 3.19 writes it: an instruction address and a source line before each cost;
# the cost after a calls= line is the call's inclusive cost
PROFILE = """# callgrind format
version: 1
positions: instr line
events: Ir
summary: 37

ob=(1) /lib/libm.so.6
fl=(1) log.c
fn=(1) log
0x13040 32 5
0x13044 32 5
0x1304a 46 5
cfn=(2) inner
calls=5 0x6eda0 61
0x1304a 46 230
fn=(2) inner
0x6eda0 61 20
0x13040 0 2
"""


def test_callgrind_counts_are_self_costs_by_address(tmp_path):
    path = tmp_path / "callgrind.out"
    path.write_text(PROFILE)
    counts = perf_asm._callgrind_counts(path)
    # the call's inclusive 230 is not the caller's own; an address seen twice adds up
    assert counts == {0x13040: 7, 0x13044: 5, 0x1304a: 5, 0x6eda0: 20}
    assert sum(counts.values()) == 37


def test_a_profile_without_source_lines_reads_its_costs(tmp_path):
    path = tmp_path / "callgrind.out"
    path.write_text("positions: instr\nevents: Ir\nfn=(1) f\n0x10 3\n0x14 4\ncalls=1 0x20\n0x14 9\n")
    assert perf_asm._callgrind_counts(path) == {0x10: 3, 0x14: 4}


def test_every_event_is_read_by_address_with_omitted_zeros(tmp_path):
    path = tmp_path / "callgrind.out"
    path.write_text("positions: instr line\nevents: Ir Bc Bcm\nfn=(1) f\n"
                    "0x10 1 4 2 1\n0x14 1 3\n0x10 2 1 1\ncalls=2 0x30 5\n0x14 1 50 9 9\n0x30 5 6 1 0\n")
    events, costs = perf_asm._callgrind_events(path)
    assert events == ["Ir", "Bc", "Bcm"]
    # a line that leaves out its last costs has zeros there
    assert costs == {0x10: [5, 3, 1], 0x14: [3, 0, 0], 0x30: [6, 1, 0]}


def test_the_simulator_functions_profiled_are_the_engines_own_calls(tmp_path):
    """--simulator reads the machine code of every engine function that is
    a call of its own: each one the engine compiled (a cache file to read),
    none compiled into its callers (``inline="always"``, no code of its own:
    a fixed list naming one had stopped the script)."""
    from pipeline_lib.sim import load_hardware
    from pipeline_lib.sim.simulator import Simulator
    from simulator_speed import traced
    sim = Simulator(load_hardware("gpumech-baseline"), traced("reduction", "small", tmp_path))
    sim.run()
    names = perf_asm.engine_calls(sim.engine)
    assert names[0] == "run" and {"_book", "book_bits", "_book_slot"} <= set(names)
    for name in names:
        f = getattr(sim.engine, name)
        assert f.targetoptions.get("inline") != "always" and perf_asm._cached_objects(f), name
    assert "heap_replace_min" not in names and "book_ring" not in names
