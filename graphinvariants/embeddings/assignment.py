"""Optimal-assignment kernels over a hierarchy of labels: histogram intersection.

When the labels of a count functional are refined level by level (Weisfeiler-Lehman
colours round by round, walk-profile prefixes length by length), every label of level
``h`` has exactly one parent at level ``h - 1``: the labels form a tree. For such a
hierarchy, Kriege, Giscard and Wilson (2016) show that the optimal assignment of the
nodes of ``G`` to the nodes of ``H`` under the base kernel "number of levels at which
``u`` and ``v`` carry the same label" has the value

.. math:: K(G, H) = \\sum_{\\text{labels } j \\text{ of all levels}} \\min(c_G(j), c_H(j)),

the histogram intersection of the counts of all levels, and that this kernel is
positive semidefinite. ``min(a, b)`` is the inner product of the unary codes of ``a``
and ``b`` (``a`` ones followed by zeros), so the whole Gram matrix is one product
``B B^T`` of 0/1 matrices, with ``B[g, (j, t)] = 1`` if graph ``g`` has at least ``t``
nodes labelled ``j``.

:class:`OptimalAssignment` puts any :class:`~graphinvariants.embeddings.counts.CountFeatures`
in that form: it reuses the functional's embedding (its batch's ``counts`` holds every
level) and its ``merge`` (two collections on one vocabulary), and replaces only the
inner product. The kernels here are normalised as GraKeL's ``normalize=True`` does,
``K(G, H) / sqrt(K(G, G) K(H, H))``, where ``K(G, G)`` is the number of nodes of ``G``
times the number of levels.
"""

import numpy as np
import scipy.sparse as sp

from .counts import CountFeatures
from .histogram import WalkHistogram
from .labelled import LabelledWalkHistogram
from .wl import WeisfeilerLehman

__all__ = [
    "LabelledWalkHistogramOptimalAssignment",
    "OptimalAssignment",
    "UnaryCounts",
    "WalkHistogramOptimalAssignment",
    "WeisfeilerLehmanOptimalAssignment",
    "unary_code",
]

#: A unary column goes to the dense block when more than this share of the graphs of
#: each side has a 1 in it: BLAS then beats the sparse product, and the dense block
#: holds at most ``1 / DENSE_SHARE`` times as many entries as the sparse one would.
DENSE_SHARE = 1 / 32

#: Dot products of 0/1 vectors are exact integers in float32 below 2**24 (every partial
#: sum is an integer no larger than the number of columns) and in int32 below 2**31.
_FLOAT32_EXACT = 2**24
_INT32_EXACT = 2**31


def column_maxima(counts):
    """Largest count of every column of a sparse count matrix, as int64."""
    out = np.zeros(counts.shape[1], dtype=np.int64)
    np.maximum.at(out, counts.indices, counts.data.astype(np.int64))
    return out


def unary_code(counts, widths):
    """The 0/1 matrix whose inner products are the histogram intersections of ``counts``.

    Column ``j`` of ``counts`` becomes ``widths[j]`` columns ``(j, 1), ..., (j,
    widths[j])``; a count ``c`` becomes ``c`` ones followed by zeros, so that
    ``<unary(a), unary(b)> = min(a, b)`` column by column.

    Parameters
    ----------
    counts : scipy.sparse.csr_array of shape (n_graphs, n_labels)
        Non-negative integer counts (stored as integers or integral floats).
    widths : numpy.ndarray of shape (n_labels,)
        Number of unary columns per label; at least the largest count of the column.

    Returns
    -------
    scipy.sparse.csr_array of shape (n_graphs, widths.sum())
        Ones (float64), canonical (sorted column indices per row).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from graphinvariants.embeddings.assignment import unary_code
    >>> counts = sp.csr_array(np.array([[2, 0, 1], [1, 3, 0]]))
    >>> B = unary_code(counts, np.array([2, 3, 1]))
    >>> B.toarray().astype(int).tolist()
    [[1, 1, 0, 0, 0, 1], [1, 0, 1, 1, 1, 0]]
    >>> (B @ B.T).toarray().tolist()  # sum of min(a_j, b_j): min(2,1) + min(0,3) + min(1,0)
    [[3.0, 1.0], [1.0, 4.0]]
    """
    counts = sp.csr_array(counts)
    if not counts.has_canonical_format:
        counts = counts.copy()
        counts.sum_duplicates()  # canonical: sorted column indices, no repeats
    repeats = counts.data.astype(np.int64)
    widths = np.asarray(widths, dtype=np.int64)
    start = np.concatenate(([0], np.cumsum(widths)))
    ends = np.cumsum(repeats)
    total = int(ends[-1]) if len(ends) else 0
    # entry e with count c becomes the columns start[j_e] + 0 .. c - 1
    column = np.repeat(start[counts.indices] - (ends - repeats), repeats) + np.arange(total)
    indptr = np.concatenate(([0], ends))[counts.indptr]
    return sp.csr_array((np.ones(total), column, indptr), shape=(counts.shape[0], int(start[-1])))


