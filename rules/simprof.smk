# SimProf (docs/simprof.md, seed 000 chapter 5): seeded inputs, the jobs'
# jar, one thread profile per configured run, units and phases per run, the
# sampling study, input sensitivity per set, the profiling overhead and the
# summary with Figs. 40-42, 46 and 47.  Independent of the GPU stages.
from pipeline_lib.simprof.jvm import source_digest
from pipeline_lib.simprof.profile import TABLES as PROFILE_TABLE_NAMES
from pipeline_lib.simprof.emulated import source_digest as emulated_source_digest
from pipeline_lib.simprof.units import counter_mode, describe_unit, measure_of
from pipeline_lib.versions import SIMPROF_VERSION
from pipeline_lib.workflow.simprof import run_files as simprof_run_files, stage_options as simprof_stage_options

SP = CONFIG["simprof"]
SP_RUNS = sorted(SP["runs"])
SP_SETS = sorted(SP["sensitivity"])
SP_OVERHEAD = sorted(SP["overhead"]["runs"])
# The counter mode is this host's (docs/simprof.md, "Counter modes"): where
# a PMU counts instructions, "auto" cuts units of instructions; a host that
# gains or loses one reruns the profiles. Jobs check it again where they run.
try:
    SP_MODE = counter_mode(SP["counter_mode"])["counter_mode"]
except ValueError as _e:
    raise ValueError(f"config: simprof.counter_mode: {_e}") from None
try:
    SP_MEASURE = measure_of(SP_MODE, SP["measure"])
except ValueError as _e:
    raise ValueError(f"config: simprof.measure: {_e}") from None
SP_STAGES = simprof_stage_options(SP, SP_MODE, SP_MEASURE)
SP_UNIT = SP_STAGES["unit"]
# what a Spark job asks for, and passes on (its threads are the executor's)
SP_SPARK = {**{k: SP[k] for k in ("cores", "driver_memory", "timeout_s", "profile")}, "counter_mode": SP_MODE,
            # the emulated mode's cache geometry, CPI model and plugin source reach the profiles only in that mode
            **({"emulated": SP["emulated"], "plugin": emulated_source_digest()} if SP_MODE == "emulated" else {})}
