# Detailed simulation (docs/simulator.md): full cycle-level simulation of every
# workload on every configured hardware configuration, and dynamic power from
# its activity counts.  Each rule receives only the hardware fields it reads.
import functools

from pipeline_lib.sim.hardware import POWER_FIELDS, TIMING_FIELDS, hardware_slice, load_hardware
from pipeline_lib.versions import POWER_VERSION, SIMULATOR_VERSION

SIM_TABLES = ["launches", "sms", "blocks", "pcs", "units", "activity"]
HARDWARE = sorted(CONFIG["simulate"]["hardware"])
HARDWARE_DIR = os.path.join(workflow.basedir, CONFIG["simulate"]["hardware_dir"])
# validates every configured file now, so a bad field fails before any job runs
_HW = {name: load_hardware(os.path.join(HARDWARE_DIR, f"{name}.yaml")) for name in HARDWARE}


@functools.lru_cache(maxsize=None)
def _hw(name):
    """A configuration or variant by name, loaded and validated once per parse."""
    return _HW[name] if name in _HW else load_hardware(os.path.join(HARDWARE_DIR, f"{name}.yaml"))


rule simulate:
    input:
        check=P.trace("check.json"),
        tables=P.trace_tables(SIM_TRACE_TABLES),
    output:
        tables=[P.sim(f"{t}.parquet") for t in SIM_TABLES],
        summary=P.sim("summary.json"),
        host_time=P.sim("host_time.json"),
    params:
        **keyed(
            hw=lambda wc: hardware_slice(_hw(wc.hw), TIMING_FIELDS),
            unit_warp_instrs=CONFIG["simulate"]["unit_warp_instrs"],
            min_units=CONFIG["simulate"]["min_units"],
            progress_s=CONFIG["simulate"]["progress_s"],
            code_version=SIMULATOR_VERSION,
        ),
    resources:
        mem_mb=CONFIG["simulate"]["mem_mb"],
        runtime=CONFIG["simulate"]["runtime_min"],
    threads: 1
    log:
        P.log("simulate", "{wl}", "{hw}"),
    script:
        "../scripts/simulate.py"


rule power:
    input:
        activity=P.sim("activity.parquet"),
    output:
        P.sim("power.parquet"),
    params:
        **keyed(
            hw=lambda wc: hardware_slice(_hw(wc.hw), POWER_FIELDS),
            code_version=POWER_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        P.log("power", "{wl}", "{hw}"),
    script:
        "../scripts/power.py"
