# GPUMech (docs/gpumech.md): input collector, interval algorithm,
# representative warp and the Table 8 models for every launch of a workload,
# and their validation against the detailed simulator under both schedulers.
from pipeline_lib.sim.hardware import dram_bandwidth_gbs
from pipeline_lib.workflow.gpumech import GPUMechLayout
from pipeline_lib.versions import GPUMECH_VERSION

GM = CONFIG["gpumech"]
GM_HARDWARE = sorted(GM["hardware"])
# the analysis predicts every scheduler, so it does not read the configured one
GM_FIELDS = [f for f in TIMING_FIELDS if f not in ("name", "scheduler")]
GM_SWEEP_WL = list(GM["sweep_workloads"]) or WORKLOADS
GM_STACK_WL = [w for w in GM["stack_workloads"] if w in GM_SWEEP_WL]
# sweep points, reuse of the base's analysis, validating simulations (pipeline_lib/workflow/gpumech.py)
GML = GPUMechLayout(GM, _hw, P)


rule gpumech_analyse:
    input:
        check=P.trace("check.json"),
        tables=P.trace_tables(SIM_TRACE_TABLES),
        base=lambda wc: ([P.gpumech(wc.wl, GML.point_base[wc.hw], "launches.parquet")]
                         if wc.hw in GML.point_base else []),
        collected=lambda wc: GML.reused_collection(wc.wl, wc.hw),
    output:
        predictions=P.gpumech("{wl}", "{hw}", "predictions.parquet"),
        stacks=P.gpumech("{wl}", "{hw}", "stacks.parquet"),
        launches=P.gpumech("{wl}", "{hw}", "launches.parquet"),
        collected=P.gpumech("{wl}", "{hw}", "collected.parquet"),
        host_time=P.gpumech("{wl}", "{hw}", "host_time.json"),
    params:
        **keyed(
            hw=lambda wc: hardware_slice(_hw(wc.hw), GM_FIELDS),
            sync=GM["contention_sync"],
            pacing=GM["collector_pacing"],
            reuse_collection=lambda wc: bool(GML.reused_collection(wc.wl, wc.hw)),
            code_version=GPUMECH_VERSION,
        ),
    resources:
        mem_mb=CONFIG["simulate"]["mem_mb"],
        runtime=CONFIG["simulate"]["runtime_min"],
    threads: 1
    log:
        P.log("gpumech_analyse", "{wl}", "{hw}"),
    script:
        "../scripts/gpumech_analyse.py"


rule gpumech_sim_stalls:
    """The detailed simulation's stall breakdown, the CPI stack the models'
    are compared with (a second simulation: the simulate rule's tables stay
    as they are)."""
    input:
        check=P.trace("check.json"),
        tables=P.trace_tables(SIM_TRACE_TABLES),
    output:
        P.gpumech("{wl}", "{hw}", "sim_stalls.parquet"),
    params:
        **keyed(
            hw=lambda wc: hardware_slice(_hw(wc.hw), TIMING_FIELDS),
            code_version=SIMULATOR_VERSION,
        ),
    resources:
        mem_mb=CONFIG["simulate"]["mem_mb"],
        runtime=CONFIG["simulate"]["runtime_min"],
    threads: 1
    log:
        P.log("gpumech_sim_stalls", "{wl}", "{hw}"),
    script:
        "../scripts/gpumech_sim_stalls.py"


rule gpumech_validate:
    input:
        lambda wc: [f for files in GML.validation_files(wc.hw, WORKLOADS).values() for f in files.values()],
    output:
        table=P.gpumech("{hw}", "validation.parquet"),
        stack_check=P.gpumech("{hw}", "stack_check.parquet"),
        summary=P.gpumech("{hw}", "summary.md"),
        host_summary=P.gpumech("{hw}", "host_time.md"),
        figures=[figure(P.gpumech("{hw}", f"{f}.png"), f"gpumech/{f}", "GPUMech", "Validation on {hw}")
                 for f in ("fig27_errors_rr", "fig28_errors_gto", "fig32_miss_rate_error",
                           "fig34_stacks_vs_simulation")],
    params:
        **keyed(
            workloads=WORKLOADS,
            # workload -> the files it reads, by name
            files=lambda wc: GML.validation_files(wc.hw, WORKLOADS),
            cores=lambda wc: _hw(wc.hw)["cores"],
            issue_width=lambda wc: _hw(wc.hw)["issue_width"],
            min_waves=GM["min_waves"],
            code_version=GPUMECH_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("gpumech_validate", "{hw}"),
    script:
        "../scripts/gpumech_validate.py"


rule gpumech_sweep:
    input:
        predictions=lambda wc: [P.gpumech(wl, p, "predictions.parquet") for _, _, p in GML.sweep_points(wc.hw)
                                for wl in GM_SWEEP_WL],
        launches=lambda wc: [P.gpumech(wl, p, "launches.parquet") for _, _, p in GML.sweep_points(wc.hw)
                             for wl in GM_SWEEP_WL],
        stacks=lambda wc: [P.gpumech(wl, p, "stacks.parquet") for _, _, p in GML.sweep_points(wc.hw)
                           for wl in GM_SWEEP_WL],
        sims=lambda wc: [P.sim("launches.parquet", wl, p) for _, _, p in GML.sweep_points(wc.hw)
                         for wl in GM_SWEEP_WL],
    output:
        table=P.gpumech("{hw}", "sweeps.parquet"),
        stacks=P.gpumech("{hw}", "cpi_stacks.parquet"),
        figures=[figure(P.gpumech("{hw}", f"{f}.png"), f"gpumech/{f}", "GPUMech", "Sweeps around {hw}")
                 for f in ("fig29_warps", "fig30_mshrs", "fig31_dram_clock", "fig33_cpi_stacks")],
    params:
        **keyed(
            points=lambda wc: [{"key": k, "value": v, "hardware": p, "policy": _hw(p)["scheduler"],
                                "warps": _hw(p)["sm_limits"]["warps"], "bandwidth": dram_bandwidth_gbs(_hw(p))}
                               for k, v, p in GML.sweep_points(wc.hw)],
            workloads=GM_SWEEP_WL,
            # point configuration -> workload -> the files of its GPUMech analysis and simulation
            files=lambda wc: {p: {wl: {"predictions": P.gpumech(wl, p, "predictions.parquet"),
                                       "launches": P.gpumech(wl, p, "launches.parquet"),
                                       "stacks": P.gpumech(wl, p, "stacks.parquet"),
                                       "sim": P.sim("launches.parquet", wl, p)} for wl in GM_SWEEP_WL}
                              for _, _, p in GML.sweep_points(wc.hw)},
            stack_workloads=GM_STACK_WL,
            cores=lambda wc: _hw(wc.hw)["cores"],
            min_waves=GM["min_waves"],
            code_version=GPUMECH_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("gpumech_sweep", "{hw}"),
    script:
        "../scripts/gpumech_sweep.py"
