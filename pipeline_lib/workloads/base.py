"""Common machinery of the host drivers.

A driver is a subclass of :class:`Workload`: ``make_inputs`` builds numpy
inputs from a seeded generator and the size parameters, ``run`` drives the
emulated GPU (allocations, launches, data-dependent launch loops) and returns
numpy outputs, ``reference`` computes the same answer independently (numpy,
scipy) and ``check`` compares them, raising :class:`CheckError` on mismatch.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path

import numpy as np

from ..ptx import Device

WORKLOAD_DIR = Path(__file__).resolve().parents[2] / "workloads"
REGISTRY: dict[str, type] = {}


class CheckError(AssertionError):
    """The emulated result disagrees with the reference."""


def register(cls):
    from .registry_info import KINDS

    cls.kind = KINDS[cls.name]
    REGISTRY[cls.name] = cls
    return cls


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
    kind = ""          # "irregular" or "regular" (seed Table 6 types I and II), from registry_info.KINDS
    sizes: dict[str, dict] = {}

    def __init__(self, size: str = "small", seed: int = 1, **overrides):
        if size not in self.sizes:
            raise ValueError(f"workload {self.name}: unknown size {size!r} (have {sorted(self.sizes)})")
        params = dict(self.sizes[size])
        unknown = set(overrides) - set(params)
        if unknown:
            raise ValueError(f"workload {self.name}: unknown parameters {sorted(unknown)} "
                             f"(have {sorted(params)})")
        params.update(overrides)
        self.size, self.seed, self.params = size, int(seed), params

    @abstractmethod
    def make_inputs(self, rng: np.random.Generator) -> dict:
        ...

    @abstractmethod
    def run(self, dev: Device, mod, inp: dict) -> dict:
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

    def execute(self, dev: Device) -> dict:
        """Make inputs, run on ``dev``, check against the reference.

        Returns a summary dict (launch count, check status)."""
        rng = np.random.default_rng(self.seed)
        inp = self.make_inputs(rng)
        mod = dev.load_module(WORKLOAD_DIR / self.ptx)
        before = dev.launches
        out = self.run(dev, mod, inp)
        self.check(out, self.reference(inp, out))
        return {"workload": self.name, "size": self.size, "seed": self.seed,
                "launches": dev.launches - before, "check": "passed"}
