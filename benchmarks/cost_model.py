"""Projected CPU-hours of a configuration's whole run, stage by stage, from
measured per-job times.

    .venv/bin/python benchmarks/cost_model.py [--config config/paper.yaml] [--measured DIR ...]

The jobs are those of a dry run with every output forced (``snakemake -n
--forceall``): a run from scratch.  A job's cost is

- its own time, where a log of the same job (same log path) holds a
  ``rule <name>: done in <s> s`` line from an earlier run;
- else, for rules whose work grows with the workload's warp instructions
  (trace, the simulations, TBPoint's sampled runs, GPUMech's collection),
  the seconds per warp instruction of that rule measured on the same
  benchmark (any size, any results directory given with ``--measured``),
  or on every benchmark when the benchmark has none, times the job's warp
  instructions (times its points for a sweep batch);
- else the median time of the rule's measured jobs.

A batch of a sampled sweep (``sweeps.<name>.sampled``) for a workload whose
TBPoint validation passed (its figures in the configuration's results
directory) is projected from the seconds per warp instruction and point of
the same input's measured sampled batches (any sampled sweep, such as the
paper inputs' corners of ``config/paper-sampled-subset.yaml``), else as the
full batch times that workload's host-time ratio of TBPoint's sampled run
to its full simulation on TBPoint's hardware (their logs); its own earlier
log counts only if that log shows a sampled run, and sampled runs' logs do
not enter the full batches' rates.  A second check line compares, for the
measured sampled batches, that ratio's projection with their time.

Warp instructions of a workload come from its trace (``launches.parquet``)
in any of the results directories, matched on benchmark, size, seed and
parameters.  Jobs that could be costed neither way are counted and named.
A check line compares, for the jobs that were measured, the time projected
from the other sizes' rates with the measured one.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline_lib.config import load  # noqa: E402
from pipeline_lib.tbpoint.run import sampled_sweep_inputs, sampled_sweep_ok  # noqa: E402
from pipeline_lib.workflow import Paths  # noqa: E402

#: rules whose work grows with the workload's warp instructions
PER_INSTRUCTION = {"trace", "simulate", "gpumech_sim_stalls", "tbpoint_sample", "gpumech_analyse", "sweep_batch"}
DONE = re.compile(r"rule (\w+): done in ([0-9.]+) s")


def dry_run_jobs(configs: list[str]) -> list[dict]:
    """rule, log path and wildcards of every job of a run from scratch."""
    cmd = [str(ROOT / ".venv" / "bin" / "snakemake"), "--configfile", *configs, "-n", "--forceall",
           "--cores", "1"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"dry run failed:\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
    jobs, cur = [], None
    for line in (out.stdout + out.stderr).splitlines():
        m = re.match(r"^(?:local)?rule (\w+):$", line)
        if m:
            cur = {"rule": m.group(1), "log": None, "wildcards": {}}
            jobs.append(cur)
        elif cur is not None and line.startswith("    log: "):
            cur["log"] = line.split(": ", 1)[1].split(",")[0].strip()
        elif cur is not None and line.startswith("    wildcards: "):
            cur["wildcards"] = dict(kv.split("=", 1) for kv in line.split(": ", 1)[1].split(", "))
    return [j for j in jobs if j["rule"] != "all"]


def logged_seconds(path: Path) -> float | None:
    if not path.is_file():
        return None
    hits = DONE.findall(path.read_text(errors="replace"))
    return float(hits[-1][1]) if hits else None


def traced(d: Path) -> dict:
    """Every checked trace of results directory ``d``: workload name ->
    (benchmark, (benchmark, size, seed, params json), warp instructions)."""
    out = {}
    for check in sorted(d.glob("traces/*/check.json")):
        c = json.loads(check.read_text())
        launches = check.parent / "launches.parquet"
        if c.get("check") != "passed" or not launches.is_file():
            continue
        key = (c["workload"], c["size"], int(c["seed"]), json.dumps(c["params"], sort_keys=True))
        out[check.parent.name] = (c["workload"], key,
                                  int(pd.read_parquet(launches, columns=["warp_instrs"])["warp_instrs"].sum()))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", nargs="+", default=["config/paper.yaml"])
    ap.add_argument("--measured", nargs="*", default=None,
                    help="results directories with logs and traces of earlier runs (default: every results* here)")
    args = ap.parse_args()
    cfg = load(*(ROOT / c for c in args.config))
    results = ROOT / cfg["results_dir"]
    measured = [ROOT / m for m in args.measured] if args.measured is not None else \
        sorted(p for p in ROOT.glob("results*") if p.is_dir())
    if results not in measured:
        measured.insert(0, results)
    traces = {d: traced(d) for d in measured}
    by_spec = {key: n for t in traces.values() for _, key, n in t.values()}

    def instrs(spec: dict) -> int | None:
        return by_spec.get(_input_key(spec))

    wl_instrs = {w: instrs(s) for w, s in cfg["workloads"].items()}
    batch = {name: int(s.get("batch", 1)) for name, s in cfg.get("sweeps", {}).items()}

    # measured seconds per warp instruction, per (rule, benchmark), from every log found
    rate_jobs = defaultdict(list)
    sampled_jobs = defaultdict(list)     # measured sampled batches, per input (benchmark, size, seed, params)
    const = defaultdict(list)
    for d in measured:
        for run_json in d.glob("simprof/profiles/*/run.json"):
            const["simprof_profile"].append(_profile_cpu_seconds(run_json))
        for log in d.glob("logs/**/*.log"):
            s = logged_seconds(log)
            if s is None:
                continue
            rule = log.relative_to(d / "logs").parts[0].removesuffix(".log")
            if rule == "sweep_batch" and _sampled_log(log):
                wl = _workload_of_log(log, d, rule)
                trace = traces[d].get(wl)
                if trace and trace[2]:
                    sampled_jobs[trace[1]].append((s, trace[2] * _points_logged(log), d, wl, log))
                continue
            const[rule].append(s)
            trace = traces[d].get(_workload_of_log(log, d, rule))
            if rule in PER_INSTRUCTION and trace and trace[2]:
                bench, _, n = trace
                work = n * (_points_logged(log) if rule == "sweep_batch" else 1)
                rate_jobs[rule, bench].append((s, work))
    sampled_rate = {key: sum(s for s, *_ in js) / sum(w for _, w, *_ in js) for key, js in sampled_jobs.items()}
    rate = {}
    for (rule, bench), pairs in rate_jobs.items():
        rate[rule, bench] = sum(s for s, _ in pairs) / sum(w for _, w in pairs)
    for rule in {r for r, _ in rate_jobs}:
        pairs = [p for (r, _), ps in rate_jobs.items() if r == rule for p in ps]
        rate[rule, None] = sum(s for s, _ in pairs) / sum(w for _, w in pairs)

    jobs = dry_run_jobs(args.config)
    rows, check = [], []
    for j in jobs:
        rule, wc = j["rule"], j["wildcards"]
        wl = wc.get("wl")
        own = logged_seconds(ROOT / j["log"]) if j["log"] else None
        ratio = _sampled_ratio(cfg, results, wc.get("sweep"), wl) if rule == "sweep_batch" else None
        if ratio is not None and own is not None and not _sampled_log(ROOT / j["log"]):
            own = None      # a log of the batch simulated in full
        if own is None and rule == "simprof_profile":     # a Spark job's log is the JVM's; run.json has its time
            own = _profile_cpu_seconds(Path(Paths(results).simprof("profiles", wc["run"], "run.json")))
        proj, how = None, "unmeasured"
        if rule in PER_INSTRUCTION and wl and wl_instrs.get(wl):
            work = wl_instrs[wl] * (batch.get(wc.get("sweep"), 1) if rule == "sweep_batch" else 1)
            bench = cfg["workloads"][wl]["benchmark"]
            r = rate.get((rule, bench)) or rate.get((rule, None))
            measured_sampled = sampled_rate.get(_input_key(cfg["workloads"][wl])) if ratio is not None else None
            if measured_sampled:
                proj, how = measured_sampled * work, "rate"
            elif r:
                proj, how = r * work * (ratio if ratio is not None else 1.0), "rate"
        if proj is None and const.get(rule):
            proj, how = float(np.median(const[rule])), "median"
        if own is not None:
            if how == "rate":
                check.append((rule, own, proj))
            proj, how = own, "logged"
        rows.append({"rule": rule + (" (sampled)" if ratio is not None else ""),
                     "seconds": proj if proj is not None else 0.0, "how": how})
    t = pd.DataFrame(rows)
    by = t.groupby("rule").agg(jobs=("seconds", "size"), cpu_hours=("seconds", lambda s: s.sum() / 3600),
                               logged=("how", lambda h: int((h == "logged").sum())),
                               from_rate=("how", lambda h: int((h == "rate").sum())),
                               from_median=("how", lambda h: int((h == "median").sum())),
                               unmeasured=("how", lambda h: int((h == "unmeasured").sum())))
    by = by.sort_values("cpu_hours", ascending=False)
    print(f"Projected run of {' + '.join(args.config)} from scratch: {len(t)} jobs, "
          f"{t['seconds'].sum() / 3600:.1f} CPU-hours")
    print(f"(measured logs and traces from: {', '.join(str(m.relative_to(ROOT)) for m in measured)})\n")
    print(f"{'rule':24s} {'jobs':>6s} {'CPU-h':>8s} {'logged':>7s} {'rate':>6s} {'median':>7s} {'none':>5s}")
    for rule, r in by.iterrows():
        print(f"{rule:24s} {int(r.jobs):6d} {r.cpu_hours:8.2f} {int(r.logged):7d} {int(r.from_rate):6d} "
              f"{int(r.from_median):7d} {int(r.unmeasured):5d}")
    none = sorted(t.loc[t["how"] == "unmeasured", "rule"].unique())
    if none:
        print(f"\nno measurement at all for: {', '.join(none)} (counted as 0)")
    medians = sorted(t.loc[t["how"] == "median", "rule"].unique())
    if medians:
        print(f"the median of the rule's measured jobs, whatever their inputs, for: {', '.join(medians)}")
    missing = sorted({w for w, n in wl_instrs.items() if n is None})
    if missing:
        print(f"\nno trace found for: {', '.join(missing)} (their per-instruction jobs fall back to medians)")
    if check:
        c = pd.DataFrame(check, columns=["rule", "measured", "projected"])
        ratio = c["projected"].sum() / c["measured"].sum()
        print(f"\ncheck: {len(c)} measured jobs projected from the rates would total {c['projected'].sum() / 3600:.2f} "
              f"CPU-hours against {c['measured'].sum() / 3600:.2f} measured (x{ratio:.2f}); per rule: " +
              ", ".join(f"{r} x{g['projected'].sum() / g['measured'].sum():.2f}" for r, g in c.groupby("rule")))
    # the measured sampled batches against the other projection, the full batch's rate times the validation's ratio
    by_ratio, took = 0.0, 0.0
    for key, js in sampled_jobs.items():
        for s, work, d, wl, _ in js:
            r_full = rate.get(("sweep_batch", key[0]))
            ratio = _validation_ratio(cfg, d, wl) if wl in cfg["workloads"] else None
            if r_full and ratio:
                by_ratio += r_full * work * ratio
                took += s
    if took:
        print(f"check: {sum(len(js) for js in sampled_jobs.values())} measured sampled batches, projected as the full "
              f"batch times TBPoint's validation ratio instead: {by_ratio:.0f} s against {took:.0f} s (x{by_ratio / took:.2f})")


def _sampled_log(log: Path) -> bool:
    """Whether a sweep batch's log shows TBPoint's sampled simulation."""
    return log.is_file() and ": sampled simulation" in log.read_text(errors="replace")


def _sampled_ratio(cfg: dict, results: Path, sweep: str | None, wl: str | None) -> float | None:
    """For a batch of a sampled sweep whose workload passed TBPoint's
    validation: TBPoint's sampled run's host seconds over the full
    simulation's, on TBPoint's hardware (from their logs); else None."""
    spec = cfg.get("sweeps", {}).get(sweep or "", {})
    if not spec.get("sampled") or not wl or not cfg["workloads"][wl]["suite"]:
        return None
    files = sampled_sweep_inputs(str(results), wl, cfg["tbpoint"]["hardware"][0])
    full, samp = Path(files["validation_full"]), Path(files["validation_sampled"])
    ratio = _validation_ratio(cfg, results, wl)
    if not (full.is_file() and samp.is_file() and ratio):
        return None
    ok, _ = sampled_sweep_ok(json.loads(full.read_text()), json.loads(samp.read_text()), spec["sampled_max_error"])
    return ratio if ok else None


def _validation_ratio(cfg: dict, results: Path, wl: str) -> float | None:
    """TBPoint's sampled run's host seconds over the full simulation's, on
    TBPoint's hardware, from their logs in ``results``; None without both."""
    hw = cfg["tbpoint"]["hardware"][0]
    t_full = logged_seconds(Path(Paths(results).log("simulate", wl, hw)))
    t_samp = logged_seconds(Path(Paths(results).log("tbpoint_sample", wl, hw)))
    return t_samp / t_full if t_full and t_samp else None


