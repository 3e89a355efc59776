"""Where the workflow simulates each point of the configured design-space
sweeps (docs/configuration.md, "sweeps"): the rules of rules/sweep.smk and
rules/scaling.smk ask a :class:`SweepLayout` for their inputs.

A batched sweep (``sweeps.<name>.batch`` > 1) simulates a workload's points
in batches, one job each, into ``sweeps/<sweep>/batches/<wl>/<i>/<point>/``
(the files of rules simulate and power); an unbatched point is rule
simulate's ``sim/<wl>/<point>/``.
"""
from __future__ import annotations

import os

from ..sweeps import sweep_batches, sweep_points
from .paths import Paths


class SweepLayout:
    """The points, workloads and batches of every configured sweep, and the
    paths of their simulations.

    Parameters
    ----------
    sweeps : the configuration's ``sweeps`` section
    suite : the workloads of the suite (a sweep without ``workloads`` runs them)
    paths : the results tree
    """

    def __init__(self, sweeps: dict, suite: list, paths: Paths):
        self.specs = sweeps
        self.suite = list(suite)
        self.paths = paths
        self.points = {name: sweep_points(spec["base"], spec["vary"]) for name, spec in sweeps.items()}
        self.workloads = {name: list(spec["workloads"]) or self.suite for name, spec in sweeps.items()}
        self.batches = {name: sweep_batches(self.points[name], spec["batch"]) for name, spec in sweeps.items()}
        self._batch_of = {(name, p): i for name, chunks in self.batches.items()
                          for i, c in enumerate(chunks) for p in c}

    def point_dir(self, sweep, wl: str, point: str) -> str:
        """Where ``sweep``'s simulation of ``wl`` at ``point`` is (sweep None: rule simulate's)."""
        if (sweep, point) in self._batch_of:
            return self.paths.sweeps(sweep, "batches", wl, self._batch_of[(sweep, point)], point)
        return self.paths.sim_dir(wl, point)

    def point_inputs(self, sweep, wl: str, point: str, files) -> list[str]:
        """The input files for that simulation: its batch directory, or the named files."""
        d = self.point_dir(sweep, wl, point)
        return [os.path.dirname(d)] if (sweep, point) in self._batch_of else [f"{d}/{f}" for f in files]

    def inputs(self, sweep: str, files, wls=None) -> list[str]:
        """Input files of a stage reading a sweep: the batch directories, or
        the named files of every (point, workload) simulation (``wls``: only
        these workloads)."""
        wls = self.workloads[sweep] if wls is None else wls
        if self.batches[sweep]:
            return [self.paths.sweeps(sweep, "batches", wl, i) for i in range(len(self.batches[sweep]))
                    for wl in wls]
        return [self.paths.sim(f, wl, p["name"]) for p in self.points[sweep] for wl in wls for f in files]

    def dirs(self, sweep: str, wls=None) -> list[str]:
        """The simulation directory of every (point, workload), points outer."""
        return [d for by_wl in self.dir_map(sweep, wls).values() for d in by_wl.values()]

    def dir_map(self, sweep: str, wls=None) -> dict:
        """The same directories as {point name: {workload: directory}}: what a
        job reads by name rather than by position in a list."""
        wls = self.workloads[sweep] if wls is None else wls
        return {p["name"]: {wl: self.point_dir(sweep, wl, p["name"]) for wl in wls} for p in self.points[sweep]}

    def sampled(self, sweep: str, wl: str) -> bool:
        """Whether ``wl``'s points of ``sweep`` may be sampled
        (``sweeps.<name>.sampled`` and ``wl`` in the suite TBPoint
        validates); the job reads the validation's figures and decides
        (docs/tbpoint.md, "Sampled sweep points")."""
        return bool(self.specs[sweep]["sampled"]) and wl in self.suite
