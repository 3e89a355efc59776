"""Dynamic power from activity counts (the approach of GPUWattch, Leng et al.,
ISCA 2013, and AccelWattch, Kandiah et al., MICRO 2021): energy = sum over
events of count x energy per event, the core's events scaled with the
square of the core supply voltage; power = energy / time, so at fixed
activity per cycle the core's part scales with V^2 f.

Energies per event (picojoules at the reference voltage of 1.0 V) are
order-of-magnitude values from published 40-45 nm figures, per warp-wide
event (32 lanes, or one 128-byte line):

* arithmetic: Horowitz, "Computing's energy problem", ISSCC 2014 (45 nm):
  32-bit int add 0.1 pJ, int mult 3.1 pJ, FP32 add 0.9 pJ + mult 3.7 pJ,
  FP64 mult 20 pJ; x 32 lanes, with pipeline overhead for the int ops;
* register file, caches and shared memory: the same source's SRAM reads
  (8 KB: 10 pJ, 32 KB: 20 pJ, 1 MB: 100 pJ per 64 bits), x 16 for 1024 bits;
* DRAM: about 20 pJ/bit for a GDDR5 access including I/O (Keckler et al.,
  IEEE Micro 2011, put DRAM at tens of pJ/bit), x 1024 bits per line; a row
  activation about 2 nJ;
* the SM's clock network and pipeline latches, charged for every cycle an
  SM holds a block whether or not it issues (``sm_active_cycles``): the
  clock network took 32% of the Alpha 21264's power (Gowan, Biro and
  Jackson, DAC 1998), so per active SM cycle 0.32 / 0.68 of the energy of
  one FP32 warp instruction with two register reads and a write (20 + 150
  + 3 x 160 = 650 pJ), about 300 pJ.  Ours: GPUWattch and AccelWattch fold
  this into per-SM constant and idle power terms fitted to a real GPU.

The DRAM events (``MEMORY_SUPPLY``) are on the memory's own supply, whose
voltage the core's voltage/frequency table does not move: they are not
scaled with the core voltage.  (Before power model version 2 every event
was scaled with it, and no energy was charged for the clock of an SM that
stalls: power was then nearly a function of run time.  Seed 004's power
is the GPU's estimate of dynamic power from switching activity, III-A.)

They are not calibrated against a real GPU (we have no power meter); the
ML scaling model uses the relative changes across configurations, which
come from activity, voltage and frequency.  A hardware file may override any
of them with an ``energy_pj`` mapping.
"""
from __future__ import annotations

import numpy as np

REFERENCE_VOLTAGE = 1.0

ENERGY_PJ = {
    "issue": 20.0,            # fetch, decode, schedule one warp instruction
    "instrs_int": 16.0, "instrs_int_mul": 100.0, "instrs_fp32": 150.0, "instrs_fp64": 640.0,
    "instrs_sfu": 320.0, "instrs_branch": 8.0, "instrs_warp": 60.0,
    "reg_reads": 160.0, "reg_writes": 160.0,
    "l1_reads": 320.0, "l1_writes": 320.0, "shared_accesses": 320.0, "const_accesses": 10.0,
    "l2_accesses": 1600.0, "dram_reads": 20480.0, "dram_writes": 20480.0, "row_activations": 2000.0,
    "sm_active_cycles": 300.0,
}
#: events on the DRAM's supply: their energy does not scale with the core voltage
MEMORY_SUPPLY = ("dram_reads", "dram_writes", "row_activations")


def voltage(hw: dict, clock_mhz: float | None = None) -> float:
    """Supply voltage at ``clock_mhz`` (default: the core clock), linear
    between the points of ``vf_table``, clamped at its ends."""
    pts = hw["vf_table"]
    f = hw["core_clock_mhz"] if clock_mhz is None else clock_mhz
    return float(np.interp(f, [p["clock_mhz"] for p in pts], [p["voltage"] for p in pts]))


def power_table(activity, hw_power: dict):
    """Per-launch energy and dynamic power.

    ``hw_power`` is the power slice of a hardware configuration:
    ``core_clock_mhz``, ``vf_table`` and optional ``energy_pj`` overrides.
    """
    import pandas as pd

    energies = {**ENERGY_PJ, **hw_power.get("energy_pj", {})}
    v = voltage(hw_power)
    scale = (v / REFERENCE_VOLTAGE) ** 2
    issued = sum(activity[c] for c in activity.columns if c.startswith("instrs_"))
    out = pd.DataFrame({"launch": activity["launch"], "cycles": activity["cycles"]})
    total = issued * energies["issue"] * scale
    out["issue_j"] = total * 1e-12
    for name, pj in energies.items():
        if name == "issue" or name not in activity.columns:
            continue
        e = activity[name].to_numpy(np.float64) * pj * (1.0 if name in MEMORY_SUPPLY else scale)
        out[f"{name}_j"] = e * 1e-12
        total = total + e
    out["energy_j"] = total * 1e-12
    out["seconds"] = activity["cycles"] / (hw_power["core_clock_mhz"] * 1e6)
    out["voltage"] = v
    out["dynamic_power_w"] = np.where(out["seconds"] > 0, out["energy_j"] / out["seconds"].where(out["seconds"] > 0, 1), 0.0)
    return out
