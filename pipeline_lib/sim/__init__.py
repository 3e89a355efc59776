"""Detailed GPU timing simulation (the MacSim role): hardware configurations,
the cycle-level simulator (:mod:`.simulator`, core in :mod:`.engine`), the
power model (:mod:`.power`) and the sampled-simulation interface
(:mod:`.sampling`).  Heavy modules are imported on use, so that the workflow
can read hardware configurations cheaply."""
from .hardware import HardwareError, dram_bandwidth_gbs, load_hardware, occupancy

__all__ = ["HardwareError", "dram_bandwidth_gbs", "load_hardware", "occupancy"]
