"""Simulation-methodology toolkit: trace generation, detailed GPU simulation,
TBPoint, GPUMech, the ML scaling model and SimProf."""
__version__ = "0.1.0"
