"""Hardware configurations: loading, validation and derived quantities.

A configuration is a YAML file in ``config/hardware/`` validated against
``config/hardware/schema.yaml`` (fields in docs/hardware.md). It is kept as a
plain nested dict so that rules can pass exactly the slice they use through
``params:``.
"""
from __future__ import annotations

import copy
import functools
import re
from pathlib import Path

import yaml

from .. import schema_doc
from ..config import ROOT

HARDWARE_DIR = ROOT / "config" / "hardware"


#: hardware fields the timing simulation reads (rule simulate's params slice)
TIMING_FIELDS = ["name", "cores", "core_clock_mhz", "warp_size", "sm_limits", "issue_width", "scheduler",
                 "latency", "l1", "l2", "interconnect_latency", "dram"]
#: hardware fields the power model reads (rule power's params slice)
POWER_FIELDS = ["core_clock_mhz", "vf_table", "energy_pj"]
#: hardware fields :func:`occupancy` reads (TBPoint's epochs depend on nothing else)
OCCUPANCY_FIELDS = ["cores", "warp_size", "sm_limits"]


def hardware_slice(hw: dict, fields: list) -> dict:
    """The part of configuration ``hw`` a rule uses (so that editing another
    field does not rerun it)."""
    return {k: hw[k] for k in fields if k in hw}


class HardwareError(ValueError):
    """An invalid hardware configuration; the message names file and field."""


@functools.lru_cache(maxsize=1)
def hardware_schema() -> dict:
    """``config/hardware/schema.yaml``: every field with its unit, meaning
    and, for an optional one, its default."""
    return yaml.safe_load((HARDWARE_DIR / "schema.yaml").read_text())


@functools.lru_cache(maxsize=1)
def _validator():
    import jsonschema

    return jsonschema.Draft202012Validator(hardware_schema())


def _schema_node(path: str) -> dict:
    node = hardware_schema()
    for part in path.split("."):
        props = node.get("properties", {})
        if part not in props:
            raise KeyError(f"config/hardware/schema.yaml: no hardware field '{path}'")
        node = props[part]
    return node


def field_value(hw: dict, path: str):
    """The value of the dotted field ``path`` of configuration ``hw``, or the
    schema's default where the configuration omits it.  Defaults are not
    written into ``hw``, so a rule's parameters (its hardware slice) do not
    change when the schema gains an optional field."""
    node = hw
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            default = _schema_node(path).get("default")
            if default is None:
                raise KeyError(f"{hw.get('name', 'hardware')}: field '{path}' is missing and has no default "
                               "in config/hardware/schema.yaml")
            return default
        node = node[part]
    return node


def field_rows() -> list[tuple[str, str, str, str]]:
    """(dotted field, unit, default, meaning) of every documented field of
    the schema, in the schema's order (docs/hardware.md's table)."""
    return schema_doc.field_rows(hardware_schema(), into_described=False)


DOC_BEGIN = "<!-- fields: generated from config/hardware/schema.yaml by `python -m pipeline_lib.sim --hardware-doc` -->"
DOC_END = "<!-- end of fields -->"


def doc_table() -> str:
    """docs/hardware.md's field table, between its markers."""
    lines = ["| field | unit | default | meaning |", "|---|---|---|---|"]
    lines += [f"| `{f}` | {u} | {d} | {m} |" for f, u, d, m in field_rows()]
    return "\n".join(lines) + "\n"


def with_doc_table(text: str) -> str:
    """``text`` (docs/hardware.md) with its field table regenerated."""
    return schema_doc.replace_between(text, DOC_BEGIN, DOC_END, doc_table(), "docs/hardware.md")


@functools.lru_cache(maxsize=256)
def _parse(path: str, mtime_ns: int):
    """The parsed YAML of a hardware file (sweeps load one base hundreds of
    times; the modification time keys the cache)."""
    return yaml.safe_load(Path(path).read_text())


