"""What TBPoint's validation and sensitivity rules (rules/tbpoint.smk) read, by name."""
from __future__ import annotations

from .paths import Paths


def validation_files(paths: Paths, hw: str, workloads, seed_rules: bool) -> dict:
    """Per workload, by name, the files rule tbpoint_validate reads for
    configuration ``hw``: the full simulation, TBPoint's sampled run (and
    the seed's rules' run with ``seed_rules``), the baselines and the host
    times."""
    P = paths
    return {wl: {"full": P.sim("summary.json", wl, hw), "launches": P.sim("launches.parquet", wl, hw),
                 "sampled": P.tbpoint(wl, hw, "sampled.json"), "sampled_table": P.tbpoint(wl, hw, "sampled.parquet"),
                 "baselines": P.tbpoint(wl, hw, "baselines.parquet"),
                 **({"seed": P.tbpoint(wl, hw, "sampled_seed.json")} if seed_rules else {}),
                 "full_host": P.sim("host_time.json", wl, hw), "sampled_host": P.tbpoint(wl, hw, "host_time.json")}
            for wl in workloads}


def sensitivity_files(paths: Paths, configs, workloads) -> list[dict]:
    """One record per (configuration, workload) of rule tbpoint_sensitivity,
    configurations outermost: the names and the full and sampled
    simulations' summaries."""
    return [{"config": hw, "workload": wl, "full": paths.sim("summary.json", wl, hw),
             "sampled": paths.tbpoint(wl, hw, "sampled.json")} for hw in configs for wl in workloads]
