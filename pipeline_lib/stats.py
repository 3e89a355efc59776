"""Small statistics shared by the trace summaries and the sampling methods."""
import numpy as np


def cov(v) -> float:
    """Coefficient of variation, population standard deviation / mean (0 for
    an empty or all-zero sample)."""
    v = np.asarray(v, np.float64)
    m = v.mean() if len(v) else 0.0
    return float(v.std() / m) if m > 0 else 0.0
