"""Performance and power scaling across GPU configurations (seed 004):
scaling surfaces, their clusters and the classifiers that pick one from
counters measured at a base configuration (:mod:`.model`)."""
from .model import ScalingModel, scale

__all__ = ["ScalingModel", "scale"]
