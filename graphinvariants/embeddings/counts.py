"""Functionals whose embeddings are sparse count vectors (histograms of node labels).

The walk-count histogram and the Weisfeiler-Lehman subtree features are both a count
per discrete label per graph, compared by the cosine-normalised inner product. What
differs is how labels are made and how two separately embedded collections are put on
one vocabulary (:meth:`CountFeatures.merge`); the pair evaluation, the explicit feature
map and the norms live here once.
"""

from abc import abstractmethod

import numpy as np
import scipy.sparse as sp

from ..graphs.attributes import concatenate_labels
from .base import Functional

__all__ = ["CountFeatures"]


def squared_norms(counts):
    """Squared Euclidean norm of every row of a sparse count matrix."""
    return np.asarray(counts.multiply(counts).sum(axis=1), dtype=np.float64).reshape(-1)


def count_matrix(graph_of_item, label_of_item, n_graphs, n_labels):
    """Sparse ``(n_graphs, n_labels)`` matrix counting (graph, label) occurrences."""
    counts = sp.csr_array(
        (np.ones(len(label_of_item)), (graph_of_item, label_of_item)), shape=(n_graphs, n_labels)
    )
    counts.sum_duplicates()
    return counts


def relabel_columns(counts, new_column, n_columns):
    """The count matrix with column ``j`` moved to ``new_column[j]``."""
    c = counts.tocoo()
    out = sp.csr_array((c.data, (c.row, new_column[c.col])), shape=(counts.shape[0], n_columns))
    out.sum_duplicates()
    return out


def relabel_rounds(counts, maps, sizes):
    """Count columns laid out round after round, moved onto a merged vocabulary.

    ``maps[r][j]`` is the merged number of the batch's label ``j`` of round ``r``;
    ``sizes[r]`` is the number of merged labels of round ``r``.
    """
    shift = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    column = np.concatenate([m + s for m, s in zip(maps, shift)])
    return relabel_columns(counts, column, int(sum(sizes)))


def unique_rows(rows):
    """``numpy.unique(rows, axis=0, return_inverse=True)`` for an integer matrix: the
    distinct rows in lexicographic order and the position of every row among them
    (by one lexsort, many times faster than numpy's structured-array sort)."""
    order = np.lexsort(rows.T[::-1])
    ordered = rows[order]
    new = np.ones(len(rows), dtype=bool)
    new[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    inverse = np.empty(len(rows), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse


def merged_labels(left, right):
    """The sorted union of two node-label vocabularies and each label's place in it;
    numbers and strings are never merged (numpy would make 1 and "1" one label)."""
    kinds = {"text" if labels.dtype.kind in "US" else "numbers" for labels in (left, right) if len(labels)}
    if len(kinds) > 1:
        raise TypeError("the node labels of one collection are numbers and of the other strings; give them one type")
    merged, place = np.unique(concatenate_labels(left, right), return_inverse=True)
    return merged, place.reshape(-1)


class CountFeatures(Functional):
    """Base of the functionals with sparse count embeddings and the cosine kernel.

    Subclasses implement :meth:`embed` (returning a batch with a ``counts`` matrix)
    and :meth:`merge` (two batches -> their two count matrices over one vocabulary).
    Counts are exact integers, so inner products are exact while below ``2**53`` and
    ``K(G, G) == 1`` exactly.
    """

    @abstractmethod
    def merge(self, left, right):
        """Count matrices of two batches over one shared vocabulary."""

    def align(self, left, right):
        if left is right:
            counts = left.counts
            norms = squared_norms(counts)
            return (counts, norms), (counts, norms)
        a, b = self.merge(left, right)
        return (a, squared_norms(a)), (b, squared_norms(b))

    def tile(self, left, right, rows, cols):
        (a, na), (b, nb) = left, right
        dots = (a[rows] @ b[cols].T).toarray()
        return dots / np.sqrt(na[rows][:, None] * nb[cols][None, :])

    def pairs(self, left, right, i, j):
        (a, na), (b, nb) = left, right
        dots = np.asarray(a[i].multiply(b[j]).sum(axis=1)).reshape(-1)
        return dots / np.sqrt(na[i] * nb[j])

    def tile_size(self, n_jobs):
        return 1024

    def features(self, embedded):
        """Explicit feature map: unit-norm count vectors, shape (n_graphs, n_labels)."""
        counts = embedded.counts
        return sp.csr_array(sp.diags_array(1.0 / np.sqrt(squared_norms(counts))) @ counts)
