"""Profiling overhead and analysis cost of SimProf (seed 000, 5.3.1): one
Spark job run alternately with and without JFR and the SimProf plugin, then
the analysis of one profile (units, phases, the sampling study).  Prints
seconds and the overhead.

    .venv/bin/python benchmarks/simprof_overhead.py [--words 8000000] [--repeats 3] [--job wordcount]
"""
import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from pipeline_lib.simprof import inputs, jvm, units
from pipeline_lib.simprof.run import overhead_stage, phases_stage, profile_stage, sampling_stage

MODE = units.counter_mode("auto")["counter_mode"]          # the default config's choice on this host
MEASURE = units.measure_of(MODE, "auto")
SPARK = {"cores": 2, "driver_memory": "2g", "timeout_s": 1800, "counter_mode": MODE,
         "profile": {"stack_period_ms": 10, "stack_depth": 256, "counter_period_ms": 10}}
PHASES = {"counter_mode": MODE, "unit_size": units.unit_size(MODE, 50, 100_000_000), "measure": MEASURE,
          "top_methods": 100, "frame_types": False, "k_max": 20, "threshold": 0.9, "seed": 1, "points": 20}
SAMPLING = {"measure": MEASURE, "points": 20, "confidence": 0.997, "draws": 200,
            "second_window_s": 2.0, "seed": 1, "target_errors": [0.05, 0.02]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", type=int, default=8_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--job", default="wordcount", choices=["wordcount", "sort"])
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        text = d / "text.txt"
        inputs.zipf_text(text, a.words, 60000, 1.1, 12, seed=1)
        jar = jvm.build_jar(d / "cache")
        spec = {"job": a.job, "partitions": 8, "arg": ""}
        t = overhead_stage(spec, jar, text, SPARK, a.repeats, d / "overhead.parquet", d / "overhead.log")
        plain, prof = t[~t["profiled"]]["wall_s"], t[t["profiled"]]["wall_s"]
        print(f"{a.job} on {a.words} words, {a.repeats} runs each, {MODE} counter mode, spark-submit wall time:")
        print(f"  plain    median {plain.median():.2f} s  (runs: {', '.join(f'{x:.2f}' for x in plain)})")
        print(f"  profiled median {prof.median():.2f} s  (runs: {', '.join(f'{x:.2f}' for x in prof)})")
        print(f"  profiling overhead: {100 * (prof.median() / plain.median() - 1):.1f}% "
              f"(reading the recording: {np.nanmedian(t['export_s']):.2f} s more)")
        prof_dir = d / "profile"
        profile_stage(a.job, spec, jar, text, SPARK, prof_dir, d / "profile.log")
        t0 = time.perf_counter()
        ph = phases_stage(a.job, prof_dir, PHASES, d / "units.parquet", d / "phases.parquet", d / "model.json")
        t1 = time.perf_counter()
        sampling_stage(a.job, d / "units.parquet", SAMPLING, d / "errors.parquet", d / "sizes.parquet")
        t2 = time.perf_counter()
        print(f"phase formation ({int(ph['units'].sum())} units, k = {len(ph)}): {t1 - t0:.2f} s; "
              f"sampling study (200 draws x 3 methods, sample sizes): {t2 - t1:.2f} s")


if __name__ == "__main__":
    main()
