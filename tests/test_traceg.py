"""Importing Accel-Sim traces (pipeline_lib/trace/traceg.py) on the
hand-written fixture in tests/data/traceg (docs/trace_format.md): the tables
it gives, worked out by hand; that they simulate and analyse; clear errors
on malformed input with nothing left behind; the workflow's traceg kind."""
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from pipeline_lib.trace.traceg import TraceFormatError, import_traceg
from pipeline_lib.trace.traceg_export import export_traceg

DATA = Path(__file__).parent / "data" / "traceg"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    out = tmp_path_factory.mktemp("tg")
    import_traceg("tg", DATA / "kernelslist.g", out, progress=False)
    return out


def _t(d, name):
    return pd.read_parquet(d / f"{name}.parquet")


def test_the_fixture_imports_to_the_hand_worked_tables(imported):
    L = _t(imported, "launches")
    assert len(L) == 2 and (L["kernel"] == "_Z6vecaddPfS_S_i").all()       # the same file listed twice
    assert L.loc[0, ["n_blocks", "warps_per_block", "regs_per_thread", "shared_bytes"]].tolist() == [2, 2, 16, 512]
    B = _t(imported, "blocks")
    b0, b1 = B[B["launch"] == 0].to_dict("records")
    # block 0: each warp loads 32 consecutive words (base + stride 4): one line each; its stores hit 32 banks
    assert (b0["warp_instrs"], b0["global_requests"], b0["shared_instrs"], b0["shared_ways"]) == (14, 2, 2, 2)
    # block 1, warp 0: base + deltas 16, 16, 16, 2000, then 16s: 0x2000-0x2030 and 0x2800-0x29b0 = 1 + 4 lines;
    # its 16-lane store strides 128 bytes: every word in one bank, a 16-way conflict; warp 1 jumps past it
    assert (b1["warp_instrs"], b1["global_requests"], b1["shared_instrs"], b1["shared_ways"]) == (13, 6, 1, 16)
    assert b1["thread_instrs"] == 6 * 32 + 16 + 6 * 32
    I = _t(imported, "instructions")
    assert I["pc"].tolist() == list(range(8))                                 # byte offsets / 16
    row = I.set_index("pc")
    assert row.loc[2, ["opclass", "space", "width_bytes"]].tolist() == ["load", "global", 4]
    assert row.loc[0, "opclass"] == "int_mul" and row.loc[3, "opclass"] == "fp32"
    assert list(row.loc[0, "src_regs"]) == [] and list(row.loc[3, "src_regs"]) == [4]    # R255 is the zero register
    assert list(row.loc[7, "src_regs"]) == [256]                               # the guard @P0
    # basic blocks: warp 1 of block 1 jumps from pc 2 to pc 5, and from the branch at 7 back to 6
    assert row["bb"].tolist() == [0, 0, 0, 0, 0, 1, 2, 3]
    T = _t(imported, "warp_trace")
    lines = T[(T["launch"] == 0) & (T["warp"] == 2) & (T["pc"] == 2)]["lines"].iloc[0].tolist()
    assert lines == [0x7E0000002000, 0x7E0000002800, 0x7E0000002880, 0x7E0000002900, 0x7E0000002980]


def test_imports_are_byte_identical(imported, tmp_path):
    import_traceg("tg", DATA / "kernelslist.g", tmp_path, progress=False)
    for name in ("launches", "blocks", "warps", "instructions", "warp_trace"):
        assert (tmp_path / f"{name}.parquet").read_bytes() == (imported / f"{name}.parquet").read_bytes()


def test_an_imported_trace_simulates_and_analyses(imported):
    from pipeline_lib.gpumech.analysis import GPUMech
    from pipeline_lib.sim.hardware import load_hardware
    from pipeline_lib.sim.simulator import Simulator
    from pipeline_lib.sim.trace_reader import TraceDir
    tr = TraceDir(imported)
    for hw in ("gpumech-baseline", "volta-v100"):
        sim = Simulator(load_hardware(hw), tr).run().launches
        assert (sim["warp_instrs"] == 27).all() and (sim["cycles"] > 27).all()
    p = GPUMech(load_hardware("gpumech-baseline")).run(tr)["predictions"]
    assert p["cpi"].notna().all() and (p["cpi"] > 0).all()


def _kernel(tmp_path, body, header=None):
    lines = (header or ["-kernel name = k", "-grid dim = (1,1,1)", "-block dim = (32,1,1)", "-nregs = 8",
                        "-shmem = 0", "-binary version = 70"]) + ["#BEGIN_TB", "thread block = 0,0,0"] + body
    (tmp_path / "kernel-1.traceg").write_text("\n".join(lines) + "\n")
    (tmp_path / "kernelslist.g").write_text("kernel-1.traceg\n")
    return tmp_path / "kernelslist.g"


