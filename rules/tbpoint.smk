# TBPoint (docs/tbpoint.md): launch features and inter-launch clusters
# (hardware-independent), epochs and homogeneous regions (depend only on the
# occupancy fields of the hardware), sampled simulation, the Random and
# Ideal-SimPoint baselines on the full simulation's units, and validation.
from pipeline_lib.sim.hardware import OCCUPANCY_FIELDS
from pipeline_lib.versions import TBPOINT_VERSION

TBP = CONFIG["tbpoint"]
TBP_HARDWARE = sorted(TBP["hardware"])
TBP_DIR = f"{RESULTS}/tbpoint"
_missing = [h for h in TBP_HARDWARE if h not in HARDWARE]
if _missing:
    raise ValueError(f"config: tbpoint.hardware names {', '.join(_missing)}, which simulate.hardware lacks "
                     "(the validation needs their full simulation)")


rule tbpoint_inter_launch:
    input:
        check=f"{RESULTS}/traces/{{wl}}/check.json",
        launches=f"{RESULTS}/traces/{{wl}}/launches.parquet",
    output:
        f"{TBP_DIR}/{{wl}}/inter_launch.parquet",
    params:
        sigma=TBP["inter_sigma"],
        code_version=TBPOINT_VERSION,
    log:
        f"{RESULTS}/logs/tbpoint_inter_launch/{{wl}}.log",
    script:
        "../scripts/tbpoint_inter_launch.py"


rule tbpoint_regions:
    input:
        check=f"{RESULTS}/traces/{{wl}}/check.json",
        tables=[f"{RESULTS}/traces/{{wl}}/{t}.parquet" for t in ("launches", "blocks")],
    output:
        epochs=f"{TBP_DIR}/{{wl}}/{{hw}}/epochs.parquet",
        regions=f"{TBP_DIR}/{{wl}}/{{hw}}/regions.parquet",
    params:
        hw=lambda wc: hardware_slice(_hw(wc.hw), OCCUPANCY_FIELDS),
        sigma=TBP["intra_sigma"],
        max_variation=TBP["max_variation"],
        min_epochs=TBP["min_region_epochs"],
        code_version=TBPOINT_VERSION,
    log:
        f"{RESULTS}/logs/tbpoint_regions/{{wl}}/{{hw}}.log",
    script:
        "../scripts/tbpoint_regions.py"


rule tbpoint_sample:
    input:
        check=f"{RESULTS}/traces/{{wl}}/check.json",
        tables=[f"{RESULTS}/traces/{{wl}}/{t}.parquet" for t in ("launches", "blocks", "instructions", "warp_trace")],
        inter=f"{TBP_DIR}/{{wl}}/inter_launch.parquet",
        regions=f"{TBP_DIR}/{{wl}}/{{hw}}/regions.parquet",
    output:
        table=f"{TBP_DIR}/{{wl}}/{{hw}}/sampled.parquet",
        summary=f"{TBP_DIR}/{{wl}}/{{hw}}/sampled.json",
    params:
        hw=lambda wc: hardware_slice(_hw(wc.hw), TIMING_FIELDS),
        inter=TBP["inter"],
        intra=TBP["intra"],
        ipc_tolerance=TBP["ipc_tolerance"],
        progress_s=CONFIG["simulate"]["progress_s"],
        code_version=f"{SIMULATOR_VERSION}/{TBPOINT_VERSION}",
    resources:
        mem_mb=CONFIG["simulate"]["mem_mb"],
        runtime=CONFIG["simulate"]["runtime_min"],
    log:
        f"{RESULTS}/logs/tbpoint_sample/{{wl}}/{{hw}}.log",
    script:
        "../scripts/tbpoint_sample.py"


rule tbpoint_baselines:
    input:
        units=f"{RESULTS}/sim/{{wl}}/{{hw}}/units.parquet",
    output:
        f"{TBP_DIR}/{{wl}}/{{hw}}/baselines.parquet",
    params:
        random=TBP["random"],
        simpoint=TBP["simpoint"],
        code_version=TBPOINT_VERSION,
    log:
        f"{RESULTS}/logs/tbpoint_baselines/{{wl}}/{{hw}}.log",
    script:
        "../scripts/tbpoint_baselines.py"


rule tbpoint_validate:
    input:
        full=expand(f"{RESULTS}/sim/{{wl}}/{{{{hw}}}}/summary.json", wl=WORKLOADS),
        launches=expand(f"{RESULTS}/sim/{{wl}}/{{{{hw}}}}/launches.parquet", wl=WORKLOADS),
        sampled=expand(f"{TBP_DIR}/{{wl}}/{{{{hw}}}}/sampled.json", wl=WORKLOADS),
        baselines=expand(f"{TBP_DIR}/{{wl}}/{{{{hw}}}}/baselines.parquet", wl=WORKLOADS),
    output:
        table=f"{TBP_DIR}/{{hw}}/validation.parquet",
        summary=f"{TBP_DIR}/{{hw}}/summary.md",
        figures=[f"{TBP_DIR}/{{hw}}/{f}.png" for f in
                 ("fig11_ipc", "fig12_sample_size", "fig13_skipped_split", "fig14_miss_rate_error")],
    params:
        workloads=WORKLOADS,
        code_version=TBPOINT_VERSION,
    log:
        f"{RESULTS}/logs/tbpoint_validate/{{hw}}.log",
    script:
        "../scripts/tbpoint_validate.py"
