"""Detailed GPU timing simulation (the MacSim role): hardware configurations
so far; the cycle-level model follows."""
from .hardware import HardwareError, dram_bandwidth_gbs, load_hardware, occupancy

__all__ = ["HardwareError", "dram_bandwidth_gbs", "load_hardware", "occupancy"]
