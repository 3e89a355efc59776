"""Stage versions and the code they stand for (pipeline_lib/versions.py)."""
import json

from pipeline_lib import versions


def test_every_version_is_recorded_on_its_code_as_it_is():
    """Fails after an edit to a stage's code until its version is bumped (if
    the outputs change) and recorded: python -m pipeline_lib.versions --record."""
    recorded = json.loads(versions.LOCK.read_text())
    assert versions.stale(recorded, versions.current()) == []


def test_an_edit_to_a_stages_code_is_noticed(tmp_path):
    (tmp_path / "tbpoint").mkdir()
    src = tmp_path / "tbpoint" / "regions.py"
    src.write_text("SIGMA = 0.2\n")
    (tmp_path / "tbpoint" / "__pycache__").mkdir()
    (tmp_path / "tbpoint" / "__pycache__" / "regions.cpython.pyc").write_bytes(b"\0")
    before = versions.code_digest(["tbpoint"], tmp_path)
    (tmp_path / "tbpoint" / "__pycache__" / "regions.cpython.pyc").write_bytes(b"\1")   # caches do not count
    assert versions.code_digest(["tbpoint"], tmp_path) == before
    src.write_text("SIGMA = 0.3\n")
    after = versions.code_digest(["tbpoint"], tmp_path)
    assert after != before

    now = {"TBPOINT_VERSION": {"version": "5", "digest": after}}
    same_number = versions.stale({"TBPOINT_VERSION": {"version": "5", "digest": before}}, now)
    assert len(same_number) == 1
    assert f"TBPOINT_VERSION 5: its code ({', '.join(versions.COVERS['TBPOINT_VERSION'])}) changed" in same_number[0]
    bumped = versions.stale({"TBPOINT_VERSION": {"version": "4", "digest": before}}, now)
    assert "4 recorded, 5 now" in bumped[0]
    assert versions.stale(now, now) == []


def test_every_cached_stage_has_a_recorded_version():
    names = {n for n in vars(versions) if n.endswith("_VERSION")}
    assert names == set(versions.COVERS)


def test_every_source_file_of_a_cached_stage_is_covered_by_a_version():
    """A new module in a stage's package cannot escape the record."""
    root = versions.PACKAGE
    covered = set()
    for paths in versions.COVERS.values():
        for p in paths:
            q = root / p
            covered |= {f.relative_to(root).as_posix() for f in (q.rglob("*.py") if q.is_dir() else [q])}
    for pkg in ("ptx", "trace", "sim", "tbpoint", "gpumech", "scaling", "simprof"):
        for f in (root / pkg).rglob("*.py"):
            if "__pycache__" in f.parts:     # caches, as in code_digest: the compiled engines' sources
                continue
            name = f.relative_to(root).as_posix()
            assert name in covered or name in versions.UNCOVERED, f"pipeline_lib/{name} is in no versions.COVERS entry"
