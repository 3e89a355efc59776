"""PTX parser and numba SIMT functional emulator (the GPUOcelot role)."""
from .device import Device, EmulationError, LaunchInfo, LoadedModule, TraceChunk
from .parser import PTXError, parse_ptx

__all__ = ["Device", "EmulationError", "LaunchInfo", "LoadedModule", "PTXError", "TraceChunk", "parse_ptx"]
