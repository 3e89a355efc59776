"""Every results path of the workflow, in one place (as legend-simflow's
patterns module): the rules, the benchmarks and the library name their
files through :class:`Paths`, so a layout change is made here once.

Each method names one directory of the results tree and takes the path's
remaining components.  A rule passes Snakemake wildcards as the strings
``"{wl}"``, ``"{hw}"`` and so on (:data:`WL`, :data:`HW`); a concrete file
passes the names themselves.  Nothing here touches the file system.
"""
from __future__ import annotations

#: wildcard components of rule patterns
WL, HW = "{wl}", "{hw}"


class Paths:
    """The results tree under ``root`` (the configuration's ``results_dir``).

    ``traces/{wl}/``: a workload's trace tables and check;
    ``traceg/{wl}/``: its export in Accel-Sim's format;
    ``sim/{wl}/{hw}/``: a full simulation and its power;
    ``tbpoint/``, ``gpumech/``, ``sweeps/``, ``scaling/``, ``simprof/``: the
    methods' and the sweeps' outputs; ``logs/{stage}/...``: the jobs' logs.
    """

    def __init__(self, root):
        self.root = str(root)

    def _join(self, *parts) -> str:
        return "/".join([self.root, *map(str, parts)])

    def trace(self, name: str, wl: str = WL) -> str:
        """``name`` (``check.json`` or ``<table>.parquet``) of ``wl``'s trace."""
        return self._join("traces", wl, name)

    def trace_dir(self, wl: str = WL) -> str:
        return self._join("traces", wl)

    def traces(self) -> str:
        """The directory of every workload's trace."""
        return self._join("traces")

    def trace_tables(self, tables, wl: str = WL) -> list[str]:
        return [self.trace(f"{t}.parquet", wl) for t in tables]

    def traceg(self, wl: str = WL) -> str:
        """The directory of ``wl``'s Accel-Sim-format export."""
        return self._join("traceg", wl)

    def sim(self, name: str, wl: str = WL, hw: str = HW) -> str:
        """``name`` of the full simulation of ``wl`` on ``hw``."""
        return self._join("sim", wl, hw, name)

    def sim_dir(self, wl: str = WL, hw: str = HW) -> str:
        return self._join("sim", wl, hw)

    def tbpoint(self, *parts) -> str:
        return self._join("tbpoint", *parts)

    def gpumech(self, *parts) -> str:
        return self._join("gpumech", *parts)

    def sweeps(self, *parts) -> str:
        return self._join("sweeps", *parts)

    def scaling(self, *parts) -> str:
        return self._join("scaling", *parts)

    def simprof(self, *parts) -> str:
        return self._join("simprof", *parts)

    def method(self, method: str, *parts) -> str:
        """A path under a method's directory named at run time (the report's pages)."""
        return self._join(method, *parts)

    def log(self, stage: str, *keys) -> str:
        """The log of one job of ``stage``: ``logs/{stage}/{keys...}.log``,
        or ``logs/{stage}.log`` for a stage of one job."""
        if not keys:
            return self._join("logs", f"{stage}.log")
        *dirs, last = keys
        return self._join("logs", stage, *dirs, f"{last}.log")
