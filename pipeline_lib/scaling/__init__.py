"""Performance and power scaling across GPU configurations (seed 004):
scaling surfaces, their clusters and the classifiers that pick one from
counters measured at a base configuration (:mod:`.model`), the Table II
counters from traces and simulations (:mod:`.counters`), and the
validation of section V (:mod:`.evaluate`)."""
from .model import ScalingModel, scale, scale_grid

__all__ = ["ScalingModel", "scale", "scale_grid"]
