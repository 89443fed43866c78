"""Algorithm 1 and walk counts.

* :mod:`~graphinvariants.walks.summary`: the power summary (:func:`power_summary`,
  and :func:`power_iteration` for a whole batch at once).
* :mod:`~graphinvariants.walks.counts`: exact walk counts ``A^t 1`` of any size.
* :mod:`~graphinvariants.walks.large`: the same for one graph of up to 10^8 edges.
* :mod:`~graphinvariants.walks.closed`: closed-walk counts and profiles.

The digits in which counts beyond int64 are held live in
:mod:`graphinvariants.walks._limbs`.
"""

from .closed import closed_walk_counts, closed_walk_profile
from .counts import exact_walk_counts, float_walk_counts, walk_count_columns
from .summary import NORMALIZATIONS, PowerSummary, batch_power_summary, power_iteration, power_summary

__all__ = [
    "NORMALIZATIONS",
    "PowerSummary",
    "batch_power_summary",
    "closed_walk_counts",
    "closed_walk_profile",
    "exact_walk_counts",
    "float_walk_counts",
    "power_iteration",
    "power_summary",
    "walk_count_columns",
]
