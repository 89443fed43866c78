"""Graphs to rows: one feature map for every kernel (see :mod:`graphinvariants.features.maps`).

:class:`GraphFeatures` maps graphs to rows whose inner products are the kernel, for a
fixed member, a combination or the learned default: exact where a finite map exists
(count members, random features), Nystroem on ``n_landmarks`` landmarks for the rest.
Its deprecated 0.2 names (``LearnedFeatures``, ``NystroemGraphKernel``,
``MeanMapFeatures``) are in :mod:`graphinvariants.features.deprecated`, read through
``graphinvariants``.
"""

from .maps import DEFAULT_BANDWIDTHS, GraphFeatures, subset

__all__ = ["DEFAULT_BANDWIDTHS", "GraphFeatures", "subset"]