def _input_key(spec: dict) -> tuple:
    """A workload's input as :func:`traced` keys it: benchmark, size, seed
    and its parameters with the registry's defaults filled in."""
    from pipeline_lib.workloads.registry_info import check_params

    params = check_params(spec["benchmark"], spec["size"], spec.get("params") or {})
    return spec["benchmark"], spec["size"], int(spec["seed"]), json.dumps(params, sort_keys=True)


def _profile_cpu_seconds(run_json: Path) -> float | None:
    """A SimProf profile's wall time times the cores it was given."""
    if not run_json.is_file():
        return None
    r = json.loads(run_json.read_text())
    return float(r["wall_s"]) * int(r.get("cores", 1))


def _workload_of_log(log: Path, d: Path, rule: str) -> str | None:
    """The workload a job's log belongs to: logs are <rule>/<wl>.log,
    <rule>/<wl>/<hw>.log or <rule>/<sweep>/<wl>/<batch>.log."""
    parts = log.relative_to(d / "logs").parts
    if rule == "sweep_batch" and len(parts) == 4:
        return parts[2]
    if len(parts) == 2:
        return parts[1].removesuffix(".log")
    if len(parts) == 3:
        return parts[1]
    return None


def _points_logged(log: Path) -> int:
    return max(1, len(re.findall(r"^point \d+ of \d+ done$", log.read_text(errors="replace"), re.M)))


if __name__ == "__main__":
    main()
