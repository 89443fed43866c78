"""Weisfeiler-Lehman labels looked up among fitted ones: one table per round, and a
few small graphs' label counts made on plain arrays.

A fitted :class:`~graphinvariants.embeddings.wl.WLCountMap` keeps each round's
signatures ``(own label, sorted neighbour keys)`` in a :class:`SignatureTable`. Where
the round's largest degree ``D`` is small, every signature is packed into a few 64-bit
words as the fields ``(degree, own label, D - degree zeros, neighbour key + 1, ...)``,
each field as wide as the largest value needs: the fitted labels of a round are
numbered by degree, then by signature in lexicographic order, so the packed keys are in
label order, and a label is its key's place in one sorted array. A batch's signatures of
every degree are then looked up by one binary search per round. Where ``D`` is large
(a hub of a social network) the table keeps a
:class:`~graphinvariants.embeddings.counts.RowLookup` per degree instead.

:func:`small_batch_counts` is a query's path: the label counts of a few small graphs on
the fitted columns (a :class:`~graphinvariants.embeddings.counts.FittedCounts`), the
same counts as :meth:`WeisfeilerLehman.embed
<graphinvariants.embeddings.WeisfeilerLehman.embed>` followed by
:meth:`WLCountMap.columns <graphinvariants.embeddings.wl.WLCountMap.columns>` give, made
in about forty array operations per round, whatever the degrees: every node's signature
twice in one matrix of the round table's fields, once in the batch's own labels (their
distinct packed keys are its own labels of the round) and once in the fitted ones
(looked up), the neighbour keys sorted along the rows; no sparse matrix until the row.
Its cost is set by the batch alone; for many graphs the per-degree path of ``embed`` is
as fast, and :data:`SMALL_CELLS` says where one hands over to the other.
"""

import itertools

import numpy as np

from ..walks.closed import closed_walk_counts
from .counts import FittedCounts, RowLookup, label_places, strictly_increasing_rows, unique_rows

__all__ = ["INDEXED_LABELS", "MAX_WORDS", "SMALL_CELLS", "SignatureTable", "label_index", "own_labels", "small_batch_counts"]

#: A round's signatures are packed when each takes at most this many 64-bit words (32
#: bytes, about what a per-degree table holds for a molecule's signature of degree 3).
MAX_WORDS = 4

#: A fitted vocabulary of node or edge labels (strings or integers) of at most this many
#: is also kept as a dict (:func:`label_index`), which a query's few labels are looked up in.
INDEXED_LABELS = 4096

#: :func:`small_batch_counts` takes a batch whose nodes times (largest degree + 1) are at
#: most this many; beyond it the per-degree path of ``embed`` is as fast or faster
#: (Mutagenicity molecules as SMILES, rows of blocks of 1 to 512 molecules: the array path
#: takes a third of the time for one molecule, half for 8 to 32, and they meet between 256
#: molecules, about 23,000 cells, and 512).
SMALL_CELLS = 2**14


