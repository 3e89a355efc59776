"""Hardware configurations: the shipped files, validation, derived values."""
from pathlib import Path

import pytest
import yaml

from pipeline_lib.sim import HardwareError, dram_bandwidth_gbs, load_hardware, occupancy
from pipeline_lib.sim.hardware import HARDWARE_DIR, variant_name


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
    (lambda c: c["dram"]["fixed_ns"].update(latency=350), "dram.fixed_ns.latency"),
    (lambda c: c["dram"]["fixed_ns"].update(refresh=5), "dram.fixed_ns"),
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


def test_variant_names_compose_fields_of_a_base_file():
    base = load_hardware("tbpoint-fermi")
    v = load_hardware("tbpoint-fermi-sm7-w24")
    assert v["name"] == "tbpoint-fermi-sm7-w24" and v["cores"] == 7
    assert v["sm_limits"]["warps"] == 24 and v["sm_limits"]["threads"] == 24 * 32
    # everything else is the base's
    assert {k: x for k, x in v.items() if k not in ("name", "cores", "sm_limits")} == \
        {k: x for k, x in base.items() if k not in ("name", "cores", "sm_limits")}
    # fewer warps per SM lowers the occupancy of a 256-thread block: 6 -> 3 blocks per SM
    assert occupancy(base, 256, 16, 0)["system_occupancy"] == 6 * 14
    assert occupancy(v, 256, 16, 0)["system_occupancy"] == 3 * 7
    m = load_hardware("gpumech-baseline-cc700-mc900-mshr8")
    assert (m["core_clock_mhz"], m["dram"]["clock_mhz"], m["l1"]["mshrs"]) == (700, 900, 8)
    # DRAM timings keep their DRAM-cycle part and their fixed_ns part: of
    # 300 core cycles at 1000 MHz, 150 ns are fixed and 150 ns are 300 cycles
    # of the 2000 MHz DRAM; at 900 MHz those take 333.3 ns, 483.3 ns in all,
    # 338.3 cycles of a 700 MHz core; the row miss (30 ns, all fixed) is 21
    assert (m["dram"]["latency"], m["dram"]["row_miss_latency"]) == (338, 21)
    assert load_hardware("gpumech-baseline-cc500")["dram"]["latency"] == 150
    assert load_hardware("gpumech-baseline-mc4000")["dram"]["latency"] == 225
    # without fixed_ns the whole timing is DRAM cycles: tbpoint-fermi's 100
    # core cycles at 1150 / 1150 MHz are 100 DRAM cycles, 111.1 ns at 900
    # MHz, 77.8 cycles of a 700 MHz core (30 -> 23.3 for the row miss)
    f = load_hardware("tbpoint-fermi-cc700-mc900")["dram"]
    assert (f["latency"], f["row_miss_latency"]) == (78, 23)
    # the fixed part breaks the homogeneity of the clocks: halving both
    # clocks halves the DRAM-cycle part in core cycles but not the fixed one
    assert load_hardware("gpumech-baseline-cc500-mc1000")["dram"]["latency"] == 225
    assert load_hardware("gpumech-baseline-w16")["dram"] == load_hardware("gpumech-baseline")["dram"]
    assert variant_name("gpumech-baseline", mshr=8, cc=700, mc=900) == "gpumech-baseline-cc700-mc900-mshr8"
    g = load_hardware("gpumech-baseline-gto-w16")
    assert (g["scheduler"], g["sm_limits"]["warps"]) == ("gto", 16)
    assert variant_name("gpumech-baseline", w=16, sched="gto") == "gpumech-baseline-gto-w16"


