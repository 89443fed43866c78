"""Walk counts from node-label start vectors: a histogram of labelled walk profiles.

Algorithm 1 starts from the all-ones vector. Starting instead from one indicator vector
per node label (the paper's suggestion for labelled graphs), ``C_t = A^t E`` with ``E``
the ``n x L`` one-hot label matrix counts, for every node, the walks of length ``t``
that end at each label. A node's profile is its own label followed by ``C_1, ..., C_k``
(exact integers), and each of its prefixes (own label, ``C_1 .. C_t``) is a discrete
label; a graph is the histogram of its nodes' prefixes, compared by the
cosine-normalised inner product, as for :class:`WalkHistogram`.

Prefixes are numbered round by round: the label of round ``t`` is the distinct row
``(label of round t - 1, C_t)``. Two batches embedded separately are put on one
vocabulary exactly (:meth:`LabelledWalkHistogram.merge`): the count columns of each
batch are spread over the union of the two label sets and the rows renumbered round by
round.

Walks typed by their bonds (``edge_label=NAME``): with ``A_e`` the adjacency of the
edges of label ``e`` (``A = sum_e A_e``), round ``t`` reads ``A_e C_{t-1}`` for every
edge label ``e`` instead of ``C_t = A C_{t-1}``: the walks of length ``t`` counted by
the bond they leave the node by and the label they end at. The carried counts are still
``C_t = sum_e A_e C_{t-1}``, so the profile refines the untyped one and costs ``E``
times its columns (one per edge label and node label that occur), never the ``E^t``
of counting every bond sequence. Column ``(e, j)`` is stored as ``e * L + j`` (``L``
the batch's number of node labels, ``e`` the place of the label in the batch's sorted
``edge_vocabulary``) and re-keyed into the merged vocabularies on merging.
"""

import numpy as np
import scipy.sparse as sp

from .._validation import check_k
from .counts import CountFeatures, count_matrix, merged_labels, relabel_rounds, unique_rows

__all__ = ["LabelledHistogramBatch", "LabelledWalkHistogram"]

_INT64_SAFE = 2.0**62


class LabelledHistogramBatch:
    """Labelled walk-profile histograms of many graphs.

    Attributes
    ----------
    counts : scipy.sparse.csr_array of shape (n_graphs, n_labels)
        Counts of every prefix of every round, round after round.
    labels : numpy.ndarray
        The distinct node labels of the batch, sorted (count columns follow them).
    rounds : list of numpy.ndarray
        For rounds ``1 .. k``: the distinct rows ``(label of the previous round, j_1,
        C_t[j_1], j_2, C_t[j_2], ...)`` over the labels ``j_1 < j_2 < ...`` that
        ``C_t`` reaches, padded with -1, sorted.
    k : int
    edge_vocabulary : numpy.ndarray or None
        The distinct edge labels, sorted, when walks are typed by them (columns of
        ``rounds`` are then ``edge id * len(labels) + label id``).
    """

    def __init__(self, counts, labels, rounds, k, edge_vocabulary=None):
        self.counts = counts
        self.labels = labels
        self.rounds = rounds
        self.k = k
        self.edge_vocabulary = edge_vocabulary

    def __len__(self):
        return self.counts.shape[0]

    def __repr__(self):
        return f"<LabelledHistogramBatch: {len(self)} graphs, k={self.k}, {len(self.labels)} node labels>"