class SignatureTable:
    """The signatures of one fitted Weisfeiler-Lehman round, for exact lookup.

    Parameters
    ----------
    by_degree : dict
        ``degree -> array (n, 1 + degree)`` of the round's distinct ``(own label, sorted
        neighbour keys)`` rows, degrees in increasing order, rows in lexicographic order
        (as :meth:`WeisfeilerLehman.embed <graphinvariants.embeddings.WeisfeilerLehman.embed>`
        stores them); the round's labels are numbered in that order.
    n_keys : int
        The number of possible neighbour keys (labels of the round before, times the
        number of edge labels when the neighbourhoods are typed by them).

    Attributes
    ----------
    packed : bool
        Whether the signatures are packed (one binary search for all degrees) or kept in
        a :class:`~graphinvariants.embeddings.counts.RowLookup` per degree.
    max_degree : int

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.embeddings.wl_lookup import SignatureTable
    >>> # labels 0, 1: degree 1 (own 0; neighbour 1), (own 1; 0); label 2: degree 2 (own 1; 0, 0)
    >>> table = SignatureTable({1: np.array([[0, 1], [1, 0]]), 2: np.array([[1, 0, 0]])}, 2)
    >>> table.packed, table.find(2, np.array([[1, 0, 0], [0, 0, 1]])).tolist()
    (True, [2, -1])
    """

    def __init__(self, by_degree, n_keys):
        self.first, start = {}, 0
        for d, rows in by_degree.items():
            self.first[d] = start
            start += len(rows)
        self.max_degree = max(by_degree, default=0)
        self.bits = bits = max(self.max_degree, int(n_keys), 1).bit_length()
        self.per_word = 64 // bits
        self.n_words = -(-(self.max_degree + 2) // self.per_word)
        self.shifts = np.uint64(bits) * np.arange(self.per_word - 1, -1, -1, dtype=np.uint64)
        self.void = np.dtype((np.void, 8 * self.n_words))
        self.keys, self.lookups = None, None
        if self.n_words <= MAX_WORDS and list(by_degree) == sorted(by_degree):
            words = [self._packed(self._fields(np.full(len(rows), d), np.column_stack((rows[:, 0], rows[:, 1:] + 1))))
                     for d, rows in by_degree.items()]
            words = np.concatenate(words) if words else np.zeros((0, self.n_words), np.uint64)
            if strictly_increasing_rows(words):  # label order (a batch made otherwise keeps per-degree tables)
                self.keys = self._sortable(words)
        if self.keys is None:
            self.lookups = {d: RowLookup(rows) for d, rows in by_degree.items()}

    @property
    def packed(self):
        return self.keys is not None

    def _fields(self, degree, rows):
        """The fields of rows ``(own label, neighbour keys + 1, sorted and right-aligned
        after zeros)`` of at most ``max_degree`` keys, their degrees ``degree``, as one
        matrix for :meth:`pack`."""
        n, width = rows.shape
        fields = np.zeros((n, self.n_words * self.per_word), dtype=np.uint64)
        fields[:, 0] = degree
        fields[:, 1] = rows[:, 0]
        fields[:, 2 + self.max_degree - (width - 1) : 2 + self.max_degree] = rows[:, 1:]
        return fields

    def _packed(self, fields):
        n = len(fields)
        # disjoint bit fields: the shifted fields never overlap, so their sum is their bitwise or
        return (fields.reshape(n, self.n_words, self.per_word) << self.shifts).sum(axis=2, dtype=np.uint64)

    def _sortable(self, words):
        if self.n_words == 1:
            return words[:, 0]
        return words.astype(">u8").view(self.void).reshape(-1)

    def pack(self, fields):
        """One sortable key per row of fields ``(degree, own label, neighbour keys + 1
        sorted and right-aligned after zeros, zeros)``, each within its width (see
        :meth:`fits`): the packed word, or the words as big-endian bytes compared as one
        item (numpy sorts such items by memcmp). A row with a value out of its field
        gives a key that is no fitted row's or another row's, so it must be masked out
        after."""
        return self._sortable(self._packed(fields))

    def place(self, keys, known):
        """The label of every key, -1 where it is no fitted row's or ``known`` is False."""
        if not len(self.keys) or not len(keys):
            return np.full(len(keys), -1, dtype=np.int64)
        place = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        return np.where(known & (self.keys[place] == keys), place, -1)

    def find(self, degree, rows, known=None):
        """The label of every row of ``rows`` (``(own label, sorted neighbour keys)``
        signatures of one ``degree``, in the fitted numbering), -1 where it is not one of
        the round's or ``known`` (a mask) is False."""
        rows = np.asarray(rows, dtype=np.int64)
        known = np.ones(len(rows), dtype=bool) if known is None else known
        if self.keys is None:
            lookup = self.lookups.get(degree)
            if lookup is None:
                return np.full(len(rows), -1, dtype=np.int64)
            place = lookup.find(rows, known)
            return np.where(place >= 0, place + self.first[degree], -1)
        if degree > self.max_degree:
            return np.full(len(rows), -1, dtype=np.int64)
        rows = np.where(known[:, None], rows, -1) + 1
        rows[:, 0] -= 1
        return self.place(self.pack(self._fields(degree, rows)), known)

    def layout(self, degree, row, position):
        """Fields for the signatures of the nodes of a batch twice over (a packed table
        only): a ``(2n, fields)`` matrix of zeros but the degrees, and the cell of each
        stored entry in each half (entry ``e`` is the ``position[e]``-th neighbour of
        node ``row[e]``); None if a node's degree is larger than :attr:`max_degree`. The
        same for every round whose table has this one's ``max_degree`` and layout."""
        if len(degree) and int(degree.max()) > self.max_degree:
            return None
        n, width = len(degree), self.n_words * self.per_word
        fields = np.zeros((2 * n, width), dtype=np.uint64)
        fields[:n, 0] = fields[n:, 0] = degree
        cells = row * width + position + 2
        return fields, np.concatenate((cells, cells + n * width))

    def fits(self, value):
        """Whether the value ``value`` fits a field."""
        return value < 1 << self.bits


def small_batch_counts(count_map, arrays, *, node_label=None, edge_label=None, closed_walks=0, n_iter):
    """The label counts of a few small graphs on a fitted count map's columns.

    Parameters
    ----------
    count_map : WLCountMap
        The fitted count map (:meth:`WeisfeilerLehman.count_map
        <graphinvariants.embeddings.WeisfeilerLehman.count_map>`).
    arrays : CSRArrays
        The graphs (:class:`~graphinvariants.graphs.csr.CSRArrays`), read with the
        labels the functional reads.
    node_label, edge_label, closed_walks, n_iter : keyword-only
        The functional's parameters (those the count map was fitted with).

    Returns
    -------
    FittedCounts or None
        What :meth:`WLCountMap.fitted_counts
        <graphinvariants.embeddings.wl.WLCountMap.fitted_counts>` gives for the batch's
        embeddings, entry for entry up to their order within a graph; None when the
        batch is not small (:data:`SMALL_CELLS`), a round's table is not packed, or the
        count map was fitted with other parameters: the per-degree path then makes them.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import WeisfeilerLehman
    >>> from graphinvariants.embeddings.wl_lookup import small_batch_counts
    >>> from graphinvariants.graphs import as_graph_batch
    >>> from graphinvariants.graphs.csr import CSRArrays
    >>> wl = WeisfeilerLehman(n_iter=1)
    >>> fitted = wl.count_map(wl.as_embeddings([nx.path_graph(3)]))
    >>> found = small_batch_counts(fitted, CSRArrays.of(as_graph_batch([nx.path_graph(4)])), n_iter=1)
    >>> found.count.tolist(), found.column.tolist()  # degrees 1, 2; then (1; 2) twice, (2; 1, 2) twice
    ([2.0, 2.0, 2.0, 2.0], [0, 1, 2, -1])
    """
    indptr, indices, offsets = arrays.indptr, arrays.indices, arrays.offsets
    n, n_graphs = len(indptr) - 1, len(offsets) - 1
    degree = (indptr[1:] - indptr[:-1]).astype(np.int64)
    width = int(degree.max(initial=0))
    if (n * (width + 1) > SMALL_CELLS or len(count_map.rounds) != n_iter
            or not all(table.packed for table in count_map.rounds)
            or (count_map.closed is None) != (closed_walks == 0)
            or (count_map.edge_vocabulary is None) != (edge_label is None)):
        return None
    if node_label is None:
        raw = degree
    elif arrays.node_labels is None:
        raise ValueError(f"node_label={node_label!r} was asked for, but the graphs carry no node labels")
    else:
        raw = arrays.node_labels
    # an id per node label (the same for equal labels), and the fitted label of each id
    ids, fitted = own_labels(raw, count_map.initial, count_map.initial_index)
    if closed_walks:
        profile = closed_walk_counts(arrays.matrix(), offsets, closed_walks)
        rows, ids = unique_rows(np.column_stack((ids, profile)))
        rows[:, 0] = fitted[rows[:, 0]]
        fitted = count_map.closed.find(rows, rows[:, 0] >= 0)
    # the neighbour of every stored entry, its edge label (the batch's own, the fitted one)
    edge_ids, n_edge_labels = None, 1
    if edge_label is not None:
        if arrays.edge_labels is None:
            raise ValueError(f"edge_label={edge_label!r} was asked for, but the graphs carry no edge labels")
        edge_ids, fitted_edges = own_labels(arrays.edge_labels, count_map.edge_vocabulary, count_map.edge_index, "edge")
        n_edge_labels, fitted_edges = len(fitted_edges), fitted_edges[edge_ids]
        unknown_edge = fitted_edges < 0
    row = np.repeat(np.arange(n), degree)
    position = np.arange(len(indices)) - indptr[row]  # of each entry in its row
    layouts = {}  # the tables' layouts of the batch (one, unless rounds pack differently)
    labels, fitted_labels, n_labels = [ids], [fitted[ids]], [len(fitted)]
    for h, table in enumerate(count_map.rounds, start=1):
        node_fitted, n_own = fitted_labels[-1], n_labels[-1]
        # every node's signature (own label, neighbour keys + 1 sorted after zeros) twice,
        # in the fitted table's fields: in the batch's own labels (rows 0..n-1: their
        # distinct keys are its own labels of round h) and in the fitted ones (rows
        # n..2n-1: their keys, looked up, the fitted labels)
        shape = (table.max_degree, table.n_words * table.per_word)
        if shape not in layouts:
            layouts[shape] = table.layout(degree, row, position)
        if layouts[shape] is None:
            return None  # (a node of a degree no fitted node has: the per-degree path)
        fields, cells = layouts[shape]
        fields = fields.copy()
        fields[:, 1] = np.concatenate((ids, node_fitted))
        own_keys, keys = ids[indices], node_fitted[indices]
        unknown = keys < 0
        if edge_ids is not None:
            own_keys = edge_ids * n_own + own_keys
            keys = fitted_edges * count_map.sizes[h - 1] + keys
            unknown |= unknown_edge
        fields.reshape(-1)[cells] = np.concatenate((own_keys, keys)) + 1
        fields[:, 2 : 2 + table.max_degree].sort(axis=1)
        keys = table.pack(fields)  # (a node's fields in the fitted labels hold -1 where it is unknown)
        if table.fits(n_own * n_edge_labels):  # the batch's own labels: the distinct keys, or rows
            ids, n_new = _relabel(keys[:n])
        else:  # (more own labels than the fields hold)
            distinct, ids = unique_rows(fields[:n])
            n_new = len(distinct)
        known = node_fitted >= 0
        known[row[unknown]] = False
        labels.append(ids)
        n_labels.append(n_new)
        fitted_labels.append(table.place(keys[n:], known))
    # every graph's count of each of its labels (all rounds), with the label's fitted column
    labels = np.array(labels) + np.array([0, *itertools.accumulate(n_labels[:-1])])[:, None]
    graph = np.repeat(np.arange(n_graphs), offsets[1:] - offsets[:-1])
    if n_graphs > 1:
        labels += graph * sum(n_labels)
    keys, first, tally = np.unique(labels.reshape(-1), return_index=True, return_counts=True)
    fitted = np.array(fitted_labels)
    column = np.where(fitted >= 0, fitted + count_map.shift[:, None], -1).reshape(-1)[first]
    indptr = np.searchsorted(graph[first % n], np.arange(n_graphs + 1))
    return FittedCounts(indptr, tally.astype(np.float64), column)


def label_index(vocabulary):
    """The place of every label of a sorted vocabulary, as a dict, when they are strings
    or integers (equal as Python values exactly when :func:`label_places
    <graphinvariants.embeddings.counts.label_places>` finds them equal) and at most
    :data:`INDEXED_LABELS`; else None."""
    if vocabulary is None or vocabulary.dtype.kind not in "Ui" or len(vocabulary) > INDEXED_LABELS:
        return None
    return {label: place for place, label in enumerate(vocabulary.tolist())}


def own_labels(labels, vocabulary, index, kind="node"):
    """``(ids, fitted)``: an id per item of ``labels``, equal for equal labels, and the
    place in the fitted ``vocabulary`` of each id's label (-1 where it has none), through
    its :func:`label_index` when it has one and ``labels`` are of its kind (a few dict
    look-ups instead of sorting strings); the ids need not be ranks."""
    if index is not None and labels.dtype.kind == vocabulary.dtype.kind:
        own = dict(index)  # the fitted labels keep their places; the others come after
        ids = np.array([own.setdefault(label, len(own)) for label in labels.tolist()], dtype=np.int64)
        fitted = np.arange(len(own), dtype=np.int64)
        fitted[len(index) :] = -1
        return ids, fitted
    distinct, ids = np.unique(labels, return_inverse=True)
    return ids.reshape(-1).astype(np.int64), label_places(vocabulary, distinct, kind)


def _relabel(keys):
    """Each key's rank among the distinct keys (``numpy.unique``'s inverse), and their number."""
    order = keys.argsort()
    ordered = keys[order]
    new = np.empty(len(keys), dtype=bool)
    new[:1] = True
    new[1:] = ordered[1:] != ordered[:-1]  # (void items compare by ==, not by the ufunc)
    ids = np.empty(len(keys), dtype=np.int64)
    ids[order] = np.cumsum(new) - 1
    return ids, int(ids[order[-1]]) + 1
