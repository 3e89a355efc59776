# TBPoint (docs/tbpoint.md): launch features and inter-launch clusters
# (hardware-independent), epochs and homogeneous regions (depend only on the
# occupancy fields of the hardware), sampled simulation, the Random and
# Ideal-SimPoint baselines on the full simulation's units, validation, the
# occupancy study (Figs. 15, 16), the eq. 7 Monte Carlo study (Fig. 7) and
# the kernel types (Fig. 10).
from pipeline_lib.sim.hardware import OCCUPANCY_FIELDS
from pipeline_lib.workflow.tbpoint import sensitivity_files as tbpoint_sensitivity_files
from pipeline_lib.workflow.tbpoint import validation_files as tbpoint_validation_files
from pipeline_lib.versions import TBPOINT_VERSION
from pipeline_lib.workloads.registry_info import KINDS

TBP = CONFIG["tbpoint"]
TBP_HARDWARE = sorted(TBP["hardware"])
TBP_SENSITIVITY = list(TBP["sensitivity"])
for _name in TBP_SENSITIVITY:   # a bad variant name fails before any job runs
    _hw(_name)
TBP_SENSITIVITY_FILES = tbpoint_sensitivity_files(P, TBP_SENSITIVITY, WORKLOADS)
# [] draws the first configured workload of each Table 6 type
TBP_PLOT = list(TBP["kernel_types"]["plot"]) or [
    w for kind in ("regular", "irregular")
    for w in [next((x for x in WORKLOADS if KINDS.get(CONFIG["workloads"][x]["benchmark"]) == kind), None)] if w]


