"""Configuration validation: errors name the file and the field."""
import pytest
import yaml

from pipeline_lib.config import ROOT, ConfigError, load


def test_shipped_configs_are_valid():
    for name in ("config.yaml", "paper.yaml"):
        cfg = load(ROOT / "config" / name)
        assert cfg["workloads"] and cfg["trace"]["warp_trace"] in (True, False)


def _merged(*names):
    """The config files ``names`` merged the way Snakemake merges several
    --configfile arguments (later keys over earlier ones), validated."""
    from snakemake.utils import update_config

    from pipeline_lib.config import validate

    merged = {}
    for name in names:
        update_config(merged, yaml.safe_load((ROOT / "config" / name).read_text()))
    return validate(merged, " + ".join(names))


def test_paper_overlay_merges_into_paper_config():
    """config/paper-simprof-2core.yaml changes only the keys it names, and
    the result is a valid config."""
    paper = load(ROOT / "config" / "paper.yaml")
    cfg = _merged("paper.yaml", "paper-simprof-2core.yaml")
    sp = cfg["simprof"]
    assert (sp["cores"], sp["overhead"]) == (2, {"runs": ["wordcount"], "repeats": 3})
    assert sp["runs"] == paper["simprof"]["runs"] and sp["inputs"] == paper["simprof"]["inputs"]
    assert cfg["results_dir"] == paper["results_dir"]


def test_full_grid_overlay_is_the_paper_grid_on_the_default_kernels():
    """config/scaling-full-grid.yaml adds a sweep with paper.yaml's 448-point
    grid over the default studies's scaling workloads, and points the scaling
    model at it; the reduced grid's sweep stays as it was."""
    from pipeline_lib.sweeps import grid_base, sweep_points

    default = load(ROOT / "config" / "study.yaml")
    paper = load(ROOT / "config" / "paper.yaml")
    cfg = _merged("study.yaml", "scaling-full-grid.yaml")
    full = cfg["sweeps"][cfg["scaling"]["sweep"]]
    assert cfg["scaling"]["sweep"] != default["scaling"]["sweep"]
    assert cfg["sweeps"][default["scaling"]["sweep"]] == default["sweeps"][default["scaling"]["sweep"]]
    assert full["vary"] == paper["sweeps"][paper["scaling"]["sweep"]]["vary"]
    assert len(sweep_points(full["base"], full["vary"])) == 448
    assert full["workloads"] == default["sweeps"][default["scaling"]["sweep"]]["workloads"]
    assert cfg["workloads"] == default["workloads"] and cfg["results_dir"] == default["results_dir"]
    sc = cfg["scaling"]
    assert grid_base(sc["sweep"], full, sc["base"], sc["study_bases"], sc["heatmap_cc"]) \
        .endswith("sm8-cc600-mc1350")


def test_wide_grid_overlay_spans_the_full_grids_range_at_four_values_per_axis():
    """config/scaling-wide-grid.yaml: the full grid's extremes on every axis,
    4 x 4 x 4 points, the default studies' scaling workloads, its own sweep."""
    from pipeline_lib.sweeps import sweep_points

    default = load(ROOT / "config" / "study.yaml")
    full = _merged("study.yaml", "scaling-full-grid.yaml")
    cfg = _merged("study.yaml", "scaling-wide-grid.yaml")
    wide = cfg["sweeps"][cfg["scaling"]["sweep"]]
    full_vary = full["sweeps"][full["scaling"]["sweep"]]["vary"]
    assert cfg["scaling"]["sweep"] not in (default["scaling"]["sweep"], full["scaling"]["sweep"])
    for key, values in wide["vary"].items():
        assert len(values) == 4 and (min(values), max(values)) == (min(full_vary[key]), max(full_vary[key]))
    assert len(sweep_points(wide["base"], wide["vary"])) == 64
    assert wide["workloads"] == default["sweeps"][default["scaling"]["sweep"]]["workloads"]
    assert cfg["workloads"] == default["workloads"] and cfg["results_dir"] == default["results_dir"]


