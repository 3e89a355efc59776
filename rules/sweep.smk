# Design-space sweeps (docs/configuration.md): every point of a declared
# sweep is a hardware variant, simulated (with power) for the sweep's
# workloads; one table per sweep collects them.
from pipeline_lib.sweeps import sweep_batches, sweep_points
from pipeline_lib.tbpoint.run import POINT_OPTIONS as TBPOINT_POINT_OPTIONS, sampled_sweep_inputs

SWEEPS = CONFIG["sweeps"]
SWEEP_POINTS = {name: sweep_points(spec["base"], spec["vary"]) for name, spec in SWEEPS.items()}
SWEEP_WL = {name: list(spec["workloads"]) or WORKLOADS for name, spec in SWEEPS.items()}
for _name, _spec in SWEEPS.items():
    _hw(_spec["base"])   # a bad base fails before any job runs
    _bad = [w for w in SWEEP_WL[_name] if w not in CONFIG["workloads"]]
    if _bad:
        raise ValueError(f"config: sweeps.{_name}.workloads names {', '.join(_bad)}, which workloads lacks")


# Batched sweeps (sweeps.<name>.batch > 1): one job per workload and batch
# of points simulates them and their power into
# <results>/sweeps/<sweep>/batches/<wl>/<i>/<point>/ (the files of rules
# simulate and power); unbatched points are results/sim/<wl>/<point>/.
SWEEP_BATCHES = {name: sweep_batches(SWEEP_POINTS[name], spec["batch"]) for name, spec in SWEEPS.items()}
_BATCH_OF = {(name, p): i for name, chunks in SWEEP_BATCHES.items() for i, c in enumerate(chunks) for p in c}


def sweep_point_dir(sweep, wl, point):
    """Where a sweep's simulation of ``wl`` at ``point`` is (sweep None: rule simulate's)."""
    if (sweep, point) in _BATCH_OF:
        return f"{RESULTS}/sweeps/{sweep}/batches/{wl}/{_BATCH_OF[(sweep, point)]}/{point}"
    return f"{RESULTS}/sim/{wl}/{point}"


def sweep_point_inputs(sweep, wl, point, files):
    """The input files for that simulation: its batch directory, or the named files."""
    d = sweep_point_dir(sweep, wl, point)
    return [os.path.dirname(d)] if (sweep, point) in _BATCH_OF else [f"{d}/{f}" for f in files]


def sweep_inputs(sweep, files, wls=None):
    """Input files of a stage reading a sweep: the batch directories, or the
    named files of every (point, workload) simulation (``wls``: only these
    workloads)."""
    wls = SWEEP_WL[sweep] if wls is None else wls
    if SWEEP_BATCHES[sweep]:
        return [f"{RESULTS}/sweeps/{sweep}/batches/{wl}/{i}" for i in range(len(SWEEP_BATCHES[sweep]))
                for wl in wls]
    return [f"{RESULTS}/sim/{wl}/{p['name']}/{f}" for p in SWEEP_POINTS[sweep] for wl in wls for f in files]


def sweep_dirs(sweep, wls=None):
    """The simulation directory of every (point, workload), points outer."""
    wls = SWEEP_WL[sweep] if wls is None else wls
    return [sweep_point_dir(sweep, wl, p["name"]) for p in SWEEP_POINTS[sweep] for wl in wls]


def sweep_sampled(sweep, wl):
    """Whether ``wl``'s points of ``sweep`` may be sampled (sweeps.<name>.sampled
    and ``wl`` in the suite TBPoint validates); the job reads the validation's
    figures and decides (docs/tbpoint.md, "Sampled sweep points")."""
    return SWEEPS[sweep]["sampled"] and wl in WORKLOADS


def _sampled_inputs(wc):
    if not sweep_sampled(wc.sweep, wc.wl):
        return {}
    return sampled_sweep_inputs(RESULTS, wc.wl, TBP["hardware"][0])


def _tbpoint_point(sweep):
    return {**{k: TBP[k] for k in TBPOINT_POINT_OPTIONS}, "max_error": SWEEPS[sweep]["sampled_max_error"]}


rule sweep_batch:
    input:
        unpack(_sampled_inputs),
        check=f"{RESULTS}/traces/{{wl}}/check.json",
        tables=[f"{RESULTS}/traces/{{wl}}/{t}.parquet" for t in ("launches", "blocks", "instructions", "warp_trace")],
    output:
        directory(f"{RESULTS}/sweeps/{{sweep}}/batches/{{wl}}/{{batch}}"),
    wildcard_constraints:
        batch=r"\d+",
    params:
        **keyed(
            # a sampled sweep's points also carry TBPoint's settings (the others' stay as they were)
            points=lambda wc: [{"hw": hardware_slice(_hw(p), TIMING_FIELDS),
                                "hw_power": hardware_slice(_hw(p), POWER_FIELDS),
                                **({"tbpoint": _tbpoint_point(wc.sweep)} if sweep_sampled(wc.sweep, wc.wl) else {})}
                               for p in SWEEP_BATCHES[wc.sweep][int(wc.batch)]],
            unit_warp_instrs=CONFIG["simulate"]["unit_warp_instrs"],
            min_units=CONFIG["simulate"]["min_units"],
            progress_s=CONFIG["simulate"]["progress_s"],
            code_version=lambda wc: [SIMULATOR_VERSION, POWER_VERSION] + (
                [TBPOINT_VERSION] if sweep_sampled(wc.sweep, wc.wl) else []),
        ),
    resources:
        mem_mb=CONFIG["simulate"]["mem_mb"],
        # a simulation's time per point of the largest batch (a static value a scheduler can read)
        runtime=CONFIG["simulate"]["runtime_min"] * max([s["batch"] for s in SWEEPS.values()] or [1]),
    threads: 1
    log:
        f"{RESULTS}/logs/sweep_batch/{{sweep}}/{{wl}}/{{batch}}.log",
    script:
        "../scripts/sweep_batch.py"


rule sweep_table:
    input:
        lambda wc: sweep_inputs(wc.sweep, ["summary.json", "power.parquet"]),
    output:
        f"{RESULTS}/sweeps/{{sweep}}/points.parquet",
    params:
        **keyed(
            points=lambda wc: SWEEP_POINTS[wc.sweep],
            workloads=lambda wc: SWEEP_WL[wc.sweep],
            dirs=lambda wc: sweep_dirs(wc.sweep),
            clocks=lambda wc: [_hw(p["name"])["core_clock_mhz"] for p in SWEEP_POINTS[wc.sweep]],
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        f"{RESULTS}/logs/sweep_table/{{sweep}}.log",
    script:
        "../scripts/sweep_table.py"