class UnaryCounts:
    """One side's unary-coded counts, split into a dense and a sparse block of columns.

    Attributes
    ----------
    dense : numpy.ndarray of shape (n_graphs, n_dense)
        The unary columns shared by many graphs (0/1, float32 when that is exact).
    sparse : scipy.sparse.csr_array of shape (n_graphs, n_sparse)
        The other unary columns (0/1, int32 when that is exact).
    norms : numpy.ndarray of shape (n_graphs,)
        ``K(G, G)``: the sum of each graph's counts.
    """

    def __init__(self, dense, sparse, norms):
        self.dense = dense
        self.sparse = sparse
        self.norms = norms

    def __len__(self):
        return len(self.norms)

    def __repr__(self):
        columns = f"{self.dense.shape[1]} dense and {self.sparse.shape[1]} sparse columns"
        return f"<UnaryCounts: {len(self)} graphs, {columns}>"


def _split(unary, dense_columns):
    """``unary`` as UnaryCounts: the columns marked in ``dense_columns`` as a dense
    block, the others as a sparse block, both in their original order."""
    n_graphs = unary.shape[0]
    rows = np.repeat(np.arange(n_graphs), np.diff(unary.indptr))
    in_dense = dense_columns[unary.indices]
    position = np.cumsum(dense_columns) - 1  # of a dense column in the dense block
    n_dense = int(dense_columns.sum())
    dense = np.zeros((n_graphs, n_dense), dtype=np.float32 if n_dense < _FLOAT32_EXACT else np.float64)
    dense[rows[in_dense], position[unary.indices[in_dense]]] = 1
    norms = count_ones(unary)
    kept = ~in_dense
    position = np.cumsum(~dense_columns) - 1  # of a sparse column in the sparse block
    indptr = np.concatenate(([0], np.cumsum(np.bincount(rows[kept], minlength=n_graphs))))
    dtype = np.int32 if norms.max(initial=0) < _INT32_EXACT else np.float64
    sparse = sp.csr_array(
        (np.ones(int(kept.sum()), dtype=dtype), position[unary.indices[kept]], indptr),
        shape=(n_graphs, len(dense_columns) - n_dense),
    )
    return UnaryCounts(dense, sparse, norms)


def count_ones(unary):
    """Number of ones in every row of a 0/1 sparse matrix (float64)."""
    return np.diff(unary.indptr).astype(np.float64)


class OptimalAssignment(CountFeatures):
    """The optimal-assignment (histogram-intersection) form of a count functional.

    Put this class first among the bases of a subclass of a
    :class:`~graphinvariants.embeddings.counts.CountFeatures` whose count columns form
    a hierarchy (each level's labels refine the previous level's): the embedding,
    parameters and shared vocabulary come from that functional, and the kernel becomes

    ``K(G, H) = sum_j min(c_G(j), c_H(j)) / sqrt(n_G n_H)``,

    with ``n_G = sum_j c_G(j)``, computed as products of unary-coded counts (one sparse
    product and one dense BLAS product per tile, in exact integer arithmetic: every
    unnormalised value is an exact integer, ``K(G, G) == 1`` and symmetry hold exactly).

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import WeisfeilerLehman
    >>> from graphinvariants.embeddings.assignment import OptimalAssignment
    >>> class MyAssignment(OptimalAssignment, WeisfeilerLehman):
    ...     pass
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> pairwise_kernels([nx.path_graph(3), nx.star_graph(2)], functional=MyAssignment(n_iter=1))
    array([[1., 1.],
           [1., 1.]])
    """

    def align(self, left, right):
        if left is right:
            counts = left.counts
            unary = unary_code(counts, column_maxima(counts))
            side = _split(unary, _dense_columns(unary, unary))
            return side, side
        a, b = self.merge(left, right)
        widths = np.maximum(column_maxima(a), column_maxima(b))
        a, b = unary_code(a, widths), unary_code(b, widths)
        dense_columns = _dense_columns(a, b)
        return _split(a, dense_columns), _split(b, dense_columns)

    def tile(self, left, right, rows, cols):
        # two exact integer products, summed exactly in float64
        sparse = (left.sparse[rows] @ right.sparse[cols].T).toarray()
        dots = np.add(sparse, left.dense[rows] @ right.dense[cols].T, dtype=np.float64)
        scale = left.norms[rows][:, None] * right.norms[cols][None, :]
        dots /= np.sqrt(scale, out=scale)
        return dots

    def pairs(self, left, right, i, j):
        dense = np.einsum("pc,pc->p", left.dense[i], right.dense[j], dtype=np.float64)
        sparse = np.asarray(left.sparse[i].multiply(right.sparse[j]).sum(axis=1), dtype=np.float64).reshape(-1)
        return (dense + sparse) / np.sqrt(left.norms[i] * right.norms[j])

    def features(self, embedded):
        """Explicit feature map: unit-norm unary-coded counts, shape (n_graphs, n_columns).

        Columns are ``(label, t)`` over this batch's own vocabulary and largest counts;
        the features of two batches are comparable only if they were embedded together.
        """
        unary = unary_code(embedded.counts, column_maxima(embedded.counts))
        return sp.csr_array(sp.diags_array(1.0 / np.sqrt(count_ones(unary))) @ unary)


