"""The Weisfeiler-Lehman subtree kernel, on a whole GraphBatch at once.

Round 0 labels every node with its degree (or with its node label), optionally
together with its closed-walk counts ``(A^t)_ii``, ``t = 1..closed_walks``. Round ``h``
relabels a node by its round ``h - 1`` label together with the sorted multiset of its
neighbours' labels; a graph's features are the counts of every label of rounds
``0 .. n_iter``, and the kernel is their cosine-normalised inner product (the
subtree kernel of Shervashidze et al. 2011, as GraKeL's ``WeisfeilerLehman`` with
``VertexHistogram`` and ``normalize=True`` computes it).

Everything is array work on the block-diagonal matrix: in each round the nodes of each
degree form one integer matrix ``(own label, sorted neighbour labels)`` whose distinct
rows (one :func:`numpy.unique`) are the new labels. A batch keeps those rows per round
and degree, so two batches embedded separately are put on one vocabulary exactly
(:meth:`WeisfeilerLehman.merge`) and no label ever collides.

With ``edge_label=NAME`` the neighbourhood is typed by its bonds: a node's signature in
round ``h`` is its round ``h - 1`` label with the sorted multiset of
``(edge label, neighbour label)`` pairs. Each pair is stored as one integer
``edge id * L + neighbour label`` (``L`` the number of labels of round ``h - 1``, edge
ids the places of the edge labels in the batch's sorted ``edge_vocabulary``), so the
signatures keep their ``(own label, d sorted keys)`` shape and merge as before, after
translating both parts of every key into the merged vocabularies.
"""

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_int
from ..graphs import GraphBatch
from ..graphs.csr import CSRArrays
from ..graphs.smiles import molecule_arrays, reads_straight
from ..walks.closed import closed_walk_counts
from .counts import (CountFeatures, CountMap, RowLookup, count_matrix, label_places, merged_labels, relabel_rounds,
                     sort_within_rows, unique_rows)
from .wl_lookup import SignatureTable, label_index, small_batch_counts

__all__ = ["WLBatch", "WLCountMap", "WeisfeilerLehman"]


class WLBatch:
    """Weisfeiler-Lehman label counts of many graphs.

    Attributes
    ----------
    counts : scipy.sparse.csr_array of shape (n_graphs, n_labels)
        Label counts of all rounds, round after round.
    initial : numpy.ndarray
        The distinct degrees or node labels, sorted.
    signatures : list of dict
        For rounds ``1 .. n_iter``: ``degree -> array (n, 1 + degree)`` of the
        distinct ``(own label, sorted neighbour labels)`` rows, in label order.
    sizes : list of int
        Number of labels of each round.
    n_iter : int
    initial_rows : numpy.ndarray of shape (n, 1 + closed_walks) or None
        With closed walks: the distinct round-0 labels ``(place of the degree or node
        label in initial, (A)_ii, ..., (A^closed_walks)_ii)``, sorted; None without.
    closed_walks : int
    edge_vocabulary : numpy.ndarray or None
        The distinct edge labels, sorted, when the neighbourhoods are typed by them
        (signatures then hold ``edge id * sizes[h - 1] + neighbour label`` keys).
    params : dict
        The parameters the features were made with (``n_iter``, ``node_label``,
        ``closed_walks``, ``edge_label``); a batch built by hand records only ``n_iter``.
    """

    def __init__(self, counts, initial, signatures, sizes, n_iter, initial_rows=None, closed_walks=0,
                 edge_vocabulary=None, *, params=None):
        self.counts = counts
        self.initial = initial
        self.signatures = signatures
        self.sizes = sizes
        self.n_iter = n_iter
        self.initial_rows = initial_rows
        self.closed_walks = closed_walks
        self.edge_vocabulary = edge_vocabulary
        self.params = dict(params) if params is not None else {"n_iter": n_iter}

    def __len__(self):
        return self.counts.shape[0]

    def __repr__(self):
        return f"<WLBatch: {len(self)} graphs, {self.n_iter} rounds, {self.counts.shape[1]} labels>"


