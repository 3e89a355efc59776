"""Common machinery of the host drivers.

A driver is a subclass of :class:`Workload`: ``make_inputs`` builds numpy
inputs from a seeded generator and the size parameters, ``run`` drives the
emulated GPU (allocations, launches, data-dependent launch loops) and returns
numpy outputs, ``reference`` computes the same answer independently (numpy,
scipy) and ``check`` compares them, raising :class:`CheckError` on mismatch.
"""
from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .params import Param, ParamError

if TYPE_CHECKING:  # the emulator (numba) is imported only where a driver runs
    from ..ptx import Device

ROOT = Path(__file__).resolve().parents[2]
WORKLOAD_DIR = ROOT / "workloads"
REGISTRY: dict[str, type] = {}
TABLE6_TYPES = ("irregular", "regular")   # seed Table 6 types I (block sizes vary) and II


class CheckError(AssertionError):
    """The emulated result disagrees with the reference."""


def register(cls):
    """Add a driver to the registry, checking its declarations."""
    if cls.kind not in TABLE6_TYPES:
        raise TypeError(f"workload {cls.name}: kind must be one of {TABLE6_TYPES}, not {cls.kind!r}")
    for size, values in cls.sizes.items():
        if set(values) != set(cls.param_specs):
            raise TypeError(f"workload {cls.name}: size {size!r} sets {sorted(values)}, "
                            f"param_specs declares {sorted(cls.param_specs)}")
        for key, value in values.items():
            cls.param_specs[key].check(key, value)
    REGISTRY[cls.name] = cls
    return cls


class SourceOutOfDate(RuntimeError):
    """The CUDA source changed after its committed PTX was made."""


def source_digest(cu: Path) -> str:
    """The digest that ``build_ptx`` records in ``NAME.ptxas.txt`` for ``NAME.cu``."""
    return hashlib.sha256(cu.read_bytes()).hexdigest()


def check_ptx_current(ptx: Path) -> None:
    """Raise :class:`SourceOutOfDate` if ``ptx``'s CUDA source was edited
    after the PTX was made (the digest recorded by ``make ptx`` differs), so
    that an edited kernel is never traced from its old PTX."""
    cu, info = ptx.with_suffix(".cu"), ptx.with_suffix(".ptxas.txt")
    if not cu.exists() or not info.exists():
        return
    recorded = next((ln.split()[-1] for ln in info.read_text().splitlines()
                     if ln.startswith("source sha256")), None)
    if recorded is not None and recorded != source_digest(cu):
        raise SourceOutOfDate(f"{cu} was edited after {ptx.name} was made from it: run `make ptx` "
                              f"(needs nvcc) and commit the new {ptx.name} and {info.name}")


def grid_for(n: int, block: int) -> int:
    return max(1, (int(n) + block - 1) // block)


def assert_close(name: str, got, want, rtol: float, atol: float):
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    if got.shape != want.shape:
        raise CheckError(f"{name}: shape {got.shape} != reference {want.shape}")
    bad = ~np.isclose(got, want, rtol=rtol, atol=atol)
    if bad.any():
        i = int(np.flatnonzero(bad.ravel())[0])
        raise CheckError(f"{name}: {int(bad.sum())} of {bad.size} values differ from the reference "
                         f"(first at flat index {i}: {got.ravel()[i]!r} vs {want.ravel()[i]!r}, "
                         f"rtol={rtol}, atol={atol})")


def assert_equal(name: str, got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        raise CheckError(f"{name}: shape {got.shape} != reference {want.shape}")
    bad = got != want
    if bad.any():
        i = int(np.flatnonzero(bad.ravel())[0])
        raise CheckError(f"{name}: {int(bad.sum())} of {bad.size} values differ from the reference "
                         f"(first at flat index {i}: {got.ravel()[i]!r} vs {want.ravel()[i]!r})")


class Workload(ABC):
    """Base class. Subclasses set ``name``, ``ptx``, ``sizes`` and implement
    the four abstract methods."""

    name = ""
    ptx = ""
    description = ""
    kind = ""          # "irregular" or "regular" (seed Table 6 types I and II)
    param_specs: dict[str, Param] = {}   # every size parameter: type, range, meaning
    sizes: dict[str, dict] = {}

    def __init__(self, size: str = "small", seed: int = 1, **overrides):
        self.size, self.seed = size, int(seed)
        self.params = self.resolve_params(size, overrides)

    @classmethod
    def resolve_params(cls, size: str, overrides: dict) -> dict:
        """The parameters of ``size`` with ``overrides`` applied, each checked
        against ``param_specs``; :class:`ParamError` names the bad field."""
        if size not in cls.sizes:
            raise ValueError(f"workload {cls.name}: unknown size {size!r} (have {sorted(cls.sizes)})")
        params = dict(cls.sizes[size])
        for key, value in overrides.items():
            if key not in cls.param_specs:
                raise ParamError(key, f"not a parameter of {cls.name} (have {', '.join(sorted(cls.param_specs))})")
            params[key] = cls.param_specs[key].check(key, value)
        return params

    @classmethod
    def source_files(cls) -> list[Path]:
        """Every file whose content decides this workload's trace: its PTX,
        CUDA source and ptxas report, its driver module and the drivers' shared
        code (the code digest of the trace rule is taken over these)."""
        import inspect

        here = Path(__file__).resolve().parent
        ptx = WORKLOAD_DIR / cls.ptx
        files = [ptx, ptx.with_suffix(".cu"), ptx.with_suffix(".ptxas.txt"),
                 Path(inspect.getsourcefile(cls)).resolve(), here / "base.py", here / "inputs.py",
                 here / "params.py"]
        return [f for f in dict.fromkeys(files) if f.exists()]

    @abstractmethod
    def make_inputs(self, rng: np.random.Generator) -> dict:
        ...

    @abstractmethod
    def run(self, dev: "Device", mod, inp: dict) -> dict:
        ...

    @abstractmethod
    def reference(self, inp: dict, out: dict | None = None) -> dict:
        """Independent answer. Drivers whose launches depend on earlier
        results (iterative methods) may replay each launch from the inputs
        recorded in ``out`` so that chaotic float32/float64 divergence is not
        mistaken for an error; they still recompute every value themselves."""
        ...

    @abstractmethod
    def check(self, out: dict, ref: dict) -> None:
        ...

    def execute(self, dev: "Device") -> dict:
        """Make inputs, run on ``dev``, check against the reference.

        Returns a summary dict (launch count, check status)."""
        check_ptx_current(WORKLOAD_DIR / self.ptx)
        rng = np.random.default_rng(self.seed)
        inp = self.make_inputs(rng)
        mod = dev.load_module(WORKLOAD_DIR / self.ptx)
        before = dev.launches
        out = self.run(dev, mod, inp)
        self.check(out, self.reference(inp, out))
        return {"workload": self.name, "size": self.size, "seed": self.seed,
                "launches": dev.launches - before, "check": "passed"}
