"""The interface sampling methods drive the detailed simulator through.

A :class:`SamplingPolicy` decides which launches are simulated
(inter-launch sampling) and, inside a simulated launch, may watch block
retirements and fast-forward blocks that are not yet dispatched
(intra-launch sampling, seed 3.4.4: a sampling unit is the lifetime of a
block).  Skipped work is reported, not timed: the policy predicts its
cycles (the seed's Table 4 accounting) in :meth:`SamplingPolicy.predict`.

:func:`run_sampled` runs a policy and returns one row per launch with the
simulated and predicted figures and the sample size.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .simulator import LaunchControl, Simulator


class SamplingPolicy:
    """Full simulation; subclasses override the hooks they need."""

    #: stop the simulator at every block retirement and call blocks_retired
    watch_blocks = False
    #: replay the memory lines of skipped blocks and launches through the
    #: caches without timing (functional warming, docs/simulator.md)
    functional_warming = False

    def select_launch(self, launch: dict) -> bool:
        """Simulate this launch (a row of the trace's launches table)?"""
        return True

    def launch_begin(self, control: LaunchControl) -> None:
        """Called before the launch's first block is dispatched."""

    def blocks_retired(self, control: LaunchControl, blocks: np.ndarray) -> None:
        """Called after ``blocks`` retired (before their SMs receive new
        blocks); may call ``control.skip`` for blocks not yet dispatched."""

    def launch_end(self, row: dict) -> None:
        """Called with the simulated launch's statistics row."""

    def predict(self, launch: dict, row: dict | None) -> float:
        """Predicted cycles of ``launch``: ``row`` is its simulated row, or
        None when the launch was not selected.  Default: the simulated
        cycles plus the skipped instructions at the simulated IPC."""
        if row is None:
            raise TypeError(f"{type(self).__name__} skips launch {launch['launch']} but does not override "
                            "predict(), which must give the cycles of the launches it skips")
        ipc = row["ipc"] if row["ipc"] > 0 else 1.0
        return row["cycles"] + row["skipped_warp_instrs"] / ipc


class SkipBlocksPolicy(SamplingPolicy):
    """Simulate the first ``keep`` blocks of every launch and fast-forward the
    rest (the simplest intra-launch sampling; a reference for tests and for
    the Random baseline's accounting)."""

    watch_blocks = True

    def __init__(self, keep: int):
        self.keep = keep

    def launch_begin(self, control):
        if control.n_blocks > self.keep:
            control.skip(np.arange(self.keep, control.n_blocks))


def run_sampled(sim: Simulator, policy: SamplingPolicy) -> pd.DataFrame:
    """Run ``policy`` on ``sim``; one row per launch (:func:`sampled_rows`)."""
    return sampled_rows(sim.trace.launches, sim.run(policy).launches, policy)


def sampled_rows(trace_launches: pd.DataFrame, sim_launches: pd.DataFrame, policy: SamplingPolicy) -> pd.DataFrame:
    """One row per launch of the workload after a run of ``policy``: whether
    it was simulated, simulated cycles and warp instructions, skipped warp
    instructions, predicted cycles and the launch's total instructions."""
    simulated = {int(r["launch"]): r for r in sim_launches.to_dict("records")}
    rows = []
    for launch in trace_launches.sort_values("launch").to_dict("records"):
        r = simulated.get(int(launch["launch"]))
        rows.append({"launch": int(launch["launch"]), "simulated": r is not None,
                     "simulated_cycles": int(r["cycles"]) if r else 0,
                     "simulated_warp_instrs": int(r["warp_instrs"]) if r else 0,
                     "skipped_warp_instrs": int(r["skipped_warp_instrs"]) if r else int(launch["warp_instrs"]),
                     "total_warp_instrs": int(launch["warp_instrs"]),
                     "predicted_cycles": float(policy.predict(launch, r))})
    return pd.DataFrame(rows)
