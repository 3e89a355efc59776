"""Hardware configurations: the shipped files, validation, derived values."""
import pytest
import yaml

from pipeline_lib.sim import HardwareError, dram_bandwidth_gbs, load_hardware, occupancy
from pipeline_lib.sim.hardware import HARDWARE_DIR


def test_tbpoint_fermi_matches_table5():
    hw = load_hardware("tbpoint-fermi")
    assert hw["cores"] == 14 and hw["core_clock_mhz"] == 1150 and hw["issue_width"] == 1
    assert hw["l1"]["size_bytes"] == 16 * 1024 and hw["l1"]["assoc"] == 8 and hw["l1"]["line_bytes"] == 128
    assert hw["l2"]["size_bytes"] == 768 * 1024 and hw["l2"]["assoc"] == 8
    d = hw["dram"]
    assert (d["channels"], d["banks"], d["page_bytes"], d["scheduler"], d["clock_mhz"]) == (6, 16, 2048, "fr-fcfs", 1150)


def test_gpumech_baseline_matches_table7():
    hw = load_hardware("gpumech-baseline")
    assert hw["cores"] == 16 and hw["core_clock_mhz"] == 1000 and hw["sm_limits"]["threads"] == 1024
    assert hw["l1"]["size_bytes"] == 32 * 1024 and hw["l1"]["hit_latency"] == 25 and hw["l1"]["mshrs"] == 32
    assert hw["l2"]["size_bytes"] == 768 * 1024 and hw["l2"]["hit_latency"] == 120
    assert hw["dram"]["latency"] == 300 and hw["latency"]["fp32"] == 25
    assert dram_bandwidth_gbs(hw) == pytest.approx(192.0)


def _write(tmp_path, name, mutate):
    cfg = yaml.safe_load((HARDWARE_DIR / "gpumech-baseline.yaml").read_text())
    cfg["name"] = name
    mutate(cfg)
    p = tmp_path / f"{name}.yaml"
    p.write_text(yaml.safe_dump(cfg))
    return p


@pytest.mark.parametrize("mutate,field", [
    (lambda c: c.update(scheduler="lrr"), "scheduler"),
    (lambda c: c["l1"].update(mshrs=0), "l1.mshrs"),
    (lambda c: c["dram"].pop("banks"), "dram"),
    (lambda c: c.update(cores="many"), "cores"),
    (lambda c: c["sm_limits"].update(threads=4096), "sm_limits.threads"),
    (lambda c: c["l1"].update(size_bytes=30000), "l1.size_bytes"),
    (lambda c: c["vf_table"].reverse(), "vf_table"),
    (lambda c: c.update(turbo=True), "(top level)"),
])
def test_invalid_field_is_named(tmp_path, mutate, field):
    p = _write(tmp_path, "bad-config", mutate)
    with pytest.raises(HardwareError) as e:
        load_hardware(p)
    assert str(p) in str(e.value) and f"'{field}'" in str(e.value)


def test_unknown_name_lists_known():
    with pytest.raises(HardwareError, match="gpumech-baseline"):
        load_hardware("nope")


def test_name_must_match_file(tmp_path):
    p = _write(tmp_path, "x", lambda c: None)
    p2 = p.with_name("y.yaml")
    p.rename(p2)
    with pytest.raises(HardwareError, match="differs from the file name"):
        load_hardware(p2)


def test_occupancy_limits():
    hw = load_hardware("gpumech-baseline")   # 32 warps, 8 blocks, 1024 threads, 32768 regs, 16 KB
    assert occupancy(hw, 128, 16, 0) == {"sm_occupancy": 8, "system_occupancy": 128, "limited_by": "blocks"}
    assert occupancy(hw, 256, 16, 0)["sm_occupancy"] == 4             # 32 warps / 8
    assert occupancy(hw, 256, 48, 0) == {"sm_occupancy": 2, "system_occupancy": 32, "limited_by": "registers"}
    assert occupancy(hw, 256, 16, 6000)["limited_by"] == "shared"      # 16384 // 6000 = 2
    assert occupancy(hw, 48, 8, 0)["sm_occupancy"] == 8                # 2 warps per block
    with pytest.raises(HardwareError, match="does not fit"):
        occupancy(hw, 1024, 64, 0)