class LabelledWalkHistogram(CountFeatures):
    """Histogram of walk counts started from node-label indicator vectors.

    Parameters
    ----------
    k : int, default=5
        Length of the longest walks counted.
    node_label : str, default="label"
        Node attribute holding the labels (for a TUDataset: its node labels).
    edge_label : str or None, default=None
        Edge attribute typing the walks by the bond of their first step (see the
        module's documentation); ``None`` ignores edge labels.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import LabelledWalkHistogram
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> def labelled(G, labels):
    ...     nx.set_node_attributes(G, dict(enumerate(labels)), "label")
    ...     return G
    >>> graphs = [labelled(nx.path_graph(3), "CCO"), labelled(nx.path_graph(3), "COC"),
    ...           labelled(nx.path_graph(3), "OCC")]
    >>> pairwise_kernels(graphs, functional=LabelledWalkHistogram(k=2)).round(3)
    array([[1.   , 0.389, 1.   ],
           [0.389, 1.   , 0.389],
           [1.   , 0.389, 1.   ]])
    """

    batch_type = LabelledHistogramBatch
    weight = None

    def __init__(self, k=5, *, node_label="label", edge_label=None):
        self.k = check_k(k)
        if not isinstance(node_label, str):
            raise TypeError(f"node_label must be a node attribute name, got {node_label!r}")
        self.node_label = node_label
        if edge_label is not None and not isinstance(edge_label, str):
            raise TypeError(f"edge_label must be None or an edge attribute name, got {edge_label!r}")
        self.edge_label = edge_label

    def embed(self, batch):
        if batch.node_labels is None:
            raise ValueError(f"node_label={self.node_label!r} was asked for, but the graphs carry no node labels")
        n_graphs, n = len(batch), batch.n_nodes
        labels, ids = np.unique(batch.node_labels, return_inverse=True)
        ids = ids.reshape(-1).astype(np.int64)
        owner = np.repeat(np.arange(n_graphs), batch.sizes)
        A = sp.csr_array(batch.matrix.astype(np.int64))
        growth = float(batch.matrix.sum(axis=1).max()) if batch.matrix.nnz else 0.0
        # C_t stays sparse: a node's walks end at the labels of its own graph only
        counts = sp.csr_array((np.ones(n, np.int64), (np.arange(n), ids)), shape=(n, len(labels)))
        blocks = [count_matrix(owner, ids, n_graphs, len(labels))]
        rounds = []
        edge_vocabulary, typed = edge_typed_adjacencies(batch, self.edge_label)
        for t in range(self.k):
            if growth * float(counts.data.max(initial=0)) >= _INT64_SAFE:
                raise ValueError(f"labelled walk counts of length {t + 1} exceed the int64 range; use a smaller k")
            previous = counts
            counts = sp.csr_array(A @ counts)
            counts.sum_duplicates()  # canonical: sorted column indices, no repeats
            profile = counts if typed is None else typed_counts(typed, previous)
            distinct, ids = unique_rows(_sparse_rows(ids, profile))
            rounds.append(distinct)
            blocks.append(count_matrix(owner, ids, n_graphs, len(distinct)))
        return LabelledHistogramBatch(sp.csr_array(sp.hstack(blocks, format="csr")), labels, rounds, self.k,
                                      edge_vocabulary)

    def check_batch(self, embedded, what):
        if embedded.k != self.k:
            raise ValueError(f"{what} holds labelled histograms with k={embedded.k}, but k={self.k} was asked for")
        typed = getattr(embedded, "edge_vocabulary", None) is not None
        if typed != (getattr(self, "edge_label", None) is not None):
            raise ValueError(f"{what} holds labelled histograms {'with' if typed else 'without'} edge labels, but "
                             f"edge_label={getattr(self, 'edge_label', None)!r} was asked for")

    def merge(self, left, right):
        labels, label = merged_labels(left.labels, right.labels)
        maps = [label[: len(left.labels)]], [label[len(left.labels) :]]
        sizes = [len(labels)]
        column_maps = typed_column_maps(left, right, labels, maps[0][0], maps[1][0])
        for t in range(self.k):
            width = max(left.rounds[t].shape[1], right.rounds[t].shape[1])
            blocks = []
            for side, batch in enumerate((left, right)):
                rows = batch.rounds[t]
                moved = np.full((len(rows), width), -1, dtype=np.int64)
                moved[:, : rows.shape[1]] = rows
                moved[:, 0] = maps[side][-1][rows[:, 0]]  # previous round, merged numbering
                columns = moved[:, 1::2]
                present = columns >= 0
                # onto the merged labels: the map is increasing, so columns stay sorted
                if column_maps is None:
                    columns[present] = maps[side][0][columns[present]]
                else:
                    columns[present] = column_maps[side](columns[present])
                blocks.append(moved)
            distinct, inverse = unique_rows(np.concatenate(blocks))
            maps[0].append(inverse[: len(blocks[0])])
            maps[1].append(inverse[len(blocks[0]) :])
            sizes.append(len(distinct))
        return relabel_rounds(left.counts, maps[0], sizes), relabel_rounds(right.counts, maps[1], sizes)


