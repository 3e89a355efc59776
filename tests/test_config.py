"""Configuration validation: errors name the file and the field."""
import pytest
import yaml

from pipeline_lib.config import ROOT, ConfigError, load


def test_shipped_configs_are_valid():
    for name in ("config.yaml", "paper.yaml"):
        cfg = load(ROOT / "config" / name)
        assert cfg["workloads"] and cfg["trace"]["warp_trace"] in (True, False)


def test_paper_overlay_merges_into_paper_config():
    """config/paper-simprof-2core.yaml is merged into paper.yaml the way
    Snakemake merges several --configfile arguments: only the keys it names
    change, and the result is a valid config."""
    from snakemake.utils import update_config

    from pipeline_lib.config import validate

    paper = load(ROOT / "config" / "paper.yaml")
    merged = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    update_config(merged, yaml.safe_load((ROOT / "config" / "paper-simprof-2core.yaml").read_text()))
    cfg = validate(merged, "paper.yaml + paper-simprof-2core.yaml")
    sp = cfg["simprof"]
    assert (sp["cores"], sp["overhead"]) == (2, {"runs": ["wordcount"], "repeats": 3})
    assert sp["runs"] == paper["simprof"]["runs"] and sp["inputs"] == paper["simprof"]["inputs"]
    assert cfg["results_dir"] == paper["results_dir"]


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