def test_wide_loads_write_their_register_quad_and_guards_are_sources(tmp_path):
    (tmp_path / "in").mkdir()
    ks = _kernel(tmp_path / "in", [
        "warp = 0", "insts = 2",
        "0000 ffffffff 1 R4 LDG.E.128.SYS 1 R2 16 1 0x1000 16",
        "0010 ffffffff 0 EXIT 0 0", "#END_TB"])
    out = tmp_path / "out"
    import_traceg("k", ks, out, progress=False)
    row = _t(out, "instructions").set_index("pc").loc[0]
    assert list(row["dst_regs"]) == [4, 5, 6, 7] and row["width_bytes"] == 16
    assert _t(out, "warp_trace").loc[0, "nreq"] == 4          # 32 lanes x 16 bytes = 4 lines


@pytest.mark.parametrize("body, message", [
    (["warp = 0", "insts = 3", "0000 ffffffff 0 NOP 0 0", "0010 ffffffff 0 EXIT 0 0", "#END_TB"],
     r"kernel-1.traceg:13: truncated block: warp 0 of block 0 has 1 instruction"),
    (["warp = 0", "insts = 1", "0000 fffffffff 0 EXIT 0 0", "#END_TB"],
     r"kernel-1.traceg:11: bad active mask 'fffffffff'"),
    (["warp = 0", "insts = 1", "0000 ffffffff 1 R1 TEX.SCR 0 0", "#END_TB"],
     r"kernel-1.traceg: unknown SASS opcode 'TEX'"),
    (["warp = 0", "insts = 1", "0000 ffffffff 1 R1 LDG.E 1 R2 4 1 0x1000", "#END_TB"],
     r"kernel-1.traceg:11: truncated address list"),
    (["warp = 0", "insts = 1", "0000 ffffffff 0 EXIT 0 0"],
     r"truncated block at the end of the file"),
])
def test_malformed_input_names_file_and_line_and_writes_nothing(tmp_path, body, message):
    (tmp_path / "in").mkdir()
    ks = _kernel(tmp_path / "in", body)
    out = tmp_path / "out"
    with pytest.raises(TraceFormatError, match=message):
        import_traceg("k", ks, out, progress=False)
    assert not out.exists() or not any(out.iterdir())


def test_a_traceg_workload_runs_through_the_workflow(tmp_path):
    """The config's traceg kind: trace (import), simulate, TBPoint's sampled
    simulation and GPUMech's analysis of the imported workload."""
    shutil.copytree(DATA, tmp_path / "tg")
    cfg = {"results_dir": "results", "workloads": {"tg": {"traceg": "tg/kernelslist.g"}},
           "simulate": {"hardware": ["volta-v100"]}, "tbpoint": {"hardware": ["volta-v100"], "sensitivity": []},
           "gpumech": {"hardware": ["volta-v100"], "sweeps": {}}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    targets = ["results/sim/tg/volta-v100/summary.json", "results/tbpoint/tg/volta-v100/sampled.parquet",
               "results/gpumech/tg/volta-v100/predictions.parquet", "results/traceg/tg"]
    r = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--configfile", "c.yaml",
                        "--cores", "2", *targets], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    assert all((tmp_path / t).exists() for t in targets)
    assert (tmp_path / "results/traceg/tg/kernel-2.traceg.xz").exists()       # exported again
    # editing a kernel trace reruns the import and what follows
    k = tmp_path / "tg" / "kernel-1.traceg"
    k.write_text(k.read_text().replace("0030 ffffffff 1 R5 FADD 2 R4 R4 0", "0030 ffffffff 1 R5 FMUL 2 R4 R4 0"))
    r = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--configfile", "c.yaml",
                        "--cores", "2", "-n", *targets], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0 and "rule trace:" in r.stdout + r.stderr


ROUND_TRIP = {   # shared memory, shuffles with two outputs and parameter loads; atomics; several kernels
    "red": {"benchmark": "reduction", "size": "small", "seed": 1, "params": {}},
    "hist": {"benchmark": "histogram", "size": "small", "seed": 1, "params": {}},
    "bfs": {"benchmark": "bfs", "size": "small", "seed": 1, "params": {}},
}


