"""A kernel on node counts, to make size-blind members see size.

Every cosine-normalised member (histograms, Weisfeiler-Lehman, the mean map) says that a
graph ``G`` and two disjoint copies of it are identical (``K = 1``): their count vectors
are proportional. :class:`NodeCount` is the kernel ``min(n_G, n_H) / max(n_G, n_H)`` on
node counts; as a factor of a product (``"closed_histogram*size"``) it keeps everything
the other member sees and scales pairs of different size down, so that the product is
1 only for graphs of equal size. It is ``exp(-|log n_G - log n_H|)``, the Laplacian
kernel on ``log n``, which is positive semidefinite; a product of PSD kernels is PSD.
"""

import numpy as np

from .base import Functional

__all__ = ["NodeCount", "NodeCountBatch"]


class NodeCountBatch:
    """Node counts of many graphs.

    Attributes
    ----------
    n_nodes : numpy.ndarray of int64, shape (n_graphs,)
    """

    def __init__(self, n_nodes):
        self.n_nodes = np.asarray(n_nodes, dtype=np.int64)

    def __len__(self):
        return len(self.n_nodes)

    def __repr__(self):
        return f"<NodeCountBatch: {len(self)} graphs>"


class NodeCount(Functional):
    """Kernel ``min(n_G, n_H) / max(n_G, n_H)`` on the numbers of nodes.

    On its own it only compares sizes; its use is as a factor of a product with a
    size-blind member (registered as ``"size"``: ``kernel="closed_histogram*size"``).

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import Combination, NodeCount, WalkHistogram
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> G = nx.path_graph(4)
    >>> twice = nx.disjoint_union(G, G)
    >>> float(pairwise_kernels([G, twice], functional=WalkHistogram(k=3))[0, 1])
    1.0
    >>> aware = Combination([WalkHistogram(k=3), NodeCount()])
    >>> float(pairwise_kernels([G, twice], functional=aware)[0, 1])
    0.5
    """

    batch_type = NodeCountBatch
    weight = None

    def embed(self, batch):
        return NodeCountBatch(batch.sizes)

    def tile(self, left, right, rows, cols):
        a = left.n_nodes[rows].astype(np.float64)[:, None]
        b = right.n_nodes[cols].astype(np.float64)[None, :]
        return _ratio(a, b)

    def pairs(self, left, right, i, j):
        return _ratio(left.n_nodes[i].astype(np.float64), right.n_nodes[j].astype(np.float64))

    def tile_size(self, n_jobs):
        return 1024

    def to_arrays(self, embedded):
        return {"n_nodes": embedded.n_nodes}

    def from_arrays(self, arrays):
        return NodeCountBatch(arrays["n_nodes"])


def _ratio(a, b):
    """``min / max``, elementwise; 1 for two empty graphs."""
    low, high = np.minimum(a, b), np.maximum(a, b)
    return np.divide(low, high, out=np.ones(np.broadcast(low, high).shape), where=high > 0)
