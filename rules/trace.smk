# Trace generation: run each workload's driver on the PTX emulator, check it
# against its reference, and write the trace tables (docs/trace_format.md);
# or, for a `traceg:` workload, import an Accel-Sim trace into the same tables.
# Hardware-independent: no hardware parameter reaches this rule.
from pipeline_lib.trace.traceg import kernel_files
from pipeline_lib.versions import EMULATOR_VERSION, IMPORTER_VERSION
from pipeline_lib.workloads.registry_info import code_digest

TRACE_TABLES = ["launches", "blocks", "warps", "instructions", "warp_trace"]
# the tables a simulation (detailed, sampled or GPUMech's collector) reads
SIM_TRACE_TABLES = ["launches", "blocks", "instructions", "warp_trace"]


def workload_spec(wl):
    """The configured workload ``wl``; a target naming another is an error
    that lists the configured ones."""
    if wl not in CONFIG["workloads"]:
        raise ValueError(f"unknown workload '{wl}' in the requested target: not in the configuration's "
                         f"workloads ({', '.join(sorted(CONFIG['workloads']))})")
    return CONFIG["workloads"][wl]


def _trace_spec(wildcards):
    spec = workload_spec(wildcards.wl)
    if "traceg" in spec:
        return {"traceg": spec["traceg"]}
    return {"benchmark": spec["benchmark"], "size": spec["size"], "seed": spec["seed"],
            "params": dict(sorted(spec["params"].items()))}


def _trace_code(wildcards):
    """Digest of the workload's PTX, CUDA source, driver and shared driver
    code: editing any of them reruns this workload's trace and its chain
    (an imported trace: the importer's version; its files are inputs)."""
    spec = workload_spec(wildcards.wl)
    return f"traceg-{IMPORTER_VERSION}" if "traceg" in spec else code_digest(spec["benchmark"])


def _traceg_files(wildcards):
    """An imported workload's kernelslist.g and the kernel traces it names."""
    spec = workload_spec(wildcards.wl)
    return [spec["traceg"], *map(str, kernel_files(spec["traceg"]))] if "traceg" in spec else []


rule trace:
    input:
        traceg=_traceg_files,
    output:
        tables=P.trace_tables(TRACE_TABLES),
        check=P.trace("check.json"),
    params:
        **keyed(
            spec=_trace_spec,
            warp_trace=CONFIG["trace"]["warp_trace"],
            lane_addresses=CONFIG["trace"]["lane_addresses"],
            instr_limit=CONFIG["trace"]["instr_limit"],
            chunk_records=CONFIG["trace"]["chunk_records"],
            code_version=EMULATOR_VERSION,
            workload_code=_trace_code,
        ),
    resources:
        mem_mb=CONFIG["trace"]["mem_mb"],
        runtime=CONFIG["trace"]["runtime_min"],
    threads: 1
    log:
        P.log("trace", "{wl}"),
    script:
        "../scripts/trace_workload.py"


rule export_traceg:
    """A traced workload in Accel-Sim's trace format (docs/trace_format.md,
    "Exporting to Accel-Sim"): results/traceg/{wl}/kernelslist.g and one
    xz-compressed kernel-N.traceg.xz per launch; a target only, no other
    stage reads it."""
    input:
        tables=P.trace_tables(TRACE_TABLES),
        check=P.trace("check.json"),
    output:
        directory(P.traceg()),
    params:
        **keyed(
            compress=True,
            code_version=f"traceg-{IMPORTER_VERSION}",
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("export_traceg", "{wl}"),
    script:
        "../scripts/export_traceg.py"
