"""What the Snakemake workflow shares with the library: every results path
(:mod:`.paths`)."""
from .paths import Paths

__all__ = ["Paths"]
