"""The detailed simulator's outputs against a recorded reference: a speed
change to the engine must not change a simulated number.

``data/simulator_reference.json`` holds, for small traces of three
workloads (memory-bound and divergent ``spmv``, ``hotspot`` with its
barriers, ``bfs`` with many launches) on the configurations below (the
round-robin and greedy-then-oldest schedulers, 32 and 64 warp slots, an
issue width of two, with and without the stall breakdown), each launch's
cycles and a digest of every output table.  It was recorded with the
engine as it was before its schedulers took the ready warps from a mask
(docs/simulator.md, Speed), whose round-robin scheduler scanned every slot
in turn: the two agree on every table.

Record it again only for a change that is meant to move simulated numbers:
``RECORD_SIMULATOR_REFERENCE=1 .venv/bin/python -m pytest
tests/test_simulator_reference.py``, and say why in the commit.
"""
import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

from pipeline_lib.sim import load_hardware
from pipeline_lib.sim.simulator import Simulator
from pipeline_lib.sim.trace_reader import TraceDir
from conftest import trace_specs

REFERENCE = Path(__file__).parent / "data" / "simulator_reference.json"
SPECS = {
    "spmv": {"benchmark": "spmv", "size": "small", "seed": 1, "params": {}},
    "hotspot": {"benchmark": "hotspot", "size": "small", "seed": 1, "params": {}},
    "bfs": {"benchmark": "bfs", "size": "small", "seed": 1, "params": {}},
}
#: (case, hardware name, issue width or None for the configuration's, stall breakdown)
CASES = [
    ("rr", "gpumech-baseline", None, False),
    ("rr-stalls", "gpumech-baseline", None, True),
    ("rr-w64-stalls", "gpumech-baseline-w64", None, True),
    ("rr-iw2-stalls", "gpumech-baseline", 2, True),
    ("gto", "gpumech-baseline-gto", None, False),
    ("gto-w64-stalls", "gpumech-baseline-gto-w64", None, True),
]
TABLES = ("launches", "sms", "blocks", "pcs", "units", "activity", "stalls")


def table_digest(df) -> str:
    """sha256 over a table's column names and values, column by column."""
    h = hashlib.sha256()
    for col in df.columns:
        h.update(str(col).encode())
        v = df[col].to_numpy()
        h.update(np.ascontiguousarray(v).tobytes() if v.dtype.kind in "iufb" else "\0".join(map(str, v)).encode())
    return h.hexdigest()


def summary(trace_dirs: dict) -> dict:
    """{case: {workload: {"cycles": per launch, "tables": {table: digest}}}}."""
    out = {}
    for case, name, width, stalls in CASES:
        hw = load_hardware(name)
        if width is not None:
            hw = {**hw, "issue_width": width}
        out[case] = {}
        for wl, d in sorted(trace_dirs.items()):
            res = Simulator(hw, TraceDir(d), stall_breakdown=stalls).run()
            out[case][wl] = {"cycles": [int(c) for c in res.launches["cycles"]],
                             "tables": {t: table_digest(getattr(res, t)) for t in TABLES
                                        if getattr(res, t) is not None}}
    return out


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    return trace_specs(tmp_path_factory, SPECS)


def test_outputs_are_the_recorded_ones(traces):
    got = summary(traces)
    if os.environ.get("RECORD_SIMULATOR_REFERENCE") == "1":
        REFERENCE.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    want = json.loads(REFERENCE.read_text())
    for case in want:
        for wl in want[case]:
            assert got[case][wl]["cycles"] == want[case][wl]["cycles"], (case, wl)
            assert got[case][wl]["tables"] == want[case][wl]["tables"], (case, wl)
    assert got.keys() == want.keys()


def test_more_warp_slots_than_the_mask_holds_are_refused():
    """A configuration built without load_hardware (whose schema caps the
    warp slots) is refused before it could simulate with a short mask."""
    hw = load_hardware("gpumech-baseline")
    hw = {**hw, "sm_limits": {**hw["sm_limits"], "warps": 65, "threads": 65 * 32}}
    with pytest.raises(ValueError, match="sm_limits.warps = 65: at most 64 warp slots per SM"):
        Simulator(hw, None, label="x")     # refused before it reads the trace
