"""Algorithm 1 and walk counts.

* :mod:`~graphinvariants.walks.summary`: the power summary (:func:`power_summary`).
* :mod:`~graphinvariants.walks.large`: the same for one graph of up to 10^8 edges.
* :mod:`~graphinvariants.walks.closed`: closed-walk counts and profiles.
"""

from .closed import closed_walk_counts, closed_walk_profile
from .summary import PowerSummary, power_summary

__all__ = ["PowerSummary", "closed_walk_counts", "closed_walk_profile", "power_summary"]
