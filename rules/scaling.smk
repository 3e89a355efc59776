# Performance and power scaling model (docs/scaling.md, seed 004): the
# hardware-independent instruction mix of every kernel, the grid dataset of
# one sweep (time, power and Table II counters of every kernel instance at
# every point), the trained model artifacts, their validation over random
# train/validation splits, and predictions for kernels measured at the base
# configuration only.
from pipeline_lib.sweeps import grid_base
from pipeline_lib.versions import SCALING_VERSION

SC = CONFIG["scaling"]
SC_SWEEP = SC["sweep"]
SC_METRICS = ["time", "power"]
COUNTER_FIELDS = ["cores", "core_clock_mhz", "warp_size", "issue_width", "sm_limits", "l2", "dram"]
SCALING_TARGETS = []


rule scaling_profile:
    input:
        check=f"{RESULTS}/traces/{{wl}}/check.json",
        tables=[f"{RESULTS}/traces/{{wl}}/{t}.parquet" for t in ("instructions", "launches", "warp_trace")],
    output:
        f"{RESULTS}/scaling/profiles/{{wl}}.parquet",
    params:
        **keyed(
            code_version=SCALING_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        f"{RESULTS}/logs/scaling_profile/{{wl}}.log",
    script:
        "../scripts/scaling_profile.py"


if SC_SWEEP:
    if SC_SWEEP not in SWEEPS:
        raise ValueError(f"config: scaling.sweep names {SC_SWEEP!r}, which sweeps lacks")
    SC_SPEC = SWEEPS[SC_SWEEP]
    SC_POINTS = SWEEP_POINTS[SC_SWEEP]
    SC_WL = SWEEP_WL[SC_SWEEP]
    # checks the grid and the configured bases; names the model's base point
    SC_BASE = grid_base(SC_SWEEP, SC_SPEC, SC["base"], SC["study_bases"], SC["heatmap_cc"])
    SC_HEAT_CC = SC["heatmap_cc"] or sorted({min(SC_SPEC["vary"]["cc"]), max(SC_SPEC["vary"]["cc"])})
    _bad = [k for k in SC["histogram_k"] if k not in SC["cluster_counts"]]
    if _bad:
        raise ValueError(f"config: scaling.histogram_k has {_bad[0]}, which scaling.cluster_counts lacks")
    _bad = [w for w in SC["predict"] if w not in CONFIG["workloads"]]
    if _bad:
        raise ValueError(f"config: scaling.predict names {', '.join(_bad)}, which workloads lacks")
    SC_DIR = f"{RESULTS}/scaling/{SC_SWEEP}"
    SC_MODELS = {m: f"{SC_DIR}/model_{m}.json" for m in SC_METRICS}

    # one job per workload, so that the grid's tables (three per simulation)
    # are read in parallel and a workload added to the sweep reads only its own
    rule scaling_counters:
        input:
            profile=f"{RESULTS}/scaling/profiles/{{wl}}.parquet",
            trace_launches=f"{RESULTS}/traces/{{wl}}/launches.parquet",
            sims=lambda wc: sweep_inputs(SC_SWEEP, ["launches.parquet", "activity.parquet", "power.parquet"],
                                         [wc.wl]),
        output:
            f"{SC_DIR}/counters/{{wl}}.parquet",
        wildcard_constraints:
            wl="|".join(SC_WL),
        params:
            **keyed(
                sweep=SC_SWEEP,
                points=SC_POINTS,
                dirs=lambda wc: sweep_dirs(SC_SWEEP, [wc.wl]),
                hw=[hardware_slice(_hw(p["name"]), COUNTER_FIELDS) for p in SC_POINTS],
                code_version=SCALING_VERSION,
            ),
        resources:
            **LIGHT_JOB,
        threads: 1
        log:
            f"{RESULTS}/logs/scaling_counters/{SC_SWEEP}/{{wl}}.log",
        script:
            "../scripts/scaling_counters.py"

    rule scaling_dataset:
        input:
            [f"{SC_DIR}/counters/{wl}.parquet" for wl in SC_WL],
        output:
            f"{SC_DIR}/dataset.parquet",
        params:
            **keyed(
                sweep=SC_SWEEP,
                code_version=SCALING_VERSION,
            ),
        resources:
            **LIGHT_JOB,
        threads: 1
        log:
            f"{RESULTS}/logs/scaling_dataset/{SC_SWEEP}.log",
        script:
            "../scripts/scaling_dataset.py"

    rule scaling_train:
        input:
            f"{SC_DIR}/dataset.parquet",
        output:
            **SC_MODELS,
        params:
            **keyed(
                base=SC["base"],
                clusters=SC["clusters"],
                seed=SC["seed"],
                features=SC["features"],
                method=SC["method"],
                assignment=SC["assignment"],
                classifier=SC["classifier"],
                split_by=SC["split_by"],
                applications={w: CONFIG["workloads"][w]["benchmark"] for w in SC_WL},
                code_version=SCALING_VERSION,
            ),
        resources:
            **LIGHT_JOB,
        threads: 1
        log:
            f"{RESULTS}/logs/scaling_train/{SC_SWEEP}.log",
        script:
            "../scripts/scaling_train.py"

    rule scaling_validate:
        input:
            f"{SC_DIR}/dataset.parquet",
        output:
            heatmap=f"{SC_DIR}/{{metric}}/heatmap.parquet",
            clusters=f"{SC_DIR}/{{metric}}/clusters.parquet",
            histogram=f"{SC_DIR}/{{metric}}/histogram.parquet",
            sources=f"{SC_DIR}/{{metric}}/sources.parquet",
            figures=[figure(f"{SC_DIR}/{{metric}}/{f}.png", f"scaling/{f.rstrip('0123456789')}", "Scaling model",
                            "{metric}") for f in [f"heatmap_cc{cc}" for cc in SC_HEAT_CC] + ["clusters", "histogram"]],
        wildcard_constraints:
            metric="time|power",
        params:
            **keyed(
                opts={**{k: SC[k] for k in ("base", "clusters", "holdout", "splits", "split_by", "seed", "heatmap_cc",
                                            "cluster_counts", "study_bases", "histogram_k", "features",
                                            "method", "assignment", "classifier")},
                      # the application (benchmark) of every workload of the grid, for split_by: application
                      "applications": {w: CONFIG["workloads"][w]["benchmark"] for w in SC_WL}},
                code_version=SCALING_VERSION,
            ),
        resources:
            mem_mb=2000,
            runtime=120,
        threads: 1
        log:
            f"{RESULTS}/logs/scaling_validate/{SC_SWEEP}-{{metric}}.log",
        script:
            "../scripts/scaling_validate.py"

    rule scaling_summary:
        input:
            dataset=f"{SC_DIR}/dataset.parquet",
            heatmaps=[f"{SC_DIR}/{m}/heatmap.parquet" for m in SC_METRICS],
            models=list(SC_MODELS.values()),
            sims=sweep_inputs(SC_SWEEP, ["host_time.json"]),
        output:
            summary=f"{SC_DIR}/summary.md",
            host_time=f"{SC_DIR}/host_time.md",
        params:
            **keyed(
                sweep=SC_SWEEP,
                dirs=sweep_dirs(SC_SWEEP),
                metrics=SC_METRICS,
                code_version=SCALING_VERSION,
            ),
        resources:
            **LIGHT_JOB,
        threads: 1
        log:
            f"{RESULTS}/logs/scaling_summary/{SC_SWEEP}.log",
        script:
            "../scripts/scaling_summary.py"

    rule scaling_predict:
        input:
            models=list(SC_MODELS.values()),
            profile=f"{RESULTS}/scaling/profiles/{{wl}}.parquet",
            trace_launches=f"{RESULTS}/traces/{{wl}}/launches.parquet",
            # one simulation at the base: the sweep's own for a workload of the sweep
            sim=lambda wc: sweep_point_inputs(SC_SWEEP if wc.wl in SC_WL else None, wc.wl, SC_BASE,
                                              ["launches.parquet", "activity.parquet", "power.parquet"]),
        output:
            f"{SC_DIR}/predict/{{wl}}.parquet",
        params:
            **keyed(
                sim_dir=lambda wc: sweep_point_dir(SC_SWEEP if wc.wl in SC_WL else None, wc.wl, SC_BASE),
                base=SC_BASE,
                sweep_base=SC_SPEC["base"],
                hw=hardware_slice(_hw(SC_BASE), COUNTER_FIELDS),
                code_version=SCALING_VERSION,
            ),
        resources:
            **LIGHT_JOB,
        threads: 1
        log:
            f"{RESULTS}/logs/scaling_predict/{SC_SWEEP}/{{wl}}.log",
        script:
            "../scripts/scaling_predict.py"

    SCALING_TARGETS = report_pages(f"{SC_DIR}/summary.md", f"{SC_DIR}/host_time.md") + [f"{SC_DIR}/{m}/{f}" for m in SC_METRICS
                                                   for f in ("clusters.parquet", "histogram.parquet")] + \
        [f"{SC_DIR}/predict/{wl}.parquet" for wl in SC["predict"]]
