"""Design-space sweeps declared in config: a base hardware configuration
and lists of values for variant keys (docs/hardware.md) expand to the
Cartesian product of named points, e.g. ``gpumech-baseline-sm4-cc700-mc1000``.

Kept free of heavy imports: the Snakefile expands sweeps on every parse.
"""
from __future__ import annotations

import itertools

from .sim.hardware import SCHEDULERS, VARIANT_FIELDS, variant_name


def sweep_points(base: str, vary: dict) -> list[dict]:
    """The points of one sweep in a fixed order (keys in variant order, the
    last key fastest), each ``{"name": ..., key: value, ...}``."""
    unknown = sorted(set(vary) - set(VARIANT_FIELDS))
    if unknown:
        raise ValueError(f"sweep of {base}: unknown key {unknown[0]!r} (known: {', '.join(VARIANT_FIELDS)})")
    keys = [k for k in VARIANT_FIELDS if k in vary]
    for k in keys:
        values = list(vary[k])
        if not values:
            raise ValueError(f"sweep of {base}: key {k!r} has no values")
        if len(set(values)) != len(values):
            raise ValueError(f"sweep of {base}: key {k!r} repeats a value")
        if k == "sched" and set(values) - set(SCHEDULERS):
            raise ValueError(f"sweep of {base}: sched values must be among {', '.join(SCHEDULERS)}")
    points = []
    for combo in itertools.product(*(vary[k] for k in keys)):
        fields = dict(zip(keys, combo))
        points.append({"name": variant_name(base, **fields), **fields})
    return points


def sweep_table(sweep: str, rows: list[dict], out) -> "pd.DataFrame":
    """One row per (point, workload): the point's variant fields, cycles,
    warp instructions, IPC, run time, dynamic energy and power.  ``rows``:
    dicts with ``point`` (from :func:`sweep_points`), ``workload``,
    ``core_clock_mhz``, the simulation ``summary`` and its ``power`` table."""
    import pandas as pd
    import pyarrow as pa

    from . import __version__
    from .io import TABLE_SCHEMA_VERSION, write_frame

    recs = []
    for r in rows:
        pt, s, pw = r["point"], r["summary"], r["power"]
        seconds = s["cycles"] / (r["core_clock_mhz"] * 1e6)
        energy = float(pw["energy_j"].sum())
        recs.append({"sweep": sweep, "point": pt["name"],
                     **{k: str(pt[k]) if k == "sched" else int(pt[k]) for k in VARIANT_FIELDS if k in pt},
                     "workload": r["workload"], "cycles": int(s["cycles"]), "warp_instrs": int(s["warp_instrs"]),
                     "ipc": float(s["ipc"]), "seconds": seconds, "energy_j": energy,
                     "dynamic_power_w": energy / seconds if seconds else 0.0,
                     "sampled": bool(s.get("sampled", False))})
    t = pd.DataFrame(recs)
    keys = [k for k in VARIANT_FIELDS if k in t.columns]
    docs = {k: d for k, (_, d) in VARIANT_FIELDS.items()}
    cols = [("sweep", pa.string(), ""), ("point", pa.string(), "hardware variant name"),
            *[(k, pa.string() if k == "sched" else pa.int64(), docs[k]) for k in keys],
            ("workload", pa.string(), ""), ("cycles", pa.int64(), "detailed simulation"),
            ("warp_instrs", pa.int64(), ""), ("ipc", pa.float64(), ""),
            ("seconds", pa.float64(), "cycles / core clock"), ("energy_j", pa.float64(), "dynamic energy"),
            ("dynamic_power_w", pa.float64(), "energy_j / seconds"),
            ("sampled", pa.bool_(), "estimated from TBPoint's sampled simulation (sweeps.<name>.sampled)")]
    write_frame(t, cols, "sweep_points", out, stage="sweep", schema_version=TABLE_SCHEMA_VERSION,
                meta={"sweep": sweep, "library_version": __version__})
    return t


def sweep_batches(points: list[dict], size: int) -> list[list[str]]:
    """The point names of a sweep in batches of ``size`` (``sweeps.<name>.batch``),
    each simulated by one job per workload; [] when ``size`` is 1 (one job
    per point, rule ``simulate``)."""
    if size <= 1:
        return []
    names = [p["name"] for p in points]
    return [names[i:i + size] for i in range(0, len(names), size)]


GRID_KEYS = ("sm", "cc", "mc")


def heatmap_clocks(cc, heatmap_cc: list) -> list[int]:
    """The heat maps' core clocks (``scaling.heatmap_cc``): the configured
    ones, or the grid's lowest and highest."""
    return [int(c) for c in heatmap_cc] if heatmap_cc else sorted({int(min(cc)), int(max(cc))})


def middle_point(sm, cc, mc) -> dict:
    """The middle value of each sorted grid axis (the default model base and
    study base)."""
    return {k: int(sorted(v)[len(v) // 2]) for k, v in zip(GRID_KEYS, (sm, cc, mc))}


def study_points(sm, cc, mc, bases: list) -> list[dict]:
    """The scaling study's bases (Figs. 13/16) as values: the configured
    ones, or the middle of each sorted axis and the four (SM count, DRAM
    clock) corners at the highest core clock."""
    if bases:
        return [{k: int(b[k]) for k in GRID_KEYS} for b in bases]
    axes = {"sm": sorted(sm), "cc": sorted(cc), "mc": sorted(mc)}
    out = [middle_point(sm, cc, mc)] + [{"sm": int(s), "cc": int(axes["cc"][-1]), "mc": int(m)}
                   for s in (axes["sm"][0], axes["sm"][-1]) for m in (axes["mc"][0], axes["mc"][-1])]
    return [dict(t) for t in dict.fromkeys(tuple(sorted(p.items())) for p in out)]


def grid_base(name: str, spec: dict, base: dict, study_bases: list, heatmap_cc: list) -> str:
    """Checks that sweep ``name`` is a scaling-model grid (its ``vary`` is
    exactly SM count, core clock and DRAM clock, two values or more each)
    and that the configured base points lie on it; returns the variant name
    of the model's base ({} = the middle value of each sorted axis)."""
    vary = spec["vary"]
    if sorted(vary) != sorted(GRID_KEYS) or any(len(vary[k]) < 2 for k in GRID_KEYS):
        raise ValueError(f"config: scaling.sweep {name!r} must vary exactly sm, cc and mc, each over two values "
                         f"or more (it varies {', '.join(f'{k}: {v}' for k, v in vary.items())})")
    axes = {k: sorted(vary[k]) for k in GRID_KEYS}
    for where, pt in [("scaling.base", base)] + [(f"scaling.study_bases[{i}]", b) for i, b in enumerate(study_bases)]:
        if not pt:
            continue
        for k in GRID_KEYS:
            if k not in pt or pt[k] not in axes[k]:
                raise ValueError(f"config: {where}.{k} = {pt.get(k)} is not among the sweep's values {axes[k]}")
    for cc in heatmap_cc:
        if cc not in axes["cc"]:
            raise ValueError(f"config: scaling.heatmap_cc has {cc}, not among the sweep's core clocks {axes['cc']}")
    point = {k: base[k] for k in GRID_KEYS} if base else middle_point(*(vary[k] for k in GRID_KEYS))
    return variant_name(spec["base"], **point)
