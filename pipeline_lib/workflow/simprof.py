"""What SimProf's summary rule (rules/simprof.smk) reads, by name."""
from __future__ import annotations

from .paths import Paths

#: a run's files the summary reads: name -> (stage directory, file)
RUN_FILES = {"run": ("profiles", "run.json"), "model": ("phases", "model.json"),
             "phases": ("phases", "phases.parquet"), "errors": ("sampling", "errors.parquet"),
             "sizes": ("sampling", "sizes.parquet")}


def run_files(paths: Paths, runs) -> dict:
    """Per run, by name (:data:`RUN_FILES`), the files rule simprof_summary reads."""
    return {r: {name: paths.simprof(stage, r, f) for name, (stage, f) in RUN_FILES.items()} for r in runs}