def _validate(cfg: dict, source: str) -> dict:
    errors = sorted(_validator().iter_errors(cfg), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        field = ".".join(str(p) for p in e.absolute_path) or "(top level)"
        raise HardwareError(f"{source}: invalid field '{field}': {e.message}")
    limits = cfg["sm_limits"]
    if limits["warps"] * cfg["warp_size"] < limits["threads"]:
        raise HardwareError(f"{source}: invalid field 'sm_limits.threads': {limits['threads']} threads need more "
                            f"than sm_limits.warps = {limits['warps']} warps")
    clocks = [p["clock_mhz"] for p in cfg["vf_table"]]
    if clocks != sorted(clocks) or len(set(clocks)) != len(clocks):
        raise HardwareError(f"{source}: invalid field 'vf_table': clocks must be strictly ascending")
    if cfg["l1"]["size_bytes"] % (cfg["l1"]["line_bytes"] * cfg["l1"]["assoc"]):
        raise HardwareError(f"{source}: invalid field 'l1.size_bytes': not a multiple of line size x associativity")
    if cfg["l2"]["size_bytes"] % (cfg["l2"]["line_bytes"] * cfg["l2"]["assoc"] * cfg["l2"]["slices"]):
        raise HardwareError(f"{source}: invalid field 'l2.size_bytes': not a multiple of line size x "
                            "associativity x slices")
    from .power import ENERGY_PJ
    unknown = sorted(set(cfg.get("energy_pj", {})) - set(ENERGY_PJ))
    if unknown:
        raise HardwareError(f"{source}: invalid field 'energy_pj.{unknown[0]}': not an event of the power model "
                            f"(known: {', '.join(sorted(ENERGY_PJ))})")
    for t, ns in cfg["dram"].get("fixed_ns", {}).items():
        # one cycle of slack: a variant's rounded timing may fall just below its fixed part
        if ns * cfg["core_clock_mhz"] / 1000.0 > cfg["dram"][t] + 1:
            raise HardwareError(f"{source}: invalid field 'dram.fixed_ns.{t}': {ns} ns is more than the whole "
                                f"dram.{t} ({cfg['dram'][t]} cycles at {cfg['core_clock_mhz']} MHz)")
    if cfg["l2"]["hit_latency"] < 2 * cfg["interconnect_latency"]:
        raise HardwareError(f"{source}: invalid field 'l2.hit_latency': {cfg['l2']['hit_latency']} cycles is less "
                            f"than the interconnect's round trip (2 x interconnect_latency)")
    return cfg


#: Variant suffixes: ``<base>-<key><integer>[-<key><integer>...]`` names the
#: base configuration with these fields replaced, e.g. ``tbpoint-fermi-sm7-w24``
#: (7 SMs, 24 resident warps per SM); the scheduler is a bare ``-rr`` or
#: ``-gto``.  Keys appear in this order, so that one configuration has one
#: name.
VARIANT_FIELDS = {
    "sched": (("scheduler",), "warp scheduler, written -rr or -gto"),
    "sm": (("cores",), "SM count"),
    "w": (("sm_limits", "warps"), "resident warps per SM; sm_limits.threads becomes warps x warp_size"),
    "cc": (("core_clock_mhz",), "core clock, MHz"),
    "mc": (("dram", "clock_mhz"), "DRAM clock, MHz"),
    "mshr": (("l1", "mshrs"), "L1 MSHRs per SM"),
}
_VARIANT_TOKEN = re.compile(r"^([a-z]+?)(\d+)$")
SCHEDULERS = ("rr", "gto")


def variant_name(base: str, **fields: int) -> str:
    """The composable name of ``base`` with ``fields`` (keys of :data:`VARIANT_FIELDS`) replaced."""
    unknown = sorted(set(fields) - set(VARIANT_FIELDS))
    if unknown:
        raise HardwareError(f"unknown hardware variant key {unknown[0]!r} (known: {', '.join(VARIANT_FIELDS)})")
    if "sched" in fields and fields["sched"] not in SCHEDULERS:
        raise HardwareError(f"unknown scheduler {fields['sched']!r} (known: {', '.join(SCHEDULERS)})")
    return "-".join([base] + [fields[k] if k == "sched" else f"{k}{int(fields[k])}"
                              for k in VARIANT_FIELDS if k in fields])


def _split_variant(stem: str, folder: Path) -> tuple[str, dict]:
    """Base name and variant fields of ``stem``; the base is the longest
    prefix of dash-separated tokens that names a file in ``folder``."""
    tokens = stem.split("-")
    for i in range(len(tokens) - 1, 0, -1):
        base = "-".join(tokens[:i])
        if not (folder / f"{base}.yaml").exists():
            continue
        fields = {}
        for tok in tokens[i:]:
            if tok in SCHEDULERS:
                if "sched" in fields:
                    raise HardwareError(f"hardware name {stem!r}: the scheduler given twice")
                fields["sched"] = tok
                continue
            m = _VARIANT_TOKEN.match(tok)
            if not m or m.group(1) not in VARIANT_FIELDS or m.group(1) == "sched":
                raise HardwareError(f"hardware name {stem!r}: {tok!r} is not a variant suffix rr, gto or "
                                    f"<key><integer> (keys: "
                                    f"{', '.join(f'{k} = {d}' for k, (_, d) in VARIANT_FIELDS.items() if k != 'sched')})")
            if m.group(1) in fields:
                raise HardwareError(f"hardware name {stem!r}: {m.group(1)!r} given twice")
            fields[m.group(1)] = int(m.group(2))
        canonical = variant_name(base, **fields)
        if canonical != stem:
            raise HardwareError(f"hardware name {stem!r}: write the variant keys in the order "
                                f"rr/gto, {', '.join(k for k in VARIANT_FIELDS if k != 'sched')}: {canonical!r}")
        return base, fields
    return "", {}


#: DRAM timings written in core cycles; they are DRAM-clock timings, so a
#: variant keeps them in DRAM cycles (below), all but their ``dram.fixed_ns`` part.
DRAM_TIMINGS = ("latency", "row_miss_latency")


def rescaled_dram_timing(cycles: int, fixed_ns: float, core_mhz: float, dram_mhz: float,
                         new_core_mhz: float, new_dram_mhz: float) -> int:
    """A DRAM timing of ``cycles`` core cycles at (``core_mhz``, ``dram_mhz``)
    at new clocks, in core cycles: ``fixed_ns`` of it stays in time, the rest
    stays in DRAM cycles.  Rounded, at least 1."""
    if not fixed_ns:   # the whole timing in DRAM cycles (the ratio as written before fixed_ns existed)
        return max(1, int(round(cycles * (new_core_mhz / core_mhz * dram_mhz / new_dram_mhz))))
    dram_part_ns = cycles * 1000.0 / core_mhz - fixed_ns
    return max(1, int(round((fixed_ns + dram_part_ns * dram_mhz / new_dram_mhz) * new_core_mhz / 1000.0)))


def _apply_variant(cfg: dict, fields: dict) -> dict:
    cfg = copy.deepcopy(cfg)
    # The file writes the DRAM's timings in core cycles at its own clocks.
    # Most of such a timing is DRAM clock cycles (the controller's and the
    # interface's pipeline), so a core- or memory-clock variant rescales it
    # by (new core clock / old) x (old DRAM clock / new): raising the core
    # clock does not make DRAM faster, lowering the DRAM clock makes it
    # slower.  The part given in ``dram.fixed_ns`` is a time that no clock
    # of the GPU changes (the DRAM arrays' own timings, which datasheets
    # give in nanoseconds and a controller keeps in time at every memory
    # clock by its timing tables): it stays in nanoseconds, so it costs
    # more core cycles at a faster core clock (docs/hardware.md).
    if "cc" in fields or "mc" in fields:
        d = cfg["dram"]
        for t in DRAM_TIMINGS:
            d[t] = rescaled_dram_timing(d[t], d.get("fixed_ns", {}).get(t, 0.0), cfg["core_clock_mhz"],
                                        d["clock_mhz"], fields.get("cc", cfg["core_clock_mhz"]),
                                        fields.get("mc", d["clock_mhz"]))
    for key, value in fields.items():
        path = VARIANT_FIELDS[key][0]
        node = cfg
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value
        if key == "w":
            cfg["sm_limits"]["threads"] = value * cfg["warp_size"]
    return cfg


def load_hardware(name_or_path) -> dict:
    """Load and validate a configuration by name (``config/hardware/<name>.yaml``)
    or path.  A name that is not a file may be a variant of one
    (:data:`VARIANT_FIELDS`): the base file with those fields replaced,
    validated again and named by the full name."""
    p = Path(name_or_path)
    if p.suffix not in (".yaml", ".yml"):
        p = HARDWARE_DIR / f"{name_or_path}.yaml"
    variant = {}
    if not p.exists():
        base, variant = _split_variant(p.stem, p.parent)
        if not base:
            known = sorted(x.stem for x in p.parent.glob("*.yaml") if x.stem != "schema")
            raise HardwareError(f"no hardware configuration {str(p)!r} (known in {p.parent}: {', '.join(known)}; "
                                f"variants: <name>[-rr|-gto][-<key><integer>...], keys "
                                f"{', '.join(k for k in VARIANT_FIELDS if k != 'sched')})")
        p = p.parent / f"{base}.yaml"
    try:
        cfg = copy.deepcopy(_parse(str(p), p.stat().st_mtime_ns))
    except yaml.YAMLError as e:
        raise HardwareError(f"{p}: not valid YAML: {e}") from None
    cfg = _validate(cfg if isinstance(cfg, dict) else {}, str(p))
    if cfg["name"] != p.stem:
        raise HardwareError(f"{p}: invalid field 'name': '{cfg['name']}' differs from the file name '{p.stem}'")
    if variant:
        name = variant_name(p.stem, **variant)
        cfg = _validate({**_apply_variant(cfg, variant), "name": name}, f"{p} as variant {name}")
    return cfg


def dram_bandwidth_gbs(hw: dict) -> float:
    """Peak DRAM bandwidth in GB/s (10^9 bytes/s): channels x bus bytes x clock x transfers per clock."""
    d = hw["dram"]
    return d["channels"] * d["bus_bits_per_channel"] / 8 * d["clock_mhz"] * 1e6 * d["transfers_per_clock"] / 1e9


def l2_service_cycles(hw: dict) -> int:
    """Core cycles an L2 slice is busy per request: line bytes / bytes per clock, rounded up."""
    return max(1, -(-hw["l2"]["line_bytes"] // hw["l2"]["bytes_per_clock"]))


def dram_burst_cycles(hw: dict) -> float:
    """Core cycles a DRAM channel's data bus is busy per line (eq. 31's s for one channel)."""
    d = hw["dram"]
    bytes_per_core_cycle = d["bus_bits_per_channel"] / 8 * d["clock_mhz"] * d["transfers_per_clock"] / hw["core_clock_mhz"]
    return float(hw["l2"]["line_bytes"] / bytes_per_core_cycle)


def occupancy(hw: dict, threads_per_block: int, regs_per_thread: int, shared_bytes: int) -> dict:
    """Blocks resident per SM (SM occupancy) and in the GPU (system occupancy,
    seed 3.2.1) for a kernel, and the limiting resource.

    Registers are counted per thread without allocation granularity and warps
    are whole (a 48-thread block takes 2 warps): a documented simplification
    of the CUDA occupancy calculator.
    """
    lim = hw["sm_limits"]
    warps = -(-threads_per_block // hw["warp_size"])
    bounds = {
        "blocks": lim["blocks"],
        "warps": lim["warps"] // warps,
        "threads": lim["threads"] // threads_per_block,
        "registers": lim["registers"] // max(1, regs_per_thread * warps * hw["warp_size"]),
        "shared": lim["shared_bytes"] // shared_bytes if shared_bytes else lim["blocks"],
    }
    limiter = min(bounds, key=lambda k: (bounds[k], list(bounds).index(k)))
    per_sm = bounds[limiter]
    if per_sm < 1:
        raise HardwareError(f"{hw.get('name', 'hardware')}: a block of {threads_per_block} threads, {regs_per_thread} registers/thread "
                            f"and {shared_bytes} B shared memory does not fit on an SM (limited by {limiter})")
    return {"sm_occupancy": per_sm, "system_occupancy": per_sm * hw["cores"], "limited_by": limiter}