class WeisfeilerLehman(CountFeatures):
    """Weisfeiler-Lehman subtree kernel (cosine-normalised).

    Parameters
    ----------
    n_iter : int, default=5
        Number of refinement rounds after the initial labels (so ``n_iter + 1`` label
        sets), as GraKeL's ``n_iter``.
    node_label : str or None, default=None
        ``None`` starts from node degrees; a string starts from that node attribute
        (for a TUDataset, its node labels).
    closed_walks : int, default=0
        If positive, round 0 labels a node by its degree or node label together with
        its closed-walk counts ``(A^t)_ii`` for ``t = 1..closed_walks`` (exact, see
        :func:`~graphinvariants.walks.closed.closed_walk_counts`): refinement then
        starts from what the cycles through each node look like and goes beyond the
        1-WL test (registered as ``"wl_closed"``, with ``closed_walks=8``).
    edge_label : str or None, default=None
        ``None`` ignores edge labels; a string types each neighbour by the label of the
        edge that leads to it (that edge attribute; ``"label"`` for a TUDataset's bond
        types).

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import WeisfeilerLehman
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> graphs = [nx.path_graph(5), nx.path_graph(6), nx.cycle_graph(5)]
    >>> pairwise_kernels(graphs, functional=WeisfeilerLehman(n_iter=2)).round(3)
    array([[1.   , 0.921, 0.415],
           [0.921, 1.   , 0.522],
           [0.415, 0.522, 1.   ]])
    """

    batch_type = WLBatch
    weight = None

    def __init__(self, n_iter=5, *, node_label=None, closed_walks=0, edge_label=None):
        self.n_iter = check_int(n_iter, "n_iter", minimum=0)
        if node_label is not None and not isinstance(node_label, str):
            raise TypeError(f"node_label must be None or a node attribute name, got {node_label!r}")
        self.node_label = node_label
        self.closed_walks = check_int(closed_walks, "closed_walks", minimum=0)
        if edge_label is not None and not isinstance(edge_label, str):
            raise TypeError(f"edge_label must be None or an edge attribute name, got {edge_label!r}")
        self.edge_label = edge_label

    def embed(self, batch):
        n_graphs, n = len(batch), batch.n_nodes
        A = batch.matrix
        degree = np.diff(A.indptr).astype(np.int64)
        if self.node_label is None:
            raw = degree
        else:
            if batch.node_labels is None:
                raise ValueError(f"node_label={self.node_label!r} was asked for, but the graphs carry no node labels")
            raw = batch.node_labels
        owner = np.repeat(np.arange(n_graphs), batch.sizes)
        initial, ids = np.unique(raw, return_inverse=True)
        ids = ids.reshape(-1).astype(np.int64)
        initial_rows = None
        if self.closed_walks:
            profile = closed_walk_counts(A, batch.offsets, self.closed_walks)
            initial_rows, ids = unique_rows(np.column_stack((ids, profile)))
        n_initial = len(initial) if initial_rows is None else len(initial_rows)
        rounds = [count_matrix(owner, ids, n_graphs, n_initial)]
        sizes, signatures = [n_initial], []
        row = np.repeat(np.arange(n), degree)
        edge_vocabulary, edge_ids = edge_label_ids(batch, self.edge_label)
        for _ in range(self.n_iter):
            neighbours = ids[A.indices]
            n_values = sizes[-1]
            if edge_ids is not None:
                neighbours = edge_ids * sizes[-1] + neighbours
                n_values *= len(edge_vocabulary)
            neighbours = sort_within_rows(neighbours, row, n_values)
            new_ids = np.empty(n, dtype=np.int64)
            by_degree, base = {}, 0
            for d in np.unique(degree).tolist():
                nodes = np.flatnonzero(degree == d)
                rows = np.empty((len(nodes), d + 1), dtype=np.int64)
                rows[:, 0] = ids[nodes]
                if d:
                    rows[:, 1:] = neighbours[A.indptr[nodes][:, None] + np.arange(d)]
                distinct, inverse = unique_rows(rows)
                new_ids[nodes] = inverse + base
                by_degree[d] = distinct
                base += len(distinct)
            ids = new_ids
            signatures.append(by_degree)
            sizes.append(base)
            rounds.append(count_matrix(owner, ids, n_graphs, base))
        counts = sp.csr_array(sp.hstack(rounds, format="csr")) if rounds else sp.csr_array((n_graphs, 0))
        return WLBatch(counts, initial, signatures, sizes, self.n_iter, initial_rows, self.closed_walks,
                       edge_vocabulary, params=self.embedding_params())

    def embedding_params(self):
        return {"n_iter": self.n_iter, "node_label": self.node_label, "closed_walks": self.closed_walks,
                "edge_label": self.edge_label}

    def count_map(self, embedded):
        return WLCountMap(embedded)

    def fitted_counts(self, items, count_map, *, what="graphs"):
        """The label counts of ``items`` on a fitted count map's columns (see
        :meth:`CountFeatures.fitted_counts
        <graphinvariants.embeddings.counts.CountFeatures.fitted_counts>`); a few small
        graphs take :func:`~graphinvariants.embeddings.wl_lookup.small_batch_counts`,
        which gives the same counts without embedding them first (and molecules given
        as SMILES, read into arrays only)."""
        embedded = self.given_embeddings(items, what=what)
        if embedded is None and isinstance(count_map, WLCountMap):
            batch = None
            if reads_straight(items, self.node_label, self.edge_label):
                arrays = molecule_arrays(items, node_label=self.node_label, edge_label=self.edge_label, what=what)
            else:
                batch = self.graph_batch(items, what=what)
                arrays = CSRArrays.of(batch)
            found = small_batch_counts(count_map, arrays, node_label=self.node_label, edge_label=self.edge_label,
                                       closed_walks=self.closed_walks, n_iter=self.n_iter)
            if found is not None:
                return found
            embedded = self.embed(GraphBatch.of_arrays(arrays) if batch is None else batch)
        if embedded is None:
            embedded = self.as_embeddings(items, what=what)
        return count_map.fitted_counts(embedded)

    def merge(self, left, right):
        """Relabel both batches on one vocabulary, round by round."""
        merged, label = merged_labels(left.initial, right.initial)
        maps = [label[: len(left.initial)]], [label[len(left.initial) :]]
        totals = [len(merged)]
        if (left.initial_rows is None) != (right.initial_rows is None):
            raise ValueError("one collection's WL features start from closed walks and the other's do not; "
                             "embed both with the same closed_walks")
        if left.initial_rows is not None:  # (label, closed walks) rows onto one numbering
            rows = [batch.initial_rows.copy() for batch in (left, right)]
            for side in (0, 1):
                rows[side][:, 0] = maps[side][0][rows[side][:, 0]]
            distinct, inverse = unique_rows(np.concatenate(rows))
            maps = [inverse[: len(rows[0])]], [inverse[len(rows[0]) :]]
            totals = [len(distinct)]
        edge_maps = merged_edge_ids(left, right)
        for h in range(1, self.n_iter + 1):
            previous = (maps[0][-1], maps[1][-1])
            degrees = sorted(set(left.signatures[h - 1]) | set(right.signatures[h - 1]))
            new_maps = (np.empty(left.sizes[h], np.int64), np.empty(right.sizes[h], np.int64))
            base = 0
            for d in degrees:
                blocks = []
                for side, batch in enumerate((left, right)):
                    rows = batch.signatures[h - 1].get(d, np.zeros((0, d + 1), np.int64))
                    if edge_maps is None:
                        rows = previous[side][rows]  # into the merged labels of round h - 1
                    else:
                        rows = merged_typed_rows(rows, previous[side], edge_maps[side], batch.sizes[h - 1], totals[h - 1])
                    if d:
                        rows[:, 1:].sort(axis=1)
                    blocks.append(rows)
                distinct, inverse = unique_rows(np.concatenate(blocks))
                inverse = inverse + base
                for side, batch in enumerate((left, right)):
                    if d in batch.signatures[h - 1]:
                        start = _first_label(batch, h, d)
                        count = len(batch.signatures[h - 1][d])
                        offset = 0 if side == 0 else len(blocks[0])
                        new_maps[side][start : start + count] = inverse[offset : offset + count]
                base += len(distinct)
            maps[0].append(new_maps[0])
            maps[1].append(new_maps[1])
            totals.append(base)
        return relabel_rounds(left.counts, maps[0], totals), relabel_rounds(right.counts, maps[1], totals)


