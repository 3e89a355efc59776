"""benchmarks/simulator_counts.py: its instrumented copy of the engine counts
what the engine does without changing what it simulates (docs/simulator.md,
Speed)."""
import sys
from pathlib import Path

from pipeline_lib.sim import load_hardware
from pipeline_lib.sim.simulator import Simulator
from pipeline_lib.sim.trace_reader import TraceDir
from conftest import trace_specs

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import simulator_counts  # noqa: E402


def test_the_counts_agree_with_the_simulators_own_tables(tmp_path_factory):
    traces = trace_specs(tmp_path_factory, {"spmv": {"benchmark": "spmv", "size": "small", "seed": 1,
                                                     "params": {}}})
    hw = load_hardware("gpumech-baseline")
    assert hw["issue_width"] == 1
    copy = simulator_counts.copied(tmp_path_factory.mktemp("counts"), simulator_counts.NAME,
                                   simulator_counts.ENGINE_PATCHES)
    sim = copy.Simulator(hw, TraceDir(traces["spmv"]))
    counted = sim.run().launches
    # the counters change nothing the engine simulates
    assert counted.equals(Simulator(hw, TraceDir(traces["spmv"])).run().launches)
    v = sim.chan_cal[-1]
    slices, banks, channels = sim.slice_cal[-1], sim.bank_cal[-1], sim.chan_cal[-1]
    # one issuing visit per warp instruction at an issue width of one
    assert v[11] == counted["warp_instrs"].sum()
    assert v[9] > v[11] and v[10] >= v[11]                 # every issue is of a ready slot tried
    # a slice booking per L2 access, a bank and a channel booking per DRAM access
    assert slices[0] == counted["l2_accesses"].sum() > 0
    assert banks[0] == channels[0] == (counted["dram_reads"] + counted["dram_writes"]).sum() > 0
    # every booking either appends or extends, or searches
    for cal in (slices, banks, channels):
        assert cal[2] + cal[3] == cal[0]
        assert cal[4] >= cal[3]                              # a search looks at one interval at least


def test_the_time_stamp_copy_times_every_part_and_changes_nothing(tmp_path_factory):
    """--ticks: every text that the timing patches wrap is found once in
    the engine (else no copy is made), the timed copy simulates what the
    engine does, and each part's ticks lie within those of the part around
    it (no share below 0)."""
    traces = trace_specs(tmp_path_factory, {"spmv": {"benchmark": "spmv", "size": "small", "seed": 1,
                                                     "params": {}}})
    hw = load_hardware("gpumech-baseline")
    copy = simulator_counts.copied(tmp_path_factory.mktemp("ticks"), simulator_counts.NAME + "_ticks",
                                   simulator_counts.TICK_PATCHES, simulator_counts.CYCLES_INTRINSIC)
    sim = copy.Simulator(hw, TraceDir(traces["spmv"]))
    assert sim.run().launches.equals(Simulator(hw, TraceDir(traces["spmv"])).run().launches)
    shares = dict(simulator_counts.tick_shares(sim))
    assert len(shares) == 8 and all(s >= 0 for s in shares.values()), shares
    assert abs(sum(shares.values()) - 1) < 1e-9
    assert shares["L2 slice bookings"] > 0 and shares["SM visits outside the issues"] > 0
