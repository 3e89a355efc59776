"""Every benchmark's small input passes its reference check, and the checks
catch wrong answers."""
import numpy as np
import pytest

from pipeline_lib.ptx import Device
from pipeline_lib.workloads import REGISTRY, CheckError, bfs, get
from pipeline_lib.workloads.base import WORKLOAD_DIR, grid_for
from pipeline_lib.workloads.registry_info import KINDS, SIZES


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_small_input_passes_reference(name):
    res = get(name, "small").execute(Device())
    assert res["check"] == "passed" and res["launches"] >= 1


def _perturb(out):
    """Change one value of the first array found in the output."""
    for k, v in out.items():
        if isinstance(v, np.ndarray) and v.size:
            v = v.copy()
            flat = v.reshape(-1)
            flat[len(flat) // 2] = flat[len(flat) // 2] + (1 if v.dtype.kind in "iu" else 0.5 + abs(flat[len(flat) // 2]))
            return {**out, k: v}
        if isinstance(v, int):
            return {**out, k: v + 1}
        if isinstance(v, list) and v:
            first = list(v[0])
            for i, x in enumerate(first):
                if isinstance(x, np.ndarray) and x.dtype.kind in "fiub" and x.size and i >= 2:
                    x = x.copy()
                    x.reshape(-1)[0] = (~x.reshape(-1)[0]) if x.dtype == bool else x.reshape(-1)[0] + 1000
                    first[i] = x
                    return {**out, k: [tuple(first)] + list(v[1:])}
    raise AssertionError("nothing to perturb")


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_check_detects_a_wrong_result(name):
    w = get(name, "small")
    dev = Device()
    inp = w.make_inputs(np.random.default_rng(w.seed))
    mod = dev.load_module(WORKLOAD_DIR / w.ptx)
    out = w.run(dev, mod, inp)
    ref = w.reference(inp, out)
    w.check(out, ref)
    with pytest.raises(CheckError):
        bad = _perturb(out)
        w.check(bad, w.reference(inp, bad))


def test_registry_info_matches_drivers():
    assert set(SIZES) == set(REGISTRY) == set(KINDS)
    for name, cls in REGISTRY.items():
        assert {s: sorted(p) for s, p in cls.sizes.items()} == SIZES[name]


def test_suite_covers_irregular_and_multi_launch():
    kinds = {cls.kind for cls in REGISTRY.values()}
    assert kinds == {"irregular", "regular"}


def test_unknown_size_and_parameter_are_errors():
    with pytest.raises(ValueError, match="unknown size"):
        get("bfs", "huge")
    with pytest.raises(ValueError, match="not a parameter of bfs"):
        get("bfs", "small", nodes=3)


def test_ptx_older_than_its_cuda_source_is_refused(tmp_path):
    """``make ptx`` records the .cu's digest beside the PTX; a trace of an
    edited .cu from its old PTX is an error that says what to run."""
    import shutil

    from pipeline_lib.workloads.base import WORKLOAD_DIR, SourceOutOfDate, check_ptx_current
    for suffix in (".cu", ".ptx", ".ptxas.txt"):
        shutil.copy(WORKLOAD_DIR / f"reduction{suffix}", tmp_path / f"reduction{suffix}")
    check_ptx_current(tmp_path / "reduction.ptx")
    cu = tmp_path / "reduction.cu"
    cu.write_text(cu.read_text() + "\n// an edit\n")
    with pytest.raises(SourceOutOfDate, match=r"reduction.cu was edited after reduction.ptx was made .*make ptx"):
        check_ptx_current(tmp_path / "reduction.ptx")


def test_every_committed_ptx_records_its_source_digest():
    from pipeline_lib.workloads.base import WORKLOAD_DIR, check_ptx_current
    for name, cls in REGISTRY.items():
        assert "source sha256" in (WORKLOAD_DIR / cls.ptx).with_suffix(".ptxas.txt").read_text(), name
        check_ptx_current(WORKLOAD_DIR / cls.ptx)


def test_driver_parameters_are_checked_by_the_driver_itself():
    from pipeline_lib.workloads.params import ParamError
    with pytest.raises(ParamError, match="expected an integer >= 1, got float 64.5") as e:
        get("matmul", "small", m=64.5)
    assert e.value.field == "m"
    with pytest.raises(ParamError, match="not a parameter of matmul"):
        get("matmul", "small", rows=3)


def test_the_documented_parameter_table_is_the_drivers_declarations():
    from pathlib import Path

    from pipeline_lib.workloads.registry_info import parameter_table
    doc = (Path(__file__).resolve().parents[1] / "docs" / "workloads.md").read_text()
    section = doc.split("<!-- parameter table: begin -->\n")[1].split("<!-- parameter table: end -->")[0]
    assert section == parameter_table()


@pytest.mark.parametrize("graph", ["rmat", "road"])
def test_topology_bfs_launches_one_grid_over_every_vertex(graph):
    """The topology-driven form launches the same grid, a thread per vertex,
    once per level (the last level's launch labels nothing), and labels the
    vertices as the frontier form does, which launches as often with grids
    that follow the frontier's size."""
    class Recording(Device):
        def launch(self, mod, kernel, grid, block, args, dynamic_shared=0):
            grids.append((kernel, tuple(grid)))
            return super().launch(mod, kernel, grid, block, args, dynamic_shared)

    levels = {}
    for variant in ("frontier", "topology"):
        grids = []
        w = get("bfs", "small", graph=graph, variant=variant)
        inp = w.make_inputs(np.random.default_rng(w.seed))
        dev = Recording()
        out = w.run(dev, dev.load_module(WORKLOAD_DIR / w.ptx), inp)
        w.check(out, w.reference(inp, out))
        levels[variant] = (out["level"], grids)
    level, grids = levels["topology"]
    assert len(grids) == level.max() + 1
    assert set(grids) == {("bfs_topology", (grid_for(len(level), bfs.BLOCK),))}
    assert np.array_equal(level, levels["frontier"][0])
    frontier_grids = levels["frontier"][1]
    assert len(frontier_grids) == len(grids)
    if graph == "rmat":    # the road grid's frontiers all fit one block at this size
        assert len(set(frontier_grids)) > 1