rule tbpoint_inter_launch:
    input:
        check=P.trace("check.json"),
        launches=P.trace("launches.parquet"),
    output:
        P.tbpoint("{wl}", "inter_launch.parquet"),
    params:
        **keyed(
            sigma=TBP["inter_sigma"],
            within_kernel=TBP["inter_within_kernel"],
            representative=TBP["representative"],
            scale=TBP["inter_scale"],
            code_version=TBPOINT_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("tbpoint_inter_launch", "{wl}"),
    script:
        "../scripts/tbpoint_inter_launch.py"


rule tbpoint_regions:
    input:
        check=P.trace("check.json"),
        tables=P.trace_tables(("launches", "blocks")),
    output:
        epochs=P.tbpoint("{wl}", "{hw}", "epochs.parquet"),
        regions=P.tbpoint("{wl}", "{hw}", "regions.parquet"),
    params:
        **keyed(
            hw=lambda wc: hardware_slice(_hw(wc.hw), OCCUPANCY_FIELDS),
            sigma=TBP["intra_sigma"],
            max_variation=TBP["max_variation"],
            min_epochs=TBP["min_region_epochs"],
            variation=TBP["variation"],
            code_version=TBPOINT_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("tbpoint_regions", "{wl}", "{hw}"),
    script:
        "../scripts/tbpoint_regions.py"


rule tbpoint_sample:
    input:
        check=P.trace("check.json"),
        tables=P.trace_tables(SIM_TRACE_TABLES),
        inter=P.tbpoint("{wl}", "inter_launch.parquet"),
        regions=P.tbpoint("{wl}", "{hw}", "regions.parquet"),
    output:
        table=P.tbpoint("{wl}", "{hw}", "sampled.parquet"),
        summary=P.tbpoint("{wl}", "{hw}", "sampled.json"),
        host_time=P.tbpoint("{wl}", "{hw}", "host_time.json"),
    params:
        **keyed(
            hw=lambda wc: hardware_slice(_hw(wc.hw), TIMING_FIELDS),
            inter=TBP["inter"],
            intra=TBP["intra"],
            ipc_tolerance=TBP["ipc_tolerance"],
            functional_warming=TBP["functional_warming"],
            warming_rule=TBP["warming_rule"],
            launch_rule=TBP["launch_rule"],
            unit_rule=TBP["unit_rule"],
            interval_tolerance=TBP["interval_tolerance"],
            small_launches=TBP["small_launches"],
            progress_s=CONFIG["simulate"]["progress_s"],
            code_version=f"{SIMULATOR_VERSION}/{TBPOINT_VERSION}",
        ),
    resources:
        mem_mb=CONFIG["simulate"]["mem_mb"],
        runtime=CONFIG["simulate"]["runtime_min"],
    threads: 1
    log:
        P.log("tbpoint_sample", "{wl}", "{hw}"),
    script:
        "../scripts/tbpoint_sample.py"


# The seed's TBPoint beside ours (tbpoint.seed_rules): every rule as the seed
# states it (pipeline_lib.tbpoint.run.SEED_RULES), one job per workload that
# clusters, finds regions and samples; validation adds its row.
rule tbpoint_sample_seed:
    input:
        check=P.trace("check.json"),
        tables=P.trace_tables(SIM_TRACE_TABLES),
    output:
        P.tbpoint("{wl}", "{hw}", "sampled_seed.json"),
    params:
        **keyed(
            hw=lambda wc: hardware_slice(_hw(wc.hw), TIMING_FIELDS),
            inter_sigma=TBP["inter_sigma"],
            intra_sigma=TBP["intra_sigma"],
            max_variation=TBP["max_variation"],
            min_epochs=TBP["min_region_epochs"],
            ipc_tolerance=TBP["ipc_tolerance"],
            progress_s=CONFIG["simulate"]["progress_s"],
            code_version=f"{SIMULATOR_VERSION}/{TBPOINT_VERSION}",
        ),
    resources:
        mem_mb=CONFIG["simulate"]["mem_mb"],
        runtime=CONFIG["simulate"]["runtime_min"],
    threads: 1
    log:
        P.log("tbpoint_sample_seed", "{wl}", "{hw}"),
    script:
        "../scripts/tbpoint_sample_seed.py"


rule tbpoint_baselines:
    input:
        units=P.sim("units.parquet"),
    output:
        P.tbpoint("{wl}", "{hw}", "baselines.parquet"),
    params:
        **keyed(
            random=TBP["random"],
            simpoint=TBP["simpoint"],
            code_version=TBPOINT_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("tbpoint_baselines", "{wl}", "{hw}"),
    script:
        "../scripts/tbpoint_baselines.py"


rule tbpoint_validate:
    input:
        lambda wc: [f for files in tbpoint_validation_files(P, wc.hw, WORKLOADS, TBP["seed_rules"]).values()
                    for f in files.values()],
    output:
        table=P.tbpoint("{hw}", "validation.parquet"),
        summary=P.tbpoint("{hw}", "summary.md"),
        host_table=P.tbpoint("{hw}", "host_time.parquet"),
        host_summary=P.tbpoint("{hw}", "host_time.md"),
        figures=[figure(P.tbpoint("{hw}", f"{f}.png"), f"tbpoint/{f}", "TBPoint", "Validation on {hw}") for f in
                 ("fig11_ipc", "fig12_sample_size", "fig13_skipped_split", "fig14_miss_rate_error")],
    params:
        **keyed(
            workloads=WORKLOADS,
            # workload -> the files it reads, by name
            files=lambda wc: tbpoint_validation_files(P, wc.hw, WORKLOADS, TBP["seed_rules"]),
            code_version=TBPOINT_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("tbpoint_validate", "{hw}"),
    script:
        "../scripts/tbpoint_validate.py"


rule tbpoint_sensitivity:
    input:
        [f for item in TBP_SENSITIVITY_FILES for f in (item["full"], item["sampled"])],
    output:
        table=P.tbpoint("sensitivity", "sensitivity.parquet"),
        summary=P.tbpoint("sensitivity", "summary.md"),
        figures=[figure(P.tbpoint("sensitivity", f"{f}.png"), f"tbpoint/{f}", "TBPoint", "Sensitivity to the configuration")
                 for f in ("fig15_error_by_config", "fig16_sample_size_by_config")],
    params:
        **keyed(
            # one record per (configuration, workload): its hardware and files, by name
            runs=[{**item, "hardware": hardware_slice(_hw(item["config"]), ["name"] + OCCUPANCY_FIELDS)}
                   for item in TBP_SENSITIVITY_FILES],
            code_version=TBPOINT_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("tbpoint_sensitivity"),
    script:
        "../scripts/tbpoint_sensitivity.py"


rule tbpoint_markov:
    output:
        table=P.tbpoint("markov", "fig7.parquet"),
        figure=figure(P.tbpoint("markov", "fig7_ipc_variation.png"), "tbpoint/fig7_ipc_variation", "TBPoint",
                      "Markov model"),
    params:
        **keyed(
            markov=TBP["markov"],
            code_version=TBPOINT_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("tbpoint_markov"),
    script:
        "../scripts/tbpoint_markov.py"


rule tbpoint_kernel_types:
    input:
        checks=expand(P.trace("check.json"), wl=WORKLOADS),
        blocks=expand(P.trace("blocks.parquet"), wl=WORKLOADS),
    output:
        table=P.tbpoint("kernel_types", "kernel_types.parquet"),
        figure=figure(P.tbpoint("kernel_types", "fig10_kernel_types.png"), "tbpoint/fig10_kernel_types", "TBPoint",
                      "Kernel types"),
    params:
        **keyed(
            # workload -> its declared type (seed Table 6) and its blocks table
            workloads={wl: {"declared": KINDS.get(CONFIG["workloads"][wl]["benchmark"], "unknown"),
                            "blocks": P.trace("blocks.parquet", wl)} for wl in WORKLOADS},
            plot=TBP_PLOT,
            max_cov=TBP["kernel_types"]["max_cov"],
            code_version=TBPOINT_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("tbpoint_kernel_types"),
    script:
        "../scripts/tbpoint_kernel_types.py"