def test_sampled_overlays_repeat_a_grid_with_sampling_as_the_only_difference():
    """config/scaling-sampled.yaml is the study's scaling sweep with sampled
    points under its own name; config/paper-sampled-subset.yaml two sweeps of
    the paper grid's corners, one in full and one sampled; paper.yaml samples."""
    default = load(ROOT / "config" / "study.yaml")
    cfg = _merged("study.yaml", "scaling-sampled.yaml")
    sampled = cfg["sweeps"][cfg["scaling"]["sweep"]]
    plain = default["sweeps"][default["scaling"]["sweep"]]
    assert cfg["scaling"]["sweep"] != default["scaling"]["sweep"] and not plain["sampled"]
    assert sampled == {**plain, "sampled": True}
    paper = load(ROOT / "config" / "paper.yaml")
    assert paper["sweeps"][paper["scaling"]["sweep"]]["sampled"]
    sub = _merged("paper.yaml", "paper-sampled-subset.yaml")["sweeps"]
    full, samp = sub["paper-corners"], sub["paper-corners-sampled"]
    assert samp == {**full, "sampled": True} and not full["sampled"]
    for key, values in full["vary"].items():     # points of the paper grid
        assert set(values) <= set(paper["sweeps"]["scaling"]["vary"][key])


def test_extended_suite_overlay_adds_every_non_table6_benchmark_to_the_suite():
    """config/suite-extended.yaml puts each benchmark the study has only
    outside the suite into TBPoint's and GPUMech's suite at its medium
    size, in its own results directory; the rest of the study is unchanged."""
    default = load(ROOT / "config" / "study.yaml")
    cfg = _merged("study.yaml", "suite-extended.yaml")
    assert cfg["results_dir"] != default["results_dir"]
    in_suite = {w["benchmark"] for w in default["workloads"].values() if w.get("suite", True)}
    added = {n for n, w in cfg["workloads"].items() if w.get("suite", True) and not default["workloads"][n].get(
        "suite", True)}
    studied = {w["benchmark"] for w in default["workloads"].values()}
    assert {cfg["workloads"][n]["benchmark"] for n in added} == studied - in_suite
    assert all(cfg["workloads"][n]["size"] == "medium" for n in added)
    assert {n: w for n, w in cfg["workloads"].items() if n not in added} == \
        {n: w for n, w in default["workloads"].items() if n not in added}


def test_topology_overlay_pairs_each_frontier_graph_with_its_topology_form():
    """config/graphs-topology.yaml adds bfs's topology-driven form on the
    default suite's own graphs (same seed and graph parameters), to the
    suite, in its own results directory; the rest of the study is unchanged."""
    default = load(ROOT / "config" / "study.yaml")
    cfg = _merged("study.yaml", "graphs-topology.yaml")
    assert cfg["results_dir"] != default["results_dir"]
    added = set(cfg["workloads"]) - set(default["workloads"])
    assert added == {"bfs-rmat-topo", "bfs-road-topo"}
    for name in added:
        topo, frontier = cfg["workloads"][name], default["workloads"][name.removesuffix("-topo")]
        assert topo["params"].pop("variant") == "topology" and topo["suite"]
        assert topo == frontier
    assert {n: w for n, w in cfg["workloads"].items() if n not in added} == default["workloads"]


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


def test_broken_yaml_names_file_line_and_column(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("workloads:\n  a:\n    benchmark: bfs\n   size: small\n")
    with pytest.raises(ConfigError) as e:
        load(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}:4:4: YAML syntax error") and "   size: small" in msg
    p.write_text("workloads: [\n")
    with pytest.raises(ConfigError, match=rf"{p}:2:1: YAML syntax error"):
        load(p)


@pytest.mark.parametrize("field, value, expect", [
    ("rows", "5000", "expected an integer >= 1, got str '5000'"),
    ("mean_nnz", 64.5, "expected an integer >= 1, got float 64.5"),
    ("rows", -5, "expected an integer >= 1, got -5"),
    ("iters", True, "expected an integer >= 1, got bool True"),
    ("variant", "diagonal", "expected one of 'scalar', 'vector', got 'diagonal'"),
    ("skew", "high", "expected a number >= 0.0, got str 'high'"),
])
def test_workload_parameters_are_checked_against_the_drivers_declarations(tmp_path, field, value, expect):
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump({"workloads": {"sp": {"benchmark": "spmv", "params": {field: value}}}}))
    with pytest.raises(ConfigError) as e:
        load(p)
    assert str(e.value) == f"{p}: invalid field 'workloads.sp.params.{field}': {expect}"


def test_a_float_parameter_takes_an_integer(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump({"workloads": {"sp": {"benchmark": "spmv", "params": {"skew": 2}}}}))
    assert load(p)["workloads"]["sp"]["params"] == {"skew": 2}


def test_check_command_reports_the_first_error(tmp_path, capsys):
    from pipeline_lib.config import main
    bad = tmp_path / "c.yaml"
    bad.write_text("workloads:\n  a: {benchmark: matmul, params: {m: 64.5}}\n")
    assert main([str(bad)]) == 1
    assert "invalid field 'workloads.a.params.m'" in capsys.readouterr().err
    assert main([str(ROOT / "config" / "config.yaml")]) == 0