class WLCountMap(CountMap):
    """The labels of a fitted :class:`WLBatch` as columns, each round's signatures in a
    :class:`~graphinvariants.embeddings.wl_lookup.SignatureTable`: another batch's
    labels are put into the fitted numbering round by round (its round ``h - 1``
    labels first, then its round ``h`` signatures written with them and looked up), so
    a batch costs what its own labels cost, whatever the fitted vocabulary. A label
    whose signature holds an unseen label is unseen; the columns found are those
    :meth:`WeisfeilerLehman.merge` with the fitted batch gives.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import WeisfeilerLehman
    >>> wl = WeisfeilerLehman(n_iter=1)
    >>> fitted = wl.as_embeddings([nx.path_graph(3)])  # labels: degrees 1, 2; then (1; 2), (2; 1, 1)
    >>> # the stars' labels: degrees 1, 2, 3; then (1; 2), (1; 3), (2; 1, 1), (3; 1, 1, 1)
    >>> wl.count_map(fitted).columns(wl.as_embeddings([nx.star_graph(2), nx.star_graph(3)])).tolist()
    [0, 1, -1, 2, -1, 3, -1]
    """

    def __init__(self, fitted):
        self.n_columns = int(fitted.counts.shape[1])
        self.initial = fitted.initial
        self.sizes = list(fitted.sizes)
        self.closed = None if fitted.initial_rows is None else RowLookup(fitted.initial_rows)
        self.edge_vocabulary = getattr(fitted, "edge_vocabulary", None)
        self.initial_index, self.edge_index = label_index(self.initial), label_index(self.edge_vocabulary)
        #: the first column of each round's labels
        self.shift = np.concatenate(([0], np.cumsum(self.sizes)[:-1])).astype(np.int64)
        n_edge_labels = 1 if self.edge_vocabulary is None else len(self.edge_vocabulary)
        # per round h >= 1: its signatures, looked up by their packed keys or by degree
        self.rounds = [SignatureTable(by_degree, self.sizes[h] * n_edge_labels)
                       for h, by_degree in enumerate(fitted.signatures)]

    def columns(self, embedded):
        if (self.closed is None) != (embedded.initial_rows is None):
            raise ValueError("one collection's WL features start from closed walks and the other's do not; "
                             "embed both with the same closed_walks")
        typed = [self.edge_vocabulary is not None, getattr(embedded, "edge_vocabulary", None) is not None]
        if any(typed) and not all(typed):
            raise ValueError("one collection's WL features are typed by edge labels and the other's are not")
        if len(embedded.signatures) != len(self.rounds):
            raise ValueError(f"WL features of {len(embedded.signatures)} rounds looked up among {len(self.rounds)}")
        ids = label_places(self.initial, embedded.initial)
        if self.closed is not None:
            rows = embedded.initial_rows.copy()
            rows[:, 0] = ids[rows[:, 0]]
            ids = self.closed.find(rows, rows[:, 0] >= 0)
        edges = label_places(self.edge_vocabulary, embedded.edge_vocabulary, "edge") if all(typed) else None
        maps = [ids]
        for h, table in enumerate(self.rounds, start=1):
            previous, found = maps[-1], np.full(embedded.sizes[h], -1, dtype=np.int64)
            start = 0
            for d, rows in embedded.signatures[h - 1].items():
                if edges is None:
                    moved = previous[rows]
                    known = np.all(moved >= 0, axis=1)
                else:
                    n_labels = embedded.sizes[h - 1]
                    moved = np.empty_like(rows)
                    moved[:, 0] = previous[rows[:, 0]]
                    edge, neighbour = edges[rows[:, 1:] // n_labels], previous[rows[:, 1:] % n_labels]
                    moved[:, 1:] = edge * self.sizes[h - 1] + neighbour
                    known = (moved[:, 0] >= 0) & np.all((edge >= 0) & (neighbour >= 0), axis=1)
                moved[:, 1:].sort(axis=1)
                found[start : start + len(rows)] = table.find(d, moved, known)
                start += len(rows)
            maps.append(found)
        return np.concatenate([np.where(m >= 0, m + s, -1) for m, s in zip(maps, self.shift)]).astype(np.int64)


def _first_label(batch, h, d):
    """First label id of degree ``d``'s rows in round ``h`` (rows are stored by degree)."""
    start = 0
    for degree, rows in batch.signatures[h - 1].items():
        if degree == d:
            return start
        start += len(rows)
    raise KeyError(d)


def edge_label_ids(batch, edge_label):
    """``(edge_vocabulary, ids)``: the sorted distinct edge labels of ``batch`` and the
    place of each stored entry's label in it (``(None, None)`` for ``edge_label=None``)."""
    if edge_label is None:
        return None, None
    if batch.edge_labels is None:
        raise ValueError(f"edge_label={edge_label!r} was asked for, but the graphs carry no edge labels")
    vocabulary, ids = np.unique(batch.edge_labels, return_inverse=True)
    return vocabulary, ids.reshape(-1).astype(np.int64)


def merged_edge_ids(left, right):
    """Each batch's edge ids in the union of both edge vocabularies (None if untyped)."""
    typed = [getattr(batch, "edge_vocabulary", None) is not None for batch in (left, right)]
    if not any(typed):
        return None
    if not all(typed):
        raise ValueError("one collection's WL features are typed by edge labels and the other's are not")
    _, place = merged_labels(left.edge_vocabulary, right.edge_vocabulary, "edge")
    return place[: len(left.edge_vocabulary)], place[len(left.edge_vocabulary) :]


def merged_typed_rows(rows, label_map, edge_map, n_labels, n_merged):
    """Signature rows ``(own, edge id * n_labels + neighbour, ...)`` of one batch, with
    own and neighbour labels put through ``label_map`` and edge ids through
    ``edge_map``, re-keyed as ``merged edge id * n_merged + merged neighbour``."""
    out = np.empty_like(rows)
    out[:, 0] = label_map[rows[:, 0]]
    keys = rows[:, 1:]
    out[:, 1:] = edge_map[keys // n_labels] * n_merged + label_map[keys % n_labels]
    return out
