# GPUMech (docs/gpumech.md): input collector, interval algorithm,
# representative warp and the Table 8 models for every launch of a workload,
# and their validation against the detailed simulator under both schedulers.
from pipeline_lib.sim.hardware import SCHEDULERS, variant_name
from pipeline_lib.versions import GPUMECH_VERSION

GM = CONFIG["gpumech"]
GM_HARDWARE = sorted(GM["hardware"])
GM_DIR = f"{RESULTS}/gpumech"
# the analysis predicts every scheduler, so it does not read the configured one
GM_FIELDS = [f for f in TIMING_FIELDS if f not in ("name", "scheduler")]


def gm_policy_sims(hw):
    """Simulation name per scheduler: the configuration itself for its own
    scheduler, its -rr/-gto variant for the other."""
    own = _hw(hw)["scheduler"]
    return {p: hw if p == own else variant_name(hw, sched=p) for p in SCHEDULERS}


rule gpumech_analyse:
    input:
        check=f"{RESULTS}/traces/{{wl}}/check.json",
        tables=[f"{RESULTS}/traces/{{wl}}/{t}.parquet" for t in ("launches", "blocks", "instructions", "warp_trace")],
    output:
        predictions=f"{GM_DIR}/{{wl}}/{{hw}}/predictions.parquet",
        stacks=f"{GM_DIR}/{{wl}}/{{hw}}/stacks.parquet",
        launches=f"{GM_DIR}/{{wl}}/{{hw}}/launches.parquet",
        host_time=f"{GM_DIR}/{{wl}}/{{hw}}/host_time.json",
    params:
        hw=lambda wc: hardware_slice(_hw(wc.hw), GM_FIELDS),
        code_version=GPUMECH_VERSION,
    resources:
        mem_mb=CONFIG["simulate"]["mem_mb"],
    log:
        f"{RESULTS}/logs/gpumech_analyse/{{wl}}/{{hw}}.log",
    script:
        "../scripts/gpumech_analyse.py"


rule gpumech_validate:
    input:
        predictions=expand(f"{GM_DIR}/{{wl}}/{{{{hw}}}}/predictions.parquet", wl=WORKLOADS),
        launches=expand(f"{GM_DIR}/{{wl}}/{{{{hw}}}}/launches.parquet", wl=WORKLOADS),
        host=expand(f"{GM_DIR}/{{wl}}/{{{{hw}}}}/host_time.json", wl=WORKLOADS),
        sim_rr=lambda wc: expand(f"{RESULTS}/sim/{{wl}}/{gm_policy_sims(wc.hw)['rr']}/launches.parquet", wl=WORKLOADS),
        sim_gto=lambda wc: expand(f"{RESULTS}/sim/{{wl}}/{gm_policy_sims(wc.hw)['gto']}/launches.parquet", wl=WORKLOADS),
        sim_host=lambda wc: expand(f"{RESULTS}/sim/{{wl}}/{wc.hw}/host_time.json", wl=WORKLOADS),
    output:
        table=f"{GM_DIR}/{{hw}}/validation.parquet",
        summary=f"{GM_DIR}/{{hw}}/summary.md",
        figures=[f"{GM_DIR}/{{hw}}/{f}.png" for f in ("fig27_errors_rr", "fig28_errors_gto")],
    params:
        workloads=WORKLOADS,
        cores=lambda wc: _hw(wc.hw)["cores"],
        min_waves=GM["min_waves"],
        code_version=GPUMECH_VERSION,
    log:
        f"{RESULTS}/logs/gpumech_validate/{{hw}}.log",
    script:
        "../scripts/gpumech_validate.py"
