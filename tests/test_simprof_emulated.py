"""SimProf's emulated counter mode (pipeline_lib/simprof/emulated.py and
qemu/simprof_counter.c): the plugin builds, counts each thread's
instructions of a program whose count is known, attributes them to the
right Linux thread ids (a JVM's too), and its cache model misses where a
cache of that size must."""
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import needs_system
from pipeline_lib.simprof import emulated, units

DATA = Path(__file__).resolve().parent / "data" / "simprof"
MODEL = {"window": 10_000_000, "line_bytes": 64, "l1_kb": 32, "l1_ways": 8, "l1i_kb": 32, "l1i_ways": 8,
         "l2_kb": 1024, "l2_ways": 16,
         "predictor_bits": 14, "base_cpi": 1.0, "l2_latency": 12, "memory_latency": 200, "mispredict_penalty": 15}


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    ok, why = emulated.available()
    needs_system(None if ok else f"the emulated counter mode's tools are missing: {why}")
    return emulated.build_plugin(tmp_path_factory.mktemp("plugin"))


def _native(tmp_path, name: str, *flags) -> Path:
    exe = tmp_path / name
    subprocess.run(["gcc", "-O1", "-static", *flags, "-o", str(exe), str(DATA / f"{name}.c")], check=True)
    return exe


def _emulate(plugin, tmp_path, cmd, **model) -> tuple[pd.DataFrame, str]:
    out = tmp_path / "records.txt"
    option = emulated.plugin_option(plugin, out, {**MODEL, **model})
    res = subprocess.run([emulated.qemu_binary(), "-plugin", option, *map(str, cmd)], capture_output=True, text=True,
                         check=True, timeout=300)
    return emulated.read_records(out), res.stdout


def _totals(records: pd.DataFrame) -> pd.DataFrame:
    return records.groupby("os_tid").last()


def test_the_plugin_counts_each_threads_instructions_within_one_percent(plugin, tmp_path):
    exe = _native(tmp_path, "loops", "-pthread")
    rec, stdout = _emulate(plugin, tmp_path, [exe, 25_000_000, 12_500_000])
    printed = {int(line.split()[1]): int(line.split()[3]) for line in stdout.splitlines()}   # tid -> iterations
    totals = _totals(rec)
    assert set(printed) <= set(totals.index)
    for tid, n in printed.items():
        # 4 instructions per iteration, plus the thread's start-up and printing
        assert totals.loc[tid, "instructions"] == pytest.approx(4 * n, rel=0.01)
    # a record at every 10 M instructions of a thread, its counts growing
    main = rec[rec["os_tid"] == max(printed, key=printed.get)]
    assert len(main) >= 10 and main["instructions"].is_monotonic_increasing
    assert main["time_ns"].is_monotonic_increasing


def test_the_cache_model_misses_where_a_cache_of_that_size_must(plugin, tmp_path):
    """16 KB read 50 times, line by line (256 lines): a 32 KB L1 misses on
    the first pass only, an 8 KB one on every pass; the 1 MB L2 holds it."""
    exe = _native(tmp_path, "sweep")
    big = _totals(_emulate(plugin, tmp_path, [exe, 16, 50])[0]).iloc[0]
    small = _totals(_emulate(plugin, tmp_path, [exe, 16, 50], l1_kb=8)[0]).iloc[0]
    lines = 16 * 1024 // 64
    assert big["mem_accesses"] >= 50 * lines
    assert big["l1_misses"] < 2 * lines + 2000                       # first pass, plus start-up
    assert small["l1_misses"] > 50 * lines
    assert small["l2_misses"] == pytest.approx(big["l2_misses"], abs=200)


def test_a_jvms_threads_are_counted_under_their_linux_ids(plugin, tmp_path):
    needs_system(None if shutil.which("javac") else "javac not found")
    subprocess.run(["javac", "-d", str(tmp_path), str(DATA / "Spin.java")], check=True)
    java = str(Path(shutil.which("java")).resolve())
    rec, stdout = _emulate(plugin, tmp_path, [java, "-Xshare:auto", "-cp", tmp_path, "Spin", 5_000_000])
    tids = [int(line.split()[1]) for line in stdout.splitlines() if line.startswith("tid ")]
    totals = _totals(rec)
    assert len(tids) == 2 and set(tids) <= set(totals.index)
    # 5 M iterations of a multiply-add loop are at least 10 M instructions, interpreted or compiled
    assert (totals.loc[tids, "instructions"] > 10_000_000).all()


def test_the_predictor_learns_a_regular_branch_and_misses_half_of_a_random_one(plugin, tmp_path):
    """2 M iterations of a loop whose one data-dependent branch alternates
    (gshare's history learns it) or follows a random bit (a predictor can do
    no better than chance): about 1 M mispredictions more in the second, and
    3 conditional jumps an iteration in both."""
    exe = _native(tmp_path, "branches")
    n = 2_000_000
    regular = _totals(_emulate(plugin, tmp_path, [exe, n, 0])[0]).iloc[0]
    random = _totals(_emulate(plugin, tmp_path, [exe, n, 1])[0]).iloc[0]
    for t in (regular, random):
        assert t["branches"] == pytest.approx(3 * n, rel=0.01)
    assert regular["mispredicts"] < 0.01 * n
    assert random["mispredicts"] - regular["mispredicts"] == pytest.approx(n / 2, rel=0.05)
    # without history (1 bit: two counters) the alternating branch is missed too
    blind = _totals(_emulate(plugin, tmp_path, [exe, n, 0], predictor_bits=1)[0]).iloc[0]
    assert blind["mispredicts"] > 0.4 * n