@pytest.mark.parametrize("wl", sorted(ROUND_TRIP))
def test_export_then_import_gives_the_same_stream_and_cycles(tmp_path_factory, wl):
    """Accel-Sim's format round trip on our own workloads: every warp
    instruction comes back with its PC, mask, space (parameter loads as
    constant loads: SASS keeps parameters in a constant bank), requests and
    lines, every executed PC with its class, and the simulation gives the
    same cycles."""
    from conftest import trace_specs

    import numpy as np

    from pipeline_lib.sim.hardware import load_hardware
    from pipeline_lib.sim.simulator import Simulator
    from pipeline_lib.sim.trace_reader import TraceDir
    src = trace_specs(tmp_path_factory, {wl: ROUND_TRIP[wl]})[wl]
    out = tmp_path_factory.mktemp("export")
    summary = export_traceg(src, out / "tg")
    assert summary["dropped_register_operands"]["sources"] == 0
    again = out / "tg2"
    export_traceg(src, again)
    assert all((out / "tg" / f.name).read_bytes() == f.read_bytes() for f in again.iterdir())   # deterministic
    import_traceg(wl, out / "tg" / "kernelslist.g", out / "back", progress=False)
    a, b = TraceDir(src), TraceDir(out / "back")
    for lid in a.launches["launch"]:
        x, y = a.launch_trace(lid), b.launch_trace(lid)
        for f in ("warp_off", "pc", "nthreads", "nreq", "line_off", "lines"):
            assert np.array_equal(getattr(x, f), getattr(y, f)), f
        assert np.array_equal(np.where(x.space == 5, 4, x.space), y.space)
    ia, ib = a.instructions.set_index(["kernel", "pc"]), b.instructions.set_index(["kernel", "pc"])
    rows = _t(out / "back", "warp_trace")[["launch", "pc"]].merge(b.launches[["launch", "kernel"]])
    executed = rows.drop_duplicates(["kernel", "pc"]).set_index(["kernel", "pc"]).index
    assert (ia.loc[executed, "opclass"] == ib.loc[executed, "opclass"]).all()
    hw = load_hardware("gpumech-baseline")
    assert np.array_equal(Simulator(hw, a).run().launches["cycles"], Simulator(hw, b).run().launches["cycles"])


LANES = {"red": ROUND_TRIP["red"], "hist": ROUND_TRIP["hist"],
         # local memory (interleaved per warp) and constant loads
         "lbm": {"benchmark": "lbm", "size": "small", "seed": 1, "params": {"nx": 64, "ny": 8, "steps": 1}}}


@pytest.mark.parametrize("wl", sorted(LANES))
def test_lane_addresses_give_back_the_recorded_requests_and_change_nothing_else(tmp_path, wl):
    """trace.lane_addresses: the optional column holds every executing
    lane's address; from them the importer's own counting gives the
    recorded lines, conflict degrees and distinct constant addresses; every
    other column and table is the same as without it; and the export then
    carries these real addresses through the round trip."""
    import numpy as np

    from pipeline_lib.sim.trace_reader import TraceDir
    from pipeline_lib.trace.generate import trace_workload
    from pipeline_lib.trace.traceg import _requests
    plain, lanes = tmp_path / "plain", tmp_path / "lanes"
    trace_workload(wl, LANES[wl], plain, chunk_records=5000, progress=False)
    trace_workload(wl, LANES[wl], lanes, chunk_records=5000, progress=False, lane_addresses=True)
    for name in ("launches", "blocks", "warps", "instructions"):
        assert (plain / f"{name}.parquet").read_bytes() == (lanes / f"{name}.parquet").read_bytes()
    a, b = _t(plain, "warp_trace"), _t(lanes, "warp_trace")
    assert "lane_addrs" not in a and "lane_addrs" in b
    pd.testing.assert_frame_equal(a, b.drop(columns="lane_addrs"))
    checked = 0
    for r in b[b["space"] != 0].itertuples():
        addrs = list(r.lane_addrs)
        assert len(addrs) == bin(int(r.mask)).count("1")
        nreq, lines = _requests(addrs, int(r.space), 0x7E0000000000)
        if r.space in (1, 2, 3, 4):
            assert nreq == r.nreq and lines == list(r.lines), r
            checked += 1
    assert checked > 0
    summary = export_traceg(lanes, tmp_path / "tg")
    import_traceg(wl, tmp_path / "tg" / "kernelslist.g", tmp_path / "back", progress=False)
    x, y = TraceDir(lanes), TraceDir(tmp_path / "back")
    for lid in x.launches["launch"]:
        for f in ("pc", "nreq", "lines"):
            assert np.array_equal(getattr(x.launch_trace(lid), f), getattr(y.launch_trace(lid), f))
    assert summary["launches"] == len(x.launches)
