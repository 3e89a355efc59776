"""What the workflow needs to know of the drivers without running one:
names, size parameters, types (seed Table 6), parameter checks and code
digests.  All of it is read from the drivers' own declarations
(``kind``, ``param_specs``, ``sizes``); importing the drivers loads numpy but
not the emulator, so the Snakefile can use this on every parse."""
from __future__ import annotations

import hashlib
from functools import lru_cache

from . import REGISTRY
from .base import ROOT
from .params import ParamError

__all__ = ["KINDS", "SIZES", "SIZE_NAMES", "ParamError", "check_params", "code_digest", "parameter_table"]

# small: tests and CI (under a second each); medium: the default studies
# (enough thread blocks and launches for sampling to matter); paper: near the
# seed's Table 6 scale (config/paper.yaml).
SIZE_NAMES = ("small", "medium", "paper")
KINDS = {name: cls.kind for name, cls in sorted(REGISTRY.items())}
SIZES = {name: {s: sorted(cls.sizes[s]) for s in SIZE_NAMES} for name, cls in sorted(REGISTRY.items())}


def check_params(benchmark: str, size: str, params: dict) -> dict:
    """The resolved parameters of ``benchmark`` at ``size`` with ``params``
    applied; :class:`~pipeline_lib.workloads.params.ParamError` names the field."""
    return REGISTRY[benchmark].resolve_params(size, params)


@lru_cache(maxsize=None)
def code_digest(benchmark: str) -> str:
    """SHA-256 over the workload's PTX, CUDA source, ptxas report, driver and
    the drivers' shared modules (``Workload.source_files``).  The trace rule
    passes it as a parameter, so an edit to any of them reruns exactly this
    workload's traces and everything downstream."""
    h = hashlib.sha256()
    for f in REGISTRY[benchmark].source_files():
        h.update(str(f.relative_to(ROOT)).encode() + b"\0")
        h.update(f.read_bytes() + b"\0")
    return h.hexdigest()[:16]




def parameter_table() -> str:
    """The Markdown table of every driver parameter (docs/workloads.md,
    "Parameter types and ranges"; a test keeps the two equal)."""
    rows = ["| benchmark | parameter | type and range | meaning |", "|---|---|---|---|"]
    for name, cls in sorted(REGISTRY.items()):
        for key, spec in cls.param_specs.items():
            rows.append(f"| {name} | `{key}` | {spec.describe()} | {spec.doc} |")
    return "\n".join(rows) + "\n"
