"""Configuration validation: errors name the file and the field."""
import pytest
import yaml

from pipeline_lib.config import ROOT, ConfigError, load


def test_shipped_configs_are_valid():
    for name in ("config.yaml", "paper.yaml"):
        cfg = load(ROOT / "config" / name)
        assert cfg["workloads"] and cfg["trace"]["warp_trace"] in (True, False)


@pytest.mark.parametrize("cfg,field", [
    ({"workloads": {"a": {"benchmark": "bfs", "size": "huge"}}}, "workloads.a.size"),
    ({"workloads": {"a": {"benchmark": "nope"}}}, "workloads.a.benchmark"),
    ({"workloads": {"a": {"benchmark": "bfs", "params": {"nodes": 3}}}}, "workloads.a.params.nodes"),
    ({"workloads": {"a": {"benchmark": "bfs", "seed": -1}}}, "workloads.a.seed"),
    ({"workloads": {"a": {"benchmark": "bfs"}}, "trace": {"instr_limit": "many"}}, "trace.instr_limit"),
    ({"workloads": {"a": {"benchmark": "bfs"}}, "tracing": {}}, "(top level)"),
    ({"workloads": {}}, "workloads"),
])
def test_invalid_field_is_named(tmp_path, cfg, field):
    p = tmp_path / "my.yaml"
    p.write_text(yaml.safe_dump(cfg))
    with pytest.raises(ConfigError) as e:
        load(p)
    assert str(p) in str(e.value) and f"'{field}'" in str(e.value)


def test_defaults_are_filled(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump({"workloads": {"a": {"benchmark": "bfs"}}}))
    cfg = load(p)
    assert cfg["workloads"]["a"] == {"benchmark": "bfs", "size": "small", "seed": 1, "params": {}, "suite": True}
    assert cfg["trace"]["chunk_records"] == 4_000_000 and cfg["results_dir"] == "results"


def test_broken_yaml(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("workloads: [\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load(p)
