"""Functionals of the power summary: how each graph becomes an embedding.

* :class:`GaussianEmbedding` (the paper): mean and covariance of the node profiles,
  :class:`GaussianBatch` of arrays with :class:`PowerInvariants` per-graph views.
* :class:`WalkHistogram`: histogram of exact walk-count profiles.
* :class:`LabelledWalkHistogram`: walk counts started from node-label indicators.
* :class:`MeanMap`: kernel mean embedding of the node profiles (exact, or random
  Fourier features).
* :class:`PropagatedAttributes`: kernel mean embedding of continuous node attributes
  averaged along walks (bandwidth and scaling fitted on the data).
* :class:`WeisfeilerLehman`: the Weisfeiler-Lehman subtree kernel (the usual baseline).
* :class:`WeisfeilerLehmanOptimalAssignment`, :class:`WalkHistogramOptimalAssignment`,
  :class:`LabelledWalkHistogramOptimalAssignment`: optimal-assignment (histogram
  intersection) kernels over the hierarchies of those count functionals
  (:class:`OptimalAssignment` turns any of them into that form).
* :class:`ClosedWalkHistogram`: histogram of exact closed-walk profiles ``(A^t)_ii``.
* :class:`ClosedWalkGaussian`: the Gaussian (power-kernel) form of the log closed-walk profiles.
* :class:`RootedSubgraph`: counts of the exact isomorphism classes (BLISS canonical
  forms) of every node's rooted neighbourhoods, in the spirit of NSPDK.
* :class:`FolkloreWL`, :class:`LocalWL`: higher-order Weisfeiler-Leman over node pairs
  (folklore 2-WL, with individualisation past 3-WL; local 2-WL for large graphs).

* :class:`MolecularDescriptors`: an RBF kernel on standardised RDKit descriptors of
  molecules (needs RDKit).
* :class:`NodeCount`: the kernel ``min(n) / max(n)`` on node counts (size, as a factor).
* :class:`Combination`: products and sums of the kernels of several functionals.
* :class:`Functional`: the protocol both implement, and any new functional too.
"""

from .assignment import (
    LabelledWalkHistogramOptimalAssignment,
    OptimalAssignment,
    WalkHistogramOptimalAssignment,
    WeisfeilerLehmanOptimalAssignment,
)
from .base import Functional
from .combination import Combination
from .gaussian import (
    DEFAULT_RIDGE,
    GaussianBatch,
    GaussianEmbedding,
    PowerInvariants,
    batch_power_invariants,
    power_invariants,
)
from .invariants_file import load_invariants, save_invariants
from .histogram import HistogramBatch, WalkHistogram
from .labelled import LabelledHistogramBatch, LabelledWalkHistogram
from .meanmap import MeanMap, MeanMapBatch
from .wl import WeisfeilerLehman, WLBatch
from .closed import ClosedHistogramBatch, ClosedWalkGaussian, ClosedWalkHistogram
from .size import NodeCount, NodeCountBatch

__all__ = [
    "DEFAULT_RIDGE",
    "Combination",
    "Functional",
    "GaussianBatch",
    "GaussianEmbedding",
    "HistogramBatch",
    "LabelledHistogramBatch",
    "LabelledWalkHistogram",
    "MeanMap",
    "MeanMapBatch",
    "PowerInvariants",
    "WalkHistogram",
    "WLBatch",
    "WeisfeilerLehman",
    "batch_power_invariants",
    "load_invariants",
    "power_invariants",
    "save_invariants",
    "OptimalAssignment",
    "WeisfeilerLehmanOptimalAssignment",
    "WalkHistogramOptimalAssignment",
    "LabelledWalkHistogramOptimalAssignment",
    "ClosedHistogramBatch",
    "ClosedWalkGaussian",
    "ClosedWalkHistogram",
    "NodeCount",
    "NodeCountBatch",
]
from .attributes import PropagatedAttributes, propagated_attributes  # noqa: E402

__all__ += ["PropagatedAttributes", "propagated_attributes"]
from .rooted import RootedSubgraph, RootedSubgraphBatch, rooted_subgraph_classes  # noqa: E402

__all__ += ["RootedSubgraph", "RootedSubgraphBatch", "rooted_subgraph_classes"]

from .shortest_path import ShortestPath, ShortestPathBatch  # noqa: E402

__all__ += ["ShortestPath", "ShortestPathBatch"]

from .higher_wl import FolkloreWL, HigherWLBatch, LocalWL  # noqa: E402

__all__ += ["FolkloreWL", "HigherWLBatch", "LocalWL"]

from .descriptors import MolecularDescriptors, batch_molecules, descriptor_table  # noqa: E402

__all__ += ["MolecularDescriptors", "batch_molecules", "descriptor_table"]
