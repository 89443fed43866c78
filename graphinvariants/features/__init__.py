"""Graphs to rows: one feature map for every kernel (see :mod:`graphinvariants.features.maps`).

:class:`GraphFeatures` maps graphs to rows whose inner products are the kernel, for a
fixed member, a combination or the learned default: exact where a finite map exists
(count members, random features), Nystroem on ``n_landmarks`` landmarks for the rest.
:class:`LearnedFeatures` is its deprecated 0.2 name for the learned default.
"""

from .maps import DEFAULT_BANDWIDTHS, GraphFeatures, LearnedFeatures, subset

__all__ = ["DEFAULT_BANDWIDTHS", "GraphFeatures", "LearnedFeatures", "subset"]
