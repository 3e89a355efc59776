"""pipeline_lib.workflow: the results paths and the layouts the rules ask."""
from pipeline_lib.config import ROOT, load
from pipeline_lib.sim import load_hardware
from pipeline_lib.workflow import Paths
from pipeline_lib.workflow.gpumech import GPUMechLayout
from pipeline_lib.workflow.sweeps import SweepLayout


def test_paths_give_rule_patterns_by_default_and_files_when_named():
    P = Paths("res")
    assert P.trace("check.json") == "res/traces/{wl}/check.json"
    assert P.sim("summary.json") == "res/sim/{wl}/{hw}/summary.json"
    assert P.sim("power.parquet", "lbm", "tbpoint-fermi") == "res/sim/lbm/tbpoint-fermi/power.parquet"
    assert P.tbpoint("lbm", "tbpoint-fermi", "sampled.json") == "res/tbpoint/lbm/tbpoint-fermi/sampled.json"
    assert P.log("simulate", "{wl}", "{hw}") == "res/logs/simulate/{wl}/{hw}.log"
    assert P.log("tbpoint_markov") == "res/logs/tbpoint_markov.log"


def test_sweep_layout_names_each_points_simulation_by_point_and_workload():
    cfg = load(ROOT / "config" / "config.yaml")
    suite = sorted(w for w, s in cfg["workloads"].items() if s["suite"])
    sw = SweepLayout(cfg["sweeps"], suite, Paths("res"))
    name = sorted(cfg["sweeps"])[0]
    dirs, by_name = sw.dirs(name), sw.dir_map(name)
    flat = [by_name[p["name"]][wl] for p in sw.points[name] for wl in sw.workloads[name]]
    assert flat == dirs and len(set(dirs)) == len(dirs)
    assert all(d.startswith(("res/sweeps/", "res/sim/")) for d in dirs)


def test_gpumech_layout_reuses_the_base_where_the_value_is_the_bases():
    gm = {"hardware": ["gpumech-baseline"], "sweeps": {"w": [16, 32], "mshr": [32]}, "reuse_collection": True}
    layout = GPUMechLayout(gm, load_hardware, Paths("res"))
    base = load_hardware("gpumech-baseline")
    assert base["sm_limits"]["warps"] == 32 and base["l1"]["mshrs"] == 32
    assert layout.sweep_points("gpumech-baseline") == [("mshr", 32, "gpumech-baseline"),
                                                      ("w", 16, "gpumech-baseline-w16"),
                                                      ("w", 32, "gpumech-baseline")]
    assert layout.point_base == {"gpumech-baseline-w16": "gpumech-baseline"}
    assert layout.policy_sims("gpumech-baseline") == {"rr": "gpumech-baseline", "gto": "gpumech-baseline-gto"}
    # resident warps change the collection (occupancy), so the w16 point collects again
    assert layout.reused_collection("lbm", "gpumech-baseline-w16") == []
    assert layout.reused_collection("lbm", "gpumech-baseline") == []


def test_gpumech_layout_reuses_the_collection_of_a_timing_only_point():
    gm = {"hardware": ["gpumech-baseline"], "sweeps": {"mc": [1000]}, "reuse_collection": True}
    layout = GPUMechLayout(gm, load_hardware, Paths("res"))
    assert layout.reused_collection("lbm", "gpumech-baseline-mc1000") == [
        "res/gpumech/lbm/gpumech-baseline/collected.parquet"]
    off = GPUMechLayout({**gm, "reuse_collection": False}, load_hardware, Paths("res"))
    assert off.reused_collection("lbm", "gpumech-baseline-mc1000") == []


def test_validation_rules_read_their_files_by_workload_and_name():
    from pipeline_lib.workflow.tbpoint import validation_files
    P = Paths("res")
    tb = validation_files(P, "tbpoint-fermi", ["lbm", "bfs"], seed_rules=True)
    assert list(tb) == ["lbm", "bfs"]
    assert tb["bfs"]["sampled"] == "res/tbpoint/bfs/tbpoint-fermi/sampled.json"
    assert tb["lbm"]["full"] == "res/sim/lbm/tbpoint-fermi/summary.json"
    assert "seed" not in validation_files(P, "tbpoint-fermi", ["lbm"], seed_rules=False)["lbm"]
    gm = GPUMechLayout({"hardware": ["gpumech-baseline"], "sweeps": {}, "reuse_collection": True}, load_hardware, P)
    files = gm.validation_files("gpumech-baseline", ["lbm"])["lbm"]
    assert files["sim_rr"] == "res/sim/lbm/gpumech-baseline/launches.parquet"       # its own scheduler
    assert files["sim_gto"] == "res/sim/lbm/gpumech-baseline-gto/launches.parquet"
    assert files["stalls_gto"] == "res/gpumech/lbm/gpumech-baseline-gto/sim_stalls.parquet"