@pytest.mark.parametrize("name, message", [
    ("tbpoint-fermi-w24-sm7", "in the order .*'tbpoint-fermi-sm7-w24'"),
    ("tbpoint-fermi-x3", "'x3' is not a variant suffix"),
    ("tbpoint-fermi-sm2-sm3", "'sm' given twice"),
    ("tbpoint-fermi-w16-gto", "in the order .*'tbpoint-fermi-gto-w16'"),
    ("tbpoint-fermi-gto-rr", "scheduler given twice"),
    ("tbpoint-fermi-sm0", "invalid field 'cores'"),
    ("tbpoint-fermi-w65", "invalid field 'sm_limits.warps': 65 is greater than the maximum of 64"),
    ("nothing-sm2", "no hardware configuration"),
])
def test_bad_variant_names_are_explained(name, message):
    with pytest.raises(HardwareError, match=message):
        load_hardware(name)


def test_field_table_of_the_docs_is_the_schemas():
    """docs/hardware.md's field table is generated from the schema
    (python -m pipeline_lib.sim --hardware-doc docs/hardware.md)."""
    from pipeline_lib.config import ROOT
    from pipeline_lib.sim.hardware import field_rows, with_doc_table
    doc = (ROOT / "docs" / "hardware.md").read_text()
    assert with_doc_table(doc) == doc, "run: python -m pipeline_lib.sim --hardware-doc docs/hardware.md"
    fields = [f for f, *_ in field_rows()]
    assert "l1.lines_per_cycle" in fields and "dram.fixed_ns" in fields and "sm_limits.warps" in fields


def test_optional_fields_take_the_schemas_default_without_changing_the_configuration():
    from pipeline_lib.sim.hardware import field_value
    hw = load_hardware("gpumech-baseline")
    assert "slice_hash" not in hw["l2"] and "lines_per_cycle" not in hw["l1"]
    assert field_value(hw, "l2.slice_hash") == "modulo"
    assert field_value(hw, "l1.lines_per_cycle") == 1
    assert "lines_per_cycle" not in hw["l1"]              # a rule's hardware slice is unchanged
    assert field_value(hw, "l1.mshrs") == hw["l1"]["mshrs"]
    with pytest.raises(KeyError, match="l1.no_such_field"):
        field_value(hw, "l1.no_such_field")
    del hw["l1"]["mshrs"]
    with pytest.raises(KeyError, match="'l1.mshrs' is missing and has no default"):
        field_value(hw, "l1.mshrs")


def test_engine_configuration_is_declared_once():
    """Every hardware-derived entry of the engine's C vector names a schema
    field or computes from the configuration; the C_* constants are their
    positions."""
    from pipeline_lib.sim import engine as E
    from pipeline_lib.sim.hardware import field_rows
    fields = {f for f, *_ in field_rows()}
    names = [n for n, _ in E.CONFIG_FIELDS]
    assert len(set(names)) == len(names) == E.C_N
    assert [getattr(E, n) for n in names] == list(range(E.C_N))
    for name, source in E.CONFIG_FIELDS:
        if isinstance(source, str):
            assert source in fields, name
    hw = load_hardware("tbpoint-fermi")
    C = E.config_vector(hw)
    assert C[E.C_CORES] == 14 and C[E.C_L1_PORTS] == 1 and C[E.C_L1_SETS] == 16 * 1024 // (128 * 8)
    assert C[E.C_OCC] == 0


def test_engine_config_is_a_frozen_typed_record_of_the_declared_table():
    import dataclasses

    from pipeline_lib.sim import engine as E
    hw = load_hardware("tbpoint-fermi")
    cfg = E.EngineConfig.from_hardware(hw)
    assert cfg.cores == 14 and cfg.l1_sets == 16 * 1024 // (128 * 8) and cfg.gto == (hw["scheduler"] == "gto")
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.cores = 7
    # one attribute per hardware-derived entry, none for the per-launch ones
    names = {f.name for f in dataclasses.fields(cfg)}
    assert names == {n[2:].lower() for n, source in E.CONFIG_FIELDS if source is not None}
    assert "occ" not in names and "l1_ports" in names
    assert all(isinstance(getattr(cfg, n), int) for n in names)
    C = cfg.vector()
    assert all(C[getattr(E, "C_" + n.upper())] == getattr(cfg, n) for n in names)
    assert (C == E.config_vector(hw)).all()
    assert E.EngineConfig.from_hardware(load_hardware("tbpoint-fermi-sm7")).cores == 7


