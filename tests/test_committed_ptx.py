"""The committed PTX is what nvcc makes from the committed CUDA sources."""
import shutil
import subprocess
import sys

import pytest

from pipeline_lib.workloads.build_ptx import SOURCE_DIRS


def test_every_source_has_ptx_and_ptxas_info():
    for d in SOURCE_DIRS:
        for cu in d.glob("*.cu"):
            assert cu.with_suffix(".ptx").exists(), cu
            assert cu.with_suffix(".ptxas.txt").exists(), cu


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_committed_ptx_matches_nvcc():
    res = subprocess.run([sys.executable, "-m", "pipeline_lib.workloads.build_ptx", "--check"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def test_registers_per_thread_come_from_ptxas():
    from pipeline_lib.ptx import Device
    from pipeline_lib.workloads.base import WORKLOAD_DIR
    mod = Device().load_module(WORKLOAD_DIR / "mst.ptx")
    text = (WORKLOAD_DIR / "mst.ptxas.txt").read_text()
    assert f"Used {mod.kernel('mst_find_min').regs_per_thread} registers" in text