SP_JOB = {"mem_mb": SP["mem_mb"], "runtime": max(10, SP["timeout_s"] // 60)}
SP_PHASES, SP_SAMPLING, SP_SENSITIVITY = SP_STAGES["phases"], SP_STAGES["sampling"], SP_STAGES["sensitivity"]
PROFILE_FILES = [f"{t}.parquet" for t in PROFILE_TABLE_NAMES] + ["run.json"]
SIMPROF_TARGETS = report_pages(P.simprof("summary.md")) if SP_RUNS else []

wildcard_constraints:
    run="[A-Za-z0-9_]+(-[A-Za-z0-9_]+)*",
    sp_input="[A-Za-z0-9_]+(-[A-Za-z0-9_]+)*",


def _run_input(wc):
    return P.simprof("inputs", f"{SP['runs'][wc.run]['input']}.txt")


rule simprof_input:
    output:
        P.simprof("inputs", "{sp_input}.txt"),
    params:
        **keyed(
            spec=lambda wc: SP["inputs"][wc.sp_input],
            code_version=SIMPROF_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("simprof_input", "{sp_input}"),
    script:
        "../scripts/simprof_input.py"


rule simprof_jar:
    output:
        P.simprof("simprof.jar"),
    params:
        **keyed(
            # the Java sources' digest: an edit rebuilds the jar and reruns the profiles
            sources=source_digest(),
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("simprof_jar", "jar"),
    script:
        "../scripts/simprof_jar.py"


rule simprof_profile:
    input:
        jar=P.simprof("simprof.jar"),
        data=_run_input,
    output:
        [P.simprof("profiles", "{run}", f) for f in PROFILE_FILES],
    params:
        **keyed(
            spec=lambda wc: SP["runs"][wc.run],
            spark=SP_SPARK,
            code_version=SIMPROF_VERSION,
        ),
    resources:
        **SP_JOB,
    threads: SP["cores"]
    log:
        P.log("simprof_profile", "{run}"),
    script:
        "../scripts/simprof_profile.py"


rule simprof_phases:
    input:
        [P.simprof("profiles", "{run}", f) for f in PROFILE_FILES],
    output:
        units=P.simprof("phases", "{run}", "units.parquet"),
        phases=P.simprof("phases", "{run}", "phases.parquet"),
        model=P.simprof("phases", "{run}", "model.json"),
    params:
        **keyed(
            opts=SP_PHASES,
            code_version=SIMPROF_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("simprof_phases", "{run}"),
    script:
        "../scripts/simprof_phases.py"


rule simprof_sampling:
    input:
        P.simprof("phases", "{run}", "units.parquet"),
    output:
        errors=P.simprof("sampling", "{run}", "errors.parquet"),
        sizes=P.simprof("sampling", "{run}", "sizes.parquet"),
    params:
        **keyed(
            opts=SP_SAMPLING,
            code_version=SIMPROF_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("simprof_sampling", "{run}"),
    script:
        "../scripts/simprof_sampling.py"


rule simprof_sensitivity:
    input:
        units=lambda wc: P.simprof("phases", SP["sensitivity"][wc.sp_set]["train"], "units.parquet"),
        phases=lambda wc: P.simprof("phases", SP["sensitivity"][wc.sp_set]["train"], "phases.parquet"),
        model=lambda wc: P.simprof("phases", SP["sensitivity"][wc.sp_set]["train"], "model.json"),
        refs=lambda wc: [P.simprof("profiles", r, f) for r in SP["sensitivity"][wc.sp_set]["references"]
                         for f in PROFILE_FILES],
    output:
        table=P.simprof("sensitivity", "{sp_set}.parquet"),
        summary=P.simprof("sensitivity", "{sp_set}.json"),
    wildcard_constraints:
        sp_set="[A-Za-z0-9_]+(-[A-Za-z0-9_]+)*",
    params:
        **keyed(
            train=lambda wc: SP["sensitivity"][wc.sp_set]["train"],
            # reference input -> its profile directory
            profiles=lambda wc: {r: P.simprof("profiles", r) for r in SP["sensitivity"][wc.sp_set]["references"]},
            opts=SP_SENSITIVITY,
            code_version=SIMPROF_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("simprof_sensitivity", "{sp_set}"),
    script:
        "../scripts/simprof_sensitivity.py"


rule simprof_overhead:
    input:
        jar=P.simprof("simprof.jar"),
        data=_run_input,
    output:
        P.simprof("overhead", "{run}.parquet"),
    params:
        **keyed(
            spec=lambda wc: SP["runs"][wc.run],
            spark=SP_SPARK,
            repeats=SP["overhead"]["repeats"],
            code_version=SIMPROF_VERSION,
        ),
    resources:
        mem_mb=SP["mem_mb"],
        runtime=SP_JOB["runtime"] * 2 * SP["overhead"]["repeats"],
    threads: SP["cores"]
    log:
        P.log("simprof_overhead", "{run}"),
    script:
        "../scripts/simprof_overhead.py"


rule simprof_summary:
    input:
        runs=[f for files in simprof_run_files(P, SP_RUNS).values() for f in files.values()],
        sensitivity=[P.simprof("sensitivity", f"{s}.json") for s in SP_SETS],
        overhead=[P.simprof("overhead", f"{r}.parquet") for r in SP_OVERHEAD],
    output:
        summary=P.simprof("summary.md"),
        tables=[P.simprof(f"{t}.parquet") for t in ("homogeneity", "errors", "sizes", "sensitivity")],
        figures=[figure(P.simprof(f"{f}.png"), f"simprof/{f}", "SimProf", "Phases and sampling")
                 for f in ("fig40_cov", "fig41_errors", "fig42_sizes")]
                + ([figure(P.simprof(f"{f}.png"), f"simprof/{f}", "SimProf", "Input sensitivity")
                    for f in ("fig46_sensitive_points", "fig47_phases")] if SP_SETS else []),
    params:
        **keyed(
            # run -> its files, by name
            runs=simprof_run_files(P, SP_RUNS),
            overhead={r: P.simprof("overhead", f"{r}.parquet") for r in SP_OVERHEAD},
            opts={**SP_UNIT, **{k: SP[k] for k in ("points", "confidence", "tolerance", "frame_types")}},
            # the figures' captions
            unit=describe_unit(SP_MODE, SP_UNIT["unit_size"]),
            code_version=SIMPROF_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("simprof_summary", "summary"),
    script:
        "../scripts/simprof_summary.py"
