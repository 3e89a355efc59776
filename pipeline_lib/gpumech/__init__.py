"""GPUMech: interval analysis for GPUs (seed 000, chapter 4; seed 002).

- :mod:`.model`: the multi-warp model on an interval profile: issue
  probability, round-robin and greedy-then-oldest multithreading, MSHR and
  DRAM-bandwidth contention, the Table 8 baselines and CPI stacks
  (eqs. 10, 12, 14, 16-32; 4.7).
- :mod:`.contention`: ``MT_CONTENTION``, the contention-aware model: the
  representative warp's demands on the load/store unit, shared memory,
  MSHRs, L2 slices and DRAM channels as a closed queueing network solved by
  mean value analysis, with the launch tail.
"""
from .contention import Resources, predict_contention
from .model import MODELS, STACK, Contention, cpi_stack, predict

__all__ = ["MODELS", "STACK", "Contention", "Resources", "cpi_stack", "predict", "predict_contention"]