def test_variants_change_only_what_the_engine_reads_at_run_time():
    """One compiled engine serves a whole sweep: every hardware variant key
    (the SM count, warps, scheduler, clocks, MSHRs) changes only entries of
    C that the engine reads at run time, never its compiled-in structure."""
    from pipeline_lib.sim import engine as E
    from pipeline_lib.sim.hardware import VARIANT_FIELDS, variant_name
    values = {"sched": "gto", "sm": 3, "w": 8, "cc": 700, "mc": 900, "mshr": 8}
    assert set(values) == set(VARIANT_FIELDS)
    for base in ("gpumech-baseline", "tbpoint-fermi"):
        C = E.config_vector(load_hardware(base))
        for key, value in values.items():
            V = E.config_vector(load_hardware(variant_name(base, **{key: value})))
            assert (V != C).any(), (base, key)
            assert E.structure(V) == E.structure(C), (base, key)
    # the structure itself is compiled in: another cache is another engine
    fermi, baseline = (E.structure(E.config_vector(load_hardware(n))) for n in ("tbpoint-fermi", "gpumech-baseline"))
    assert fermi != baseline


def test_engine_reads_the_structure_from_k_and_the_rest_from_c():
    """Inside the engine's functions, K[...] (compiled-in constants) is read
    only for structural entries and C[...] only for the entries read at run
    time: a variant's value read from K would be the compiled one."""
    import re
    from pipeline_lib.sim import engine as E
    source = Path(E.__file__).read_text()
    code = source[source.index("@njit"):]
    from_k = set(re.findall(r"\bK\[(C_[A-Z0-9_]+)\]", code))
    from_c = set(re.findall(r"\bC\[(C_[A-Z0-9_]+)\]", code))
    assert from_k and from_c
    assert not from_k & E.RUNTIME_FIELDS, from_k & E.RUNTIME_FIELDS
    assert from_c <= E.RUNTIME_FIELDS, from_c - E.RUNTIME_FIELDS
    assert {"C_L1_SETS", "C_L2_SLICES", "C_CH", "C_BANKS"} <= from_k and "C_CORES" in from_c


def test_an_engine_is_compiled_per_structure_and_shared_by_variants():
    from pipeline_lib.sim import engine as E
    from pipeline_lib.sim.specialized import K_LINE, engine_for
    base = engine_for(E.config_vector(load_hardware("gpumech-baseline")))
    assert engine_for(E.config_vector(load_hardware("gpumech-baseline-sm4-cc500-mc1000-mshr8"))) is base
    other = engine_for(E.config_vector(load_hardware("tbpoint-fermi")))
    assert other is not base and E.K is None
    assert base.K == E.structure(E.config_vector(load_hardware("gpumech-baseline")))
    text = Path(base.__file__).read_text()
    assert K_LINE not in text and text.replace(f"K = {base.K!r}\n", K_LINE) == Path(E.__file__).read_text()
    stamp = Path(base.__file__).stat().st_mtime_ns
    from pipeline_lib.sim import specialized
    specialized._loaded.clear()       # a new process: the copy is found, not written again
    again = engine_for(E.config_vector(load_hardware("gpumech-baseline")))
    assert again.__file__ == base.__file__ and Path(again.__file__).stat().st_mtime_ns == stamp


def test_memory_space_codes_are_defined_once():
    """The trace's space codes come from ptx.isa everywhere (the static
    table's SP_MIXED is isa's generic code)."""
    from pipeline_lib.ptx import isa
    from pipeline_lib.sim import engine as E
    from pipeline_lib.sim import static as S
    for name in ("SP_NONE", "SP_GLOBAL", "SP_SHARED", "SP_LOCAL", "SP_CONST", "SP_PARAM", "SP_MIXED"):
        assert getattr(S, name) == getattr(isa, name)
    assert S.SP_MIXED == isa.SP_GENERIC == isa.SPACES.index("generic")
    assert E.SP_MIXED == S.SP_MIXED and E.P_KIND == S.P_KIND
