"""benchmarks/same_tables.py: two runs' tables compare equal when only their
provenance differs, and a changed value, type or file is caught (the check
behind "same outputs" for speed changes, docs/simulator.md, Speed)."""
import json
import sys
from pathlib import Path

import pyarrow as pa

from pipeline_lib.io.atomic import write_table

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import same_tables  # noqa: E402


def _run(d: Path, cycles: list, commit: str) -> Path:
    (d / "wl").mkdir(parents=True)
    # written as the stages write tables, with the provenance stamp, its commit set per run
    write_table(pa.table({"launch": [0, 1], "cycles": cycles}), d / "wl" / "sampled.parquet",
                metadata={"git_commit": commit})
    (d / "wl" / "sampled.json").write_text(json.dumps({"error": 0.5, "sample": 10}))
    return d


def test_provenance_alone_does_not_count_and_a_value_does(tmp_path):
    a = _run(tmp_path / "a", [100, 200], "abc")
    b = _run(tmp_path / "b", [100, 200], "abc-dirty")
    assert [v for _, v in same_tables.compare(a, b, "**/*")] == ["same", "same"]

    c = _run(tmp_path / "c", [100, 201], "abc")
    assert dict(same_tables.compare(a, c, "**/*"))["wl/sampled.parquet"] == "DIFFERENT"

    d = _run(tmp_path / "d", [100.0, 200.0], "abc")       # the same numbers as another type
    assert dict(same_tables.compare(a, d, "**/*"))["wl/sampled.parquet"] == "DIFFERENT"

    (c / "wl" / "sampled.json").write_text(json.dumps({"error": 0.51, "sample": 10}))
    assert dict(same_tables.compare(a, c, "**/*"))["wl/sampled.json"] == "DIFFERENT"

    (b / "wl" / "sampled.json").unlink()
    assert dict(same_tables.compare(a, b, "**/*"))["wl/sampled.json"] == "missing"
