# Design-space sweeps (docs/configuration.md): every point of a declared
# sweep is a hardware variant, simulated (with power) for the sweep's
# workloads; one table per sweep collects them.
from pipeline_lib.sweeps import sweep_points

SWEEPS = CONFIG["sweeps"]
SWEEP_POINTS = {name: sweep_points(spec["base"], spec["vary"]) for name, spec in SWEEPS.items()}
SWEEP_WL = {name: list(spec["workloads"]) or WORKLOADS for name, spec in SWEEPS.items()}
for _name, _spec in SWEEPS.items():
    _hw(_spec["base"])   # a bad base fails before any job runs
    _bad = [w for w in SWEEP_WL[_name] if w not in CONFIG["workloads"]]
    if _bad:
        raise ValueError(f"config: sweeps.{_name}.workloads names {', '.join(_bad)}, which workloads lacks")


def _sweep_files(wc, name):
    return [f"{RESULTS}/sim/{wl}/{p['name']}/{name}" for p in SWEEP_POINTS[wc.sweep] for wl in SWEEP_WL[wc.sweep]]


rule sweep_table:
    input:
        summaries=lambda wc: _sweep_files(wc, "summary.json"),
        power=lambda wc: _sweep_files(wc, "power.parquet"),
    output:
        f"{RESULTS}/sweeps/{{sweep}}/points.parquet",
    params:
        points=lambda wc: SWEEP_POINTS[wc.sweep],
        workloads=lambda wc: SWEEP_WL[wc.sweep],
        clocks=lambda wc: [_hw(p["name"])["core_clock_mhz"] for p in SWEEP_POINTS[wc.sweep]],
    resources:
        **LIGHT_JOB,
    threads: 1
    log:
        f"{RESULTS}/logs/sweep_table/{{sweep}}.log",
    script:
        "../scripts/sweep_table.py"
