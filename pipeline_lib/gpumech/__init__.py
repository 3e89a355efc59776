"""GPUMech: interval analysis for GPUs (seed 000, chapter 4; seed 002).

- :mod:`.model`: the multi-warp model on an interval profile: issue
  probability, round-robin and greedy-then-oldest multithreading, MSHR and
  DRAM-bandwidth contention, the Table 8 baselines and CPI stacks
  (eqs. 10, 12, 14, 16-32; 4.7).
"""
from .model import MODELS, STACK, Contention, cpi_stack, predict

__all__ = ["MODELS", "STACK", "Contention", "cpi_stack", "predict"]
