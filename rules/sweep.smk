# Design-space sweeps (docs/configuration.md): every point of a declared
# sweep is a hardware variant, simulated (with power) for the sweep's
# workloads; one table per sweep collects them.
from pipeline_lib.tbpoint.run import POINT_OPTIONS as TBPOINT_POINT_OPTIONS, sampled_sweep_inputs
from pipeline_lib.workflow.sweeps import SweepLayout

SWEEPS = CONFIG["sweeps"]
# every sweep's points, workloads and batches, and where each is simulated
SW = SweepLayout(SWEEPS, WORKLOADS, P)
SWEEP_POINTS, SWEEP_WL, SWEEP_BATCHES = SW.points, SW.workloads, SW.batches
for _name, _spec in SWEEPS.items():
    _hw(_spec["base"])   # a bad base fails before any job runs


def _sampled_inputs(wc):
    if not SW.sampled(wc.sweep, wc.wl):
        return {}
    return sampled_sweep_inputs(RESULTS, wc.wl, TBP["hardware"][0])


def _tbpoint_point(sweep):
    return {**{k: TBP[k] for k in TBPOINT_POINT_OPTIONS}, "max_error": SWEEPS[sweep]["sampled_max_error"]}


rule sweep_batch:
    input:
        unpack(_sampled_inputs),
        check=P.trace("check.json"),
        tables=P.trace_tables(SIM_TRACE_TABLES),
    output:
        directory(P.sweeps("{sweep}", "batches", "{wl}", "{batch}")),
    wildcard_constraints:
        batch=r"\d+",
    params:
        **keyed(
            # a sampled sweep's points also carry TBPoint's settings (the others' stay as they were)
            points=lambda wc: [{"hw": hardware_slice(_hw(p), TIMING_FIELDS),
                                "hw_power": hardware_slice(_hw(p), POWER_FIELDS),
                                **({"tbpoint": _tbpoint_point(wc.sweep)} if SW.sampled(wc.sweep, wc.wl) else {})}
                               for p in SWEEP_BATCHES[wc.sweep][int(wc.batch)]],
            unit_warp_instrs=CONFIG["simulate"]["unit_warp_instrs"],
            min_units=CONFIG["simulate"]["min_units"],
            progress_s=CONFIG["simulate"]["progress_s"],
            code_version=lambda wc: [SIMULATOR_VERSION, POWER_VERSION] + (
                [TBPOINT_VERSION] if SW.sampled(wc.sweep, wc.wl) else []),
        ),
    resources:
        mem_mb=CONFIG["simulate"]["mem_mb"],
        # a simulation's time per point of the largest batch (a static value a scheduler can read)
        runtime=CONFIG["simulate"]["runtime_min"] * max([s["batch"] for s in SWEEPS.values()] or [1]),
    threads: 1
    log:
        P.log("sweep_batch", "{sweep}", "{wl}", "{batch}"),
    script:
        "../scripts/sweep_batch.py"


rule sweep_table:
    input:
        lambda wc: SW.inputs(wc.sweep, ["summary.json", "power.parquet"]),
    output:
        P.sweeps("{sweep}", "points.parquet"),
    params:
        **keyed(
            points=lambda wc: SWEEP_POINTS[wc.sweep],
            workloads=lambda wc: SWEEP_WL[wc.sweep],
            # point name -> workload -> its simulation's directory
            dirs=lambda wc: SW.dir_map(wc.sweep),
            clocks=lambda wc: {p["name"]: _hw(p["name"])["core_clock_mhz"] for p in SWEEP_POINTS[wc.sweep]},
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("sweep_table", "{sweep}"),
    script:
        "../scripts/sweep_table.py"
