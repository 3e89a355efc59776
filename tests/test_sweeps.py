"""Design-space sweep tables (pipeline_lib.sweeps)."""
import pandas as pd
import pytest

from pipeline_lib.sweeps import sweep_points, sweep_table


def test_sweep_table_has_fields_time_energy_and_power(tmp_path):
    pts = sweep_points("b", {"sm": [2, 4], "cc": [500]})
    assert [p["name"] for p in pts] == ["b-sm2-cc500", "b-sm4-cc500"]
    rows = [{"point": p, "workload": "w", "core_clock_mhz": 500,
             "summary": {"cycles": 1000 * p["sm"], "warp_instrs": 4000, "ipc": 4 / p["sm"]},
             "power": pd.DataFrame({"energy_j": [1e-6, 1e-6]})} for p in pts]
    t = sweep_table("grid", rows, tmp_path / "points.parquet")
    back = pd.read_parquet(tmp_path / "points.parquet")
    assert back["point"].tolist() == ["b-sm2-cc500", "b-sm4-cc500"] and back["sm"].tolist() == [2, 4]
    assert back["cc"].tolist() == [500, 500]
    # 2,000 cycles at 500 MHz = 4 us; 2 uJ over 4 us = 0.5 W
    assert back.loc[0, "seconds"] == pytest.approx(4e-6) and back.loc[0, "dynamic_power_w"] == pytest.approx(0.5)
    assert len(t) == 2
    assert back["sampled"].tolist() == [False, False]       # full simulations' summaries say nothing of sampling
    rows[1]["summary"]["sampled"] = True
    assert sweep_table("grid", rows, tmp_path / "p2.parquet")["sampled"].tolist() == [False, True]


def test_sweep_batches_chunk_a_sweeps_points_in_order():
    from pipeline_lib.sweeps import sweep_batches, sweep_points
    pts = sweep_points("x", {"sm": [1, 2, 3], "mc": [7, 8]})
    assert sweep_batches(pts, 4) == [["x-sm1-mc7", "x-sm1-mc8", "x-sm2-mc7", "x-sm2-mc8"], ["x-sm3-mc7", "x-sm3-mc8"]]
    assert sweep_batches(pts, 1) == []          # one job per point: rule simulate
    assert sum(sweep_batches(pts, 6), []) == [p["name"] for p in pts]