def test_the_instruction_cache_misses_where_a_cache_of_that_size_must(plugin, tmp_path):
    """A loop body of about 5 KB of code (77 lines), 1,000 passes: a 32 KB
    L1-I misses on the first pass only (and on start-up's code), a 1 KB one
    on every line of every pass; the L2 holds the loop either way."""
    exe = _native(tmp_path, "bigloop")
    passes = 1000
    big = _totals(_emulate(plugin, tmp_path, [exe, passes])[0]).iloc[0]
    small = _totals(_emulate(plugin, tmp_path, [exe, passes], l1i_kb=1, l1i_ways=1)[0]).iloc[0]
    assert big["l1i_misses"] < 2000 and big["l2i_misses"] <= big["l1i_misses"]
    assert small["l1i_misses"] > 70 * passes
    assert small["l2i_misses"] == big["l2i_misses"]


def test_bad_plugin_arguments_stop_qemu_with_a_message(plugin, tmp_path):
    exe = _native(tmp_path, "sweep")
    res = subprocess.run([emulated.qemu_binary(), "-plugin", f"{plugin},out={tmp_path / 'r.txt'},window=ten",
                          str(exe), "1", "1"], capture_output=True, text=True)
    assert res.returncode != 0 and "window=ten is not a whole number" in res.stderr
    with pytest.raises(ValueError, match="l1_kb must be a positive whole number"):
        emulated.plugin_option(plugin, tmp_path / "r.txt", {**MODEL, "l1_kb": 0})


def test_records_are_read_strictly_and_turned_into_a_modelled_cpi(tmp_path):
    f = tmp_path / "records.txt"
    f.write_text(" ".join(emulated.RECORD_COLUMNS) + "\n"
                 "2000 7 20000000 5000000 100000 10000 50000 2000 3000000 30000\n"
                 "1000 7 10000000 2500000 20000 1000 20000 1000 1500000 10000\n")
    rec = emulated.read_records(f)
    assert rec["time_ns"].tolist() == [1000, 2000]                 # sorted by thread and time
    # cycles = 1.0 x instructions + 12 x L1 misses (data and instruction) + 200 x L2 misses + 15 x mispredicts
    assert emulated.modelled_cycles(rec, MODEL).tolist() == [11_030_000.0, 24_650_000.0]
    perf = emulated.perf_table(rec, MODEL)
    assert perf["cache_misses"].tolist() == [2000, 12000] and (perf["task_clock_ns"] == -1).all()
    # the model's counts stay beside the events, so the cycles can be recomputed from the table
    assert perf["mispredicts"].tolist() == [10000, 30000] and perf["l1i_misses"].tolist() == [20000, 50000]
    assert emulated.modelled_cycles(perf, MODEL).tolist() == perf["cycles"].tolist()
    # units of 10 M instructions: the second one's CPI is 13.62 M cycles / 10 M
    perf["java_tid"] = 3
    u, _ = units.form_units(perf, pd.DataFrame({"time_ns": [], "java_tid": [], "stack": []}),
                            pd.DataFrame({"time_ns": [], "event": [], "java_tid": [], "stage": []}),
                            "emulated", 10_000_000)
    assert u["cpi"].round(3).tolist() == [1.362] and u["cache_mpki"].round(3).tolist() == [1.0]
    f.write_text(" ".join(emulated.RECORD_COLUMNS) + "\n1000 7 10 x 1 1 1 1 1 1\n")
    with pytest.raises(ValueError, match="records.txt: line 2 is not 10 whole numbers"):
        emulated.read_records(f)
    f.write_text("time os_tid\n")
    with pytest.raises(ValueError, match="line 1 is not the plugin's header"):
        emulated.read_records(f)


def test_qemus_own_plugin_abort_is_told_from_a_failed_job(tmp_path):
    log = tmp_path / "job.log"
    log.write_text("INFO ...\nERROR:../../plugins/core.c:473:qemu_plugin_vcpu_mem_cb: code should not be reached\n")
    assert emulated.crashed(log)
    log.write_text("Exception in thread main: java.lang.OutOfMemoryError\n")
    assert not emulated.crashed(log) and not emulated.crashed(tmp_path / "missing.log")


def test_the_emulated_mode_is_chosen_not_guessed(monkeypatch):
    assert units.counter_mode("auto")["counter_mode"] in ("cpu-time", "instructions")
    monkeypatch.setattr(emulated, "available", lambda: (False, "qemu-x86_64 not found on PATH"))
    with pytest.raises(ValueError, match="counter mode 'emulated' needs QEMU's user-mode emulator"):
        units.counter_mode("emulated")
    monkeypatch.setattr(emulated, "available", lambda: (True, "found"))
    assert units.counter_mode("emulated")["counter_mode"] == "emulated"
    assert np.isfinite(units.unit_size("emulated", 50, 100_000_000))