@pytest.mark.parametrize("overlay, message", [
    ({"sweeps": {"scaling": {"workloads": ["nosuch"]}}}, "sweeps.scaling.workloads names nosuch, which workloads lacks"),
    ({"scaling": {"histogram_k": [99]}}, "scaling.histogram_k has 99, which scaling.cluster_counts lacks"),
    ({"scaling": {"sweep": "nosuch"}}, "scaling.sweep names 'nosuch', which sweeps lacks"),
    ({"tbpoint": {"hardware": ["volta-v100"]}}, "tbpoint.hardware names volta-v100, which simulate.hardware lacks"),
    ({"gpumech": {"sweep_workloads": ["nosuch"]}}, "gpumech.sweep_workloads names nosuch, which workloads lacks"),
    ({"simprof": {"overhead": {"runs": ["nosuch"]}}}, "simprof.overhead.runs names 'nosuch', which simprof.runs lacks"),
])
def test_checks_across_fields_name_the_files_and_the_field(tmp_path, overlay, message):
    """pipeline_lib/workflow/checks.py: run by validate, so make check-config
    reports them before a run."""
    p = tmp_path / "overlay.yaml"
    p.write_text(yaml.safe_dump(overlay))
    base = ROOT / "config" / "config.yaml"
    with pytest.raises(ConfigError) as e:
        load(base, p)
    assert str(e.value).startswith(f"{base}, {p}: {message}")


def test_field_table_of_the_docs_is_the_schemas():
    """docs/configuration.md's field table is generated from config/schema.yaml
    (python -m pipeline_lib.config --doc docs/configuration.md)."""
    from pipeline_lib.config import ROOT, field_rows, with_doc_table
    doc = (ROOT / "docs" / "configuration.md").read_text()
    assert with_doc_table(doc) == doc, "run: python -m pipeline_lib.config --doc docs/configuration.md"
    rows = {f: (d, m) for f, _, d, m in field_rows()}
    assert rows["tbpoint.inter_sigma"][0] == "`0.1`" and "seed 3.3" in rows["tbpoint.inter_sigma"][1]
    assert rows["sweeps.<name>.base"][0] == "(required)"
    assert "workloads.<name>.suite" in rows and "simprof.runs.<name>.partitions" in rows


def test_every_configuration_field_is_described():
    """A field is documented in the schema, or its object describes its
    fields together (so the generated table leaves nothing out)."""
    import yaml

    from pipeline_lib.config import SCHEMA_PATH

    missing = []

    def walk(node, prefix, parent_described):
        for name, sub in node.get("properties", {}).items():
            if "description" not in sub and not parent_described:
                missing.append(prefix + name)
            walk(sub, prefix + name + ".", "description" in sub)
            named = sub.get("additionalProperties")
            if isinstance(named, dict):
                walk(named, prefix + name + ".<name>.", "description" in sub)

    walk(yaml.safe_load(SCHEMA_PATH.read_text()), "", False)
    assert not missing, f"config/schema.yaml: fields without a description: {missing}"


def test_every_schema_key_is_a_keyword():
    """A field's schema holds JSON-schema keywords only: an unquoted comma in
    a flow mapping's description (``{description: a, b}``) would end the
    description at the comma and make the rest a key of its own."""
    from pipeline_lib.config import SCHEMA_PATH
    keywords = {"type", "properties", "additionalProperties", "required", "default", "description", "enum",
                "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "items", "minItems", "maxItems",
                "oneOf", "anyOf", "allOf", "pattern", "const", "$schema", "title", "uniqueItems", "format",
                "minLength", "maxLength", "minProperties", "maxProperties", "propertyNames", "not", "if", "then", "else"}
    stray = []

    def walk(node, where):
        if isinstance(node, dict):
            stray.extend(f"{where}: {k!r}" for k in node if k not in keywords)
            for k, sub in node.items():
                if k in ("properties",):
                    for name, field in sub.items():
                        walk(field, f"{where}.{name}")
                elif k in ("additionalProperties", "items", "not", "if", "then", "else"):
                    walk(sub, f"{where}.{k}")
                elif k in ("oneOf", "anyOf", "allOf"):
                    for i, alt in enumerate(sub):
                        walk(alt, f"{where}.{k}[{i}]")

    walk(yaml.safe_load(SCHEMA_PATH.read_text()), "schema")
    assert not stray, f"config/schema.yaml: keys that are no schema keyword: {stray}"


def test_doc_table_markers_missing_is_a_clear_error():
    from pipeline_lib.config import with_doc_table
    with pytest.raises(ValueError, match="docs/configuration.md: the markers"):
        with_doc_table("# Configuration\n\nno table here\n")
