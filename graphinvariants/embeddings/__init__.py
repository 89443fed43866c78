"""Functionals of the power summary: how each graph becomes an embedding.

* :class:`GaussianEmbedding` (the paper): mean and covariance of the node profiles,
  :class:`GaussianBatch` of arrays with :class:`PowerInvariants` per-graph views.
* :class:`WalkHistogram`: histogram of exact walk-count profiles.
* :class:`Functional`: the protocol both implement, and any new functional too.
"""

from .base import Functional
from .gaussian import (
    DEFAULT_RIDGE,
    GaussianBatch,
    GaussianEmbedding,
    PowerInvariants,
    batch_power_invariants,
    load_invariants,
    power_invariants,
    save_invariants,
)
from .histogram import HistogramBatch, WalkHistogram

__all__ = [
    "DEFAULT_RIDGE",
    "Functional",
    "GaussianBatch",
    "GaussianEmbedding",
    "HistogramBatch",
    "PowerInvariants",
    "WalkHistogram",
    "batch_power_invariants",
    "load_invariants",
    "power_invariants",
    "save_invariants",
]
