"""The configuration's checks across fields, in one place: names that one
section gives and another must hold (a sweep's workloads, the scaling
model's sweep, SimProf's runs...).  :func:`pipeline_lib.config.validate`
runs them after the schema, so ``make check-config`` reports them before a
run as the workflow does when it loads.  Checks that load files or probe
the host (hardware configurations, SimProf's counter mode) stay where the
workflow does that."""
from __future__ import annotations


def check_config(cfg: dict, source: str = "config") -> None:
    """Raise ValueError for the first inconsistency of the validated,
    default-filled ``cfg``, naming ``source`` and the field
    (:func:`pipeline_lib.config.validate` raises it as a ConfigError)."""
    def fail(msg):
        raise ValueError(f"{source}: {msg}")

    workloads = cfg["workloads"]
    suite = sorted(w for w, spec in workloads.items() if spec["suite"])
    if not suite:
        fail("no workload has suite: true")

    tbp = cfg["tbpoint"]
    unknown = [w for w in tbp["kernel_types"]["plot"] if w not in suite]
    if unknown:
        fail(f"tbpoint.kernel_types.plot names {', '.join(unknown)}, which the suite lacks "
             "(workloads with suite: true)")
    missing = [h for h in sorted(tbp["hardware"]) if h not in cfg["simulate"]["hardware"]]
    if missing:
        fail(f"tbpoint.hardware names {', '.join(missing)}, which simulate.hardware lacks "
             "(the validation needs their full simulation)")

    bad = [w for w in cfg["gpumech"]["sweep_workloads"] if w not in workloads]
    if bad:
        fail(f"gpumech.sweep_workloads names {', '.join(bad)}, which workloads lacks")

    for name, spec in cfg["sweeps"].items():
        bad = [w for w in spec["workloads"] if w not in workloads]
        if bad:
            fail(f"sweeps.{name}.workloads names {', '.join(bad)}, which workloads lacks")

    _check_scaling(cfg, fail)
    _check_simprof(cfg["simprof"], fail)


def _check_scaling(cfg: dict, fail) -> None:
    from ..sweeps import grid_base

    sc = cfg["scaling"]
    if not sc["sweep"]:
        return
    if sc["sweep"] not in cfg["sweeps"]:
        fail(f"scaling.sweep names {sc['sweep']!r}, which sweeps lacks")
    try:
        grid_base(sc["sweep"], cfg["sweeps"][sc["sweep"]], sc["base"], sc["study_bases"], sc["heatmap_cc"])
    except ValueError as e:
        fail(str(e).removeprefix("config: "))
    bad = [k for k in sc["histogram_k"] if k not in sc["cluster_counts"]]
    if bad:
        fail(f"scaling.histogram_k has {bad[0]}, which scaling.cluster_counts lacks")
    bad = [w for w in sc["predict"] if w not in cfg["workloads"]]
    if bad:
        fail(f"scaling.predict names {', '.join(bad)}, which workloads lacks")


def _check_simprof(sp: dict, fail) -> None:
    from ..simprof.inputs import check_spec

    for name, spec in sp["inputs"].items():
        try:
            check_spec(name, spec)
        except ValueError as e:
            fail(str(e))
    for run, spec in sp["runs"].items():
        if spec["input"] not in sp["inputs"]:
            fail(f"simprof.runs.{run}.input names {spec['input']!r}, which simprof.inputs lacks")
    for name, spec in sp["sensitivity"].items():
        for r in [spec["train"], *spec["references"]]:
            if r not in sp["runs"]:
                fail(f"simprof.sensitivity.{name} names run {r!r}, which simprof.runs lacks")
            if sp["runs"][r]["job"] != sp["runs"][spec["train"]]["job"]:
                fail(f"simprof.sensitivity.{name}: run {r!r} is not a {sp['runs'][spec['train']]['job']} run "
                     "like its training run")
    for r in sorted(sp["overhead"]["runs"]):
        if r not in sp["runs"]:
            fail(f"simprof.overhead.runs names {r!r}, which simprof.runs lacks")
