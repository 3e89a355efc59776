import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def trace_specs(tmp_path_factory, specs: dict, chunk_records: int = 5000) -> dict:
    """Trace every workload of ``specs`` ({id: spec}) into its own temporary directory."""
    from pipeline_lib.trace.generate import trace_workload

    out = {}
    for wl, spec in specs.items():
        d = tmp_path_factory.mktemp(wl)
        trace_workload(wl, spec, d, chunk_records=chunk_records, progress=False)
        out[wl] = d
    return out


def needs_system(why: str | None) -> None:
    """Skip the calling test when ``why`` says a system component it needs is
    missing (Debian's SLURM, munge or Chromium: ``make system-packages``);
    fail it instead where PIPELINE_REQUIRE_SYSTEM_TESTS=1, as CI sets, so
    that these tests cannot silently stop running."""
    import os

    import pytest

    if not why:
        return
    if os.environ.get("PIPELINE_REQUIRE_SYSTEM_TESTS") == "1":
        pytest.fail(f"PIPELINE_REQUIRE_SYSTEM_TESTS=1 but {why}")
    pytest.skip(why)
