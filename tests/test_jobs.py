"""pipeline_lib.jobs: what a job's log holds, and how a damaged input table is named."""
import json
from types import SimpleNamespace

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline_lib.jobs import PRODUCERS_ENV, CorruptTableError, job_log


def _job(tmp_path, inputs=()):
    return SimpleNamespace(rule="demo", log=[str(tmp_path / "logs" / "demo.log")], input=list(map(str, inputs)),
                           output=[str(tmp_path / "out.txt")])


def test_a_successful_job_logs_its_progress_and_a_closing_line(tmp_path):
    import sys
    sm = _job(tmp_path)
    with job_log(sm):
        print("step 1 of 2", file=sys.stderr)
    log = (tmp_path / "logs" / "demo.log").read_text()
    assert log.startswith("step 1 of 2\n") and "rule demo: done in" in log


def test_a_failed_job_logs_its_traceback(tmp_path):
    sm = _job(tmp_path)
    with pytest.raises(ZeroDivisionError):
        with job_log(sm):
            1 / 0
    log = (tmp_path / "logs" / "demo.log").read_text()
    assert "Traceback (most recent call last)" in log and "ZeroDivisionError" in log and "done in" not in log


def test_a_damaged_input_table_is_named_with_the_rule_that_writes_it(tmp_path, monkeypatch):
    good, bad = tmp_path / "t" / "good.parquet", tmp_path / "t" / "bad.parquet"
    good.parent.mkdir()
    pq.write_table(pa.table({"x": [1, 2, 3]}), good)
    pq.write_table(pa.table({"x": list(range(1000))}), bad)
    bad.write_bytes(bad.read_bytes()[:100])
    monkeypatch.setenv(PRODUCERS_ENV, json.dumps([[str(tmp_path / "t") + r"/(?P<n>.+)\.parquet", "maker"]]))
    sm = _job(tmp_path, [good, bad])
    with pytest.raises(CorruptTableError) as e:
        with job_log(sm):
            pq.read_table(bad)
    assert str(e.value).startswith(f"{bad}: not a readable Parquet table")
    assert f"(written by rule maker): snakemake --forcerun {bad}" in str(e.value)
    assert "CorruptTableError" in (tmp_path / "logs" / "demo.log").read_text()
