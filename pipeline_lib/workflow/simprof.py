"""What SimProf's rules (rules/simprof.smk) pass to its stages and what its summary rule reads, by name."""
from __future__ import annotations

from ..simprof.units import unit_size
from .paths import Paths

#: the config's simprof fields each stage takes, in the order its options list them
PHASES_FIELDS = ("top_methods", "k_max", "threshold", "seed", "points", "frame_types")
SAMPLING_FIELDS = ("points", "confidence", "draws", "second_window_s", "seed", "target_errors")

#: a run's files the summary reads: name -> (stage directory, file)
RUN_FILES = {"run": ("profiles", "run.json"), "model": ("phases", "model.json"),
             "phases": ("phases", "phases.parquet"), "errors": ("sampling", "errors.parquet"),
             "sizes": ("sampling", "sizes.parquet")}


def run_files(paths: Paths, runs) -> dict:
    """Per run, by name (:data:`RUN_FILES`), the files rule simprof_summary reads."""
    return {r: {name: paths.simprof(stage, r, f) for name, (stage, f) in RUN_FILES.items()} for r in runs}


def stage_options(sp: dict, mode: str, measure: str) -> dict:
    """The options of SimProf's unit, phase, sampling and sensitivity
    stages, by those names, from the config's ``simprof`` section ``sp`` in
    counter mode ``mode`` (resolved) with ``measure`` (resolved): one
    place for the rules' ``params:`` and for the benchmarks that rerun the
    stages, so that both run them alike.  Only the unit size of the mode in
    use is passed on."""
    unit = {"counter_mode": mode, "unit_size": unit_size(mode, sp["unit_cpu_ms"], sp["unit_instructions"]),
            "measure": measure}
    return {"unit": unit,
            "phases": {**unit, **{k: sp[k] for k in PHASES_FIELDS}},
            "sampling": {"measure": measure, **{k: sp[k] for k in SAMPLING_FIELDS}},
            "sensitivity": {**unit, "tolerance": sp["tolerance"]}}