def _sparse_rows(first, counts):
    """Rows ``(first[i], j_1, C[i, j_1], j_2, C[i, j_2], ...)`` over the nonzero columns
    ``j_1 < j_2 < ...`` of each row of ``counts``, padded with -1 to one width: equal
    rows are equal profiles, whatever the number of labels."""
    per_row = np.diff(counts.indptr)
    width = int(per_row.max(initial=0))
    rows = np.full((counts.shape[0], 1 + 2 * width), -1, dtype=np.int64)
    rows[:, 0] = first
    row = np.repeat(np.arange(counts.shape[0]), per_row)
    slot = np.arange(counts.nnz) - np.repeat(counts.indptr[:-1], per_row)
    rows[row, 1 + 2 * slot] = counts.indices
    rows[row, 2 + 2 * slot] = counts.data
    return rows


def edge_typed_adjacencies(batch, edge_label):
    """``(edge_vocabulary, [A_e, ...])``: the sorted distinct edge labels of ``batch`` and
    one int64 adjacency per label (``(None, None)`` for ``edge_label=None``)."""
    if edge_label is None:
        return None, None
    if batch.edge_labels is None:
        raise ValueError(f"edge_label={edge_label!r} was asked for, but the graphs carry no edge labels")
    vocabulary, ids = np.unique(batch.edge_labels, return_inverse=True)
    ids = ids.reshape(-1)
    A = batch.matrix
    adjacencies = []
    for e in range(len(vocabulary)):
        keep = (ids == e).astype(np.int64)
        # copies of the index arrays: eliminate_zeros works in place
        A_e = sp.csr_array((A.data.astype(np.int64) * keep, A.indices.copy(), A.indptr.copy()), shape=A.shape)
        A_e.eliminate_zeros()
        adjacencies.append(A_e)
    return vocabulary, adjacencies


def typed_counts(adjacencies, previous):
    """``[A_e C for each e]`` side by side: column ``e * L + j`` holds ``(A_e C)[:, j]``
    (``L`` the columns of ``C``), sorted indices, no stored zeros."""
    typed = sp.csr_array(sp.hstack([A_e @ previous for A_e in adjacencies], format="csr"))
    typed.sum_duplicates()
    typed.eliminate_zeros()
    typed.sort_indices()
    return typed


def typed_column_maps(left, right, labels, left_labels, right_labels):
    """For typed batches, one function per side taking its columns ``e * L + j`` to the
    merged ``e' * L' + j'`` (order-preserving, so sorted rows stay sorted); None if
    neither batch is typed."""
    typed = [getattr(batch, "edge_vocabulary", None) is not None for batch in (left, right)]
    if not any(typed):
        return None
    if not all(typed):
        raise ValueError("one collection's labelled histograms are typed by edge labels and the other's are not")
    _, place = merged_labels(left.edge_vocabulary, right.edge_vocabulary)
    edges = place[: len(left.edge_vocabulary)], place[len(left.edge_vocabulary) :]
    width = len(labels)

    def mapper(edge_map, label_map, n_labels):
        return lambda columns: edge_map[columns // n_labels] * width + label_map[columns % n_labels]

    return mapper(edges[0], left_labels, len(left.labels)), mapper(edges[1], right_labels, len(right.labels))