def _dense_columns(left, right):
    """Unary columns held by more than DENSE_SHARE of the graphs of both sides."""
    shares = [np.bincount(side.indices, minlength=side.shape[1]) / max(side.shape[0], 1) for side in (left, right)]
    return np.minimum(*shares) > DENSE_SHARE


class WeisfeilerLehmanOptimalAssignment(OptimalAssignment, WeisfeilerLehman):
    """Weisfeiler-Lehman optimal assignment kernel (WL-OA), normalised.

    The histogram intersection of the Weisfeiler-Lehman colour counts of rounds ``0 ..
    n_iter`` (Kriege, Giscard and Wilson, 2016): the value of the best one-to-one
    assignment of the nodes of two graphs when two nodes score the number of rounds in
    which they share a colour. Equal to GraKeL's
    ``WeisfeilerLehmanOptimalAssignment(n_iter=n_iter, normalize=True)`` for graphs
    given to GraKeL with every node (see Notes). Embeddings are those of
    :class:`~graphinvariants.embeddings.WeisfeilerLehman`, whose batches it accepts
    as precomputed.

    Parameters
    ----------
    n_iter : int, default=5
        Number of refinement rounds after the initial colours.
    node_label : str or None, default=None
        ``None`` starts from node degrees; a string from that node attribute.

    Notes
    -----
    GraKeL refines only the nodes listed in a graph's edge dictionary: a
    ``grakel.Graph`` built from an edge list leaves out isolated nodes from every round
    (also round 0). Built from an adjacency matrix or from an edge dictionary with every
    node as a key, its values equal these to rounding.

    References
    ----------
    N. M. Kriege, P.-L. Giscard and R. C. Wilson, "On valid optimal assignment kernels
    and applications to graph classification", NeurIPS 2016.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> graphs = [nx.path_graph(5), nx.path_graph(6), nx.cycle_graph(5)]
    >>> gi.kernel_matrix(graphs, kernel="wloa", n_iter=2).round(3)
    array([[1.   , 0.852, 0.267],
           [0.852, 1.   , 0.365],
           [0.267, 0.365, 1.   ]])
    """


class WalkHistogramOptimalAssignment(OptimalAssignment, WalkHistogram):
    """Optimal-assignment kernel over the walk-profile hierarchy, normalised.

    Node ``i``'s prefixes ``(c_1)``, ``(c_1, c_2)``, ..., ``(c_1, .., c_k)`` of its
    exact walk counts ``c_t = (A^t 1)_i`` are its labels at levels ``1 .. k``; each
    refines the one before, so the histogram intersection over all prefixes is the best
    assignment of the nodes of two graphs when two nodes score the length of the common
    prefix of their profiles. Embeddings are those of
    :class:`~graphinvariants.embeddings.WalkHistogram`.

    Parameters
    ----------
    k : int, default=5
        Length of the longest walks counted.
    weight : str or None, default=None
        Edge attribute used as (integer) weight.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> graphs = [nx.path_graph(4), nx.path_graph(5), nx.cycle_graph(4)]
    >>> gi.kernel_matrix(graphs, kernel="histogram_oa", k=2).round(3)
    array([[1.   , 0.894, 0.25 ],
           [0.894, 1.   , 0.447],
           [0.25 , 0.447, 1.   ]])
    """


class LabelledWalkHistogramOptimalAssignment(OptimalAssignment, LabelledWalkHistogram):
    """Optimal-assignment kernel over the labelled walk-profile hierarchy, normalised.

    A node's labels at levels ``0 .. k`` are its own label and the prefixes (own label,
    ``C_1``, ..., ``C_t``) of its counts of walks ending at each node label
    (:class:`~graphinvariants.embeddings.LabelledWalkHistogram`); each refines the one
    before, so the histogram intersection over all levels is an optimal assignment.

    Parameters
    ----------
    k : int, default=5
        Length of the longest walks counted.
    node_label : str, default="label"
        Node attribute holding the labels.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> def labelled(G, labels):
    ...     nx.set_node_attributes(G, dict(enumerate(labels)), "label")
    ...     return G
    >>> graphs = [labelled(nx.path_graph(3), "CCO"), labelled(nx.path_graph(3), "COC")]
    >>> gi.kernel_matrix(graphs, kernel="labelled_histogram_oa", k=2).round(3)
    array([[1.   , 0.333],
           [0.333, 1.   ]])
    """
