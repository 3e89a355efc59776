# Trace generation: run each workload's driver on the PTX emulator, check it
# against its reference, and write the trace tables (docs/trace_format.md).
# Hardware-independent: no hardware parameter reaches this rule.
from pipeline_lib.versions import EMULATOR_VERSION

TRACE_TABLES = ["launches", "blocks", "warps", "instructions", "warp_trace"]


def _trace_spec(wildcards):
    spec = CONFIG["workloads"][wildcards.wl]
    return {"benchmark": spec["benchmark"], "size": spec["size"], "seed": spec["seed"],
            "params": dict(sorted(spec["params"].items()))}


rule trace:
    output:
        tables=[f"{RESULTS}/traces/{{wl}}/{t}.parquet" for t in TRACE_TABLES],
        check=f"{RESULTS}/traces/{{wl}}/check.json",
    params:
        spec=_trace_spec,
        warp_trace=CONFIG["trace"]["warp_trace"],
        instr_limit=CONFIG["trace"]["instr_limit"],
        chunk_records=CONFIG["trace"]["chunk_records"],
        code_version=EMULATOR_VERSION,
    resources:
        mem_mb=CONFIG["trace"]["mem_mb"],
        runtime=CONFIG["trace"]["runtime_min"],
    threads: 1
    log:
        f"{RESULTS}/logs/trace/{{wl}}.log",
    script:
        "../scripts/trace_workload.py"
