# Performance and power scaling model (docs/scaling.md, seed 004): the
# hardware-independent instruction mix of every kernel, the grid dataset of
# one sweep (time, power and Table II counters of every kernel instance at
# every point), the trained model artifacts, their validation over random
# train/validation splits, and predictions for kernels measured at the base
# configuration only.
from pipeline_lib.scaling.prior import prior_points
from pipeline_lib.sweeps import grid_base, heatmap_clocks
from pipeline_lib.versions import GPUMECH_VERSION, SCALING_VERSION

SC = CONFIG["scaling"]
SC_SWEEP = SC["sweep"]
SC_METRICS = ["time", "power"]
COUNTER_FIELDS = ["cores", "core_clock_mhz", "warp_size", "issue_width", "sm_limits", "l2", "dram"]
SCALING_TARGETS = []


rule scaling_profile:
    input:
        check=P.trace("check.json"),
        tables=P.trace_tables(("instructions", "launches", "warp_trace")),
    output:
        P.scaling("profiles", "{wl}.parquet"),
    params:
        **keyed(
            code_version=SCALING_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("scaling_profile", "{wl}"),
    script:
        "../scripts/scaling_profile.py"


if SC_SWEEP:
    SC_SPEC = SWEEPS[SC_SWEEP]
    SC_POINTS = SWEEP_POINTS[SC_SWEEP]
    SC_WL = SWEEP_WL[SC_SWEEP]
    # checks the grid and the configured bases; names the model's base point
    SC_BASE = grid_base(SC_SWEEP, SC_SPEC, SC["base"], SC["study_bases"], SC["heatmap_cc"])
    SC_HEAT_CC = heatmap_clocks(SC_SPEC["vary"]["cc"], SC["heatmap_cc"])
    SC_MODELS = {m: P.scaling(SC_SWEEP, f"model_{m}.json") for m in SC_METRICS}
    # GPUMech's SM-scaling prior (docs/scaling.md): every SM count at the clocks of every base used
    _SC_NAMES = {(p["sm"], p["cc"], p["mc"]): p["name"] for p in SC_POINTS}
    _SC_B = next(p for p in SC_POINTS if p["name"] == SC_BASE)
    SC_PRIOR_POINTS = [{"name": _SC_NAMES[t], "sm": t[0], "cc": t[1], "mc": t[2]}
                       for t in prior_points(SC_SPEC["vary"]["sm"], SC_SPEC["vary"]["cc"], SC_SPEC["vary"]["mc"],
                                             _SC_B, SC_HEAT_CC, SC["study_bases"])]

    rule scaling_prior:
        input:
            check=P.trace("check.json"),
            tables=P.trace_tables(SIM_TRACE_TABLES),
        output:
            P.scaling(SC_SWEEP, "prior", "{wl}.parquet"),
        params:
            **keyed(
                sweep=SC_SWEEP,
                analysed=SC_BASE,
                points=SC_PRIOR_POINTS,
                hardware={p["name"]: hardware_slice(_hw(p["name"]), GM_FIELDS + ["scheduler"])
                          for p in SC_PRIOR_POINTS},
                sync=GM["contention_sync"],
                pacing=GM["collector_pacing"],
                code_version=SCALING_VERSION,
                gpumech_version=GPUMECH_VERSION,
            ),
        resources:
            mem_mb=CONFIG["simulate"]["mem_mb"],
            runtime=CONFIG["simulate"]["runtime_min"],
        threads: 1
        log:
            P.log("scaling_prior", SC_SWEEP, "{wl}"),
        script:
            "../scripts/scaling_prior.py"

    # one job per workload, so that the grid's tables (three per simulation)
    # are read in parallel and a workload added to the sweep reads only its own
    rule scaling_counters:
        input:
            profile=P.scaling("profiles", "{wl}.parquet"),
            trace_launches=P.trace("launches.parquet"),
            sims=lambda wc: SW.inputs(SC_SWEEP, ["launches.parquet", "activity.parquet", "power.parquet"],
                                         [wc.wl]),
        output:
            P.scaling(SC_SWEEP, "counters", "{wl}.parquet"),
        wildcard_constraints:
            wl="|".join(SC_WL),
        params:
            **keyed(
                sweep=SC_SWEEP,
                # one record per grid point: its coordinates, hardware and simulation directory
                points=lambda wc: [{**p, "hardware": hardware_slice(_hw(p["name"]), COUNTER_FIELDS),
                                    "sim_dir": SW.point_dir(SC_SWEEP, wc.wl, p["name"])} for p in SC_POINTS],
                code_version=SCALING_VERSION,
            ),
        resources:
            **LIGHT_JOB,
        threads: 1
        log:
            P.log("scaling_counters", SC_SWEEP, "{wl}"),
        script:
            "../scripts/scaling_counters.py"

    rule scaling_dataset:
        input:
            counters=[P.scaling(SC_SWEEP, "counters", f"{wl}.parquet") for wl in SC_WL],
            priors=[P.scaling(SC_SWEEP, "prior", f"{wl}.parquet") for wl in SC_WL],
        output:
            P.scaling(SC_SWEEP, "dataset.parquet"),
        params:
            **keyed(
                sweep=SC_SWEEP,
                code_version=SCALING_VERSION,
            ),
        resources:
            **LIGHT_JOB,
        threads: 1
        log:
            P.log("scaling_dataset", SC_SWEEP),
        script:
            "../scripts/scaling_dataset.py"

    rule scaling_train:
        input:
            P.scaling(SC_SWEEP, "dataset.parquet"),
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
            P.log("scaling_train", SC_SWEEP),
        script:
            "../scripts/scaling_train.py"

    rule scaling_validate:
        input:
            P.scaling(SC_SWEEP, "dataset.parquet"),
        output:
            heatmap=P.scaling(SC_SWEEP, "{metric}", "heatmap.parquet"),
            clusters=P.scaling(SC_SWEEP, "{metric}", "clusters.parquet"),
            histogram=P.scaling(SC_SWEEP, "{metric}", "histogram.parquet"),
            sources=P.scaling(SC_SWEEP, "{metric}", "sources.parquet"),
            figures=[figure(P.scaling(SC_SWEEP, "{metric}", f"{f}.png"), f"scaling/{f.rstrip('0123456789')}", "Scaling model",
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
            P.log("scaling_validate", f"{SC_SWEEP}-{{metric}}"),
        script:
            "../scripts/scaling_validate.py"

    rule scaling_summary:
        input:
            dataset=P.scaling(SC_SWEEP, "dataset.parquet"),
            heatmaps=[P.scaling(SC_SWEEP, m, "heatmap.parquet") for m in SC_METRICS],
            models=list(SC_MODELS.values()),
            sims=SW.inputs(SC_SWEEP, ["host_time.json"]),
        output:
            summary=P.scaling(SC_SWEEP, "summary.md"),
            host_time=P.scaling(SC_SWEEP, "host_time.md"),
        params:
            **keyed(
                sweep=SC_SWEEP,
                # metric -> its heat-map directory and model, by name
                metrics={m: {"dir": P.scaling(SC_SWEEP, m), "model": SC_MODELS[m]}
                         for m in SC_METRICS},
                # every simulation of the grid (homogeneous: read in any order)
                host_times=[os.path.join(d, "host_time.json") for d in SW.dirs(SC_SWEEP)],
                code_version=SCALING_VERSION,
            ),
        resources:
            **LIGHT_JOB,
        threads: 1
        log:
            P.log("scaling_summary", SC_SWEEP),
        script:
            "../scripts/scaling_summary.py"

    rule scaling_predict:
        input:
            models=list(SC_MODELS.values()),
            profile=P.scaling("profiles", "{wl}.parquet"),
            trace_launches=P.trace("launches.parquet"),
            # one simulation at the base: the sweep's own for a workload of the sweep
            sim=lambda wc: SW.point_inputs(SC_SWEEP if wc.wl in SC_WL else None, wc.wl, SC_BASE,
                                              ["launches.parquet", "activity.parquet", "power.parquet"]),
            prior=P.scaling(SC_SWEEP, "prior", "{wl}.parquet"),
        output:
            P.scaling(SC_SWEEP, "predict", "{wl}.parquet"),
        params:
            **keyed(
                sim_dir=lambda wc: SW.point_dir(SC_SWEEP if wc.wl in SC_WL else None, wc.wl, SC_BASE),
                base=SC_BASE,
                sweep_base=SC_SPEC["base"],
                hw=hardware_slice(_hw(SC_BASE), COUNTER_FIELDS),
                code_version=SCALING_VERSION,
            ),
        resources:
            **LIGHT_JOB,
        threads: 1
        log:
            P.log("scaling_predict", SC_SWEEP, "{wl}"),
        script:
            "../scripts/scaling_predict.py"

    SCALING_TARGETS = report_pages(P.scaling(SC_SWEEP, "summary.md"), P.scaling(SC_SWEEP, "host_time.md")) + [P.scaling(SC_SWEEP, m, f) for m in SC_METRICS
                                                   for f in ("clusters.parquet", "histogram.parquet")] + \
        [P.scaling(SC_SWEEP, "predict", f"{wl}.parquet") for wl in SC["predict"]]
