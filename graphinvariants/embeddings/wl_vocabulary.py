"""A Weisfeiler-Lehman vocabulary grown batch by batch, for fits that stream.

:class:`GrowingVocabulary` takes the embeddings (:class:`~graphinvariants.embeddings.wl.WLBatch`)
of one bounded batch of graphs at a time and gives every label of the batch a column:
the column it already has, or a new one. New labels are numbered in first-seen order
(batch after batch; within a batch, round by round, each round's labels in the batch's
own order: ascending degree, then lexicographic signature), so the columns of earlier
batches never move. Each round and degree keeps one sorted table of signatures (a
signature is the label's own column and its neighbours' columns, typed by edge label
where the map reads them), extended by each batch's new signatures; nothing per graph
is kept.

:meth:`GrowingVocabulary.canonical` then renumbers the vocabulary as embedding all the
graphs in one batch numbers it (round by round; degrees ascending; signatures in
lexicographic order of the previous round's numbers), and returns that batch's
vocabulary (a :class:`~graphinvariants.embeddings.wl.WLBatch` without rows) and each
first-seen column's place in it, so that a streamed fit ends with the columns, the
fitted map and the rows of today's one-batch fit, to the last bit.
"""

import numpy as np
import scipy.sparse as sp

from ..graphs.attributes import concatenate_labels
from .counts import unique_rows
from .wl import WLBatch

__all__ = ["EDGE_TYPES", "GrowingVocabulary", "renumbered_rows"]

#: Edge labels a typed vocabulary may hold (a neighbour's key is ``column * EDGE_TYPES
#: + edge label id``).
EDGE_TYPES = 2**12


def _keys(rows):
    """Integer rows as opaque byte keys whose order is the rows' lexicographic order."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    keyed = np.ascontiguousarray((rows.view(np.uint64) ^ np.uint64(1 << 63)).astype(">u8"))
    return keyed.view(np.dtype((np.void, 8 * rows.shape[1]))).reshape(rows.shape[0])


def _rows(keys, width):
    """The integer rows of :func:`_keys`."""
    raw = np.frombuffer(keys.tobytes(), dtype=">u8").astype(np.uint64) ^ np.uint64(1 << 63)
    return raw.view(np.int64).reshape(len(keys), width)


class _Table:
    """Distinct integer rows of one width, each with its column: sorted keys, grown by
    merging each batch's new rows in."""

    def __init__(self, width):
        self.width = width
        self.keys = _keys(np.zeros((0, width), dtype=np.int64))
        self.columns = np.zeros(0, dtype=np.int64)

    def find(self, keys):
        """The column of every key, -1 where it is not in the table."""
        out = np.full(len(keys), -1, dtype=np.int64)
        if not len(self.keys) or not len(keys):
            return out
        place = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        found = self.keys[place] == keys
        out[found] = self.columns[place[found]]
        return out

    def add(self, keys, columns):
        """Insert distinct keys not in the table, with their columns."""
        if not len(keys):
            return
        order = np.argsort(keys, kind="stable")
        keys, columns = keys[order], columns[order]
        at = np.searchsorted(self.keys, keys)
        self.keys = np.insert(self.keys, at, keys)
        self.columns = np.insert(self.columns, at, columns)

    @property
    def nbytes(self):
        return self.keys.nbytes + self.columns.nbytes


class GrowingVocabulary:
    """The labels of a :class:`~graphinvariants.embeddings.wl.WeisfeilerLehman` map over
    batches of graphs, numbered in first-seen order (see the module).

    Parameters
    ----------
    functional : WeisfeilerLehman
        The map (without ``closed_walks``).

    Attributes
    ----------
    n_columns : int
        Labels seen so far (the columns of the rows given so far).

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import WeisfeilerLehman
    >>> from graphinvariants.embeddings.wl_vocabulary import GrowingVocabulary
    >>> wl = WeisfeilerLehman(n_iter=1)
    >>> vocabulary = GrowingVocabulary(wl)
    >>> vocabulary.counts(wl.as_embeddings([nx.path_graph(3)])).toarray()  # degrees 1, 2; (1; 2), (2; 1, 1)
    array([[2., 1., 2., 1.]])
    >>> vocabulary.counts(wl.as_embeddings([nx.star_graph(3)])).toarray()  # degree 3 and its labels are new
    array([[3., 0., 1., 0., 0., 3., 1.]])
    >>> fitted, place = vocabulary.canonical()
    >>> fitted.sizes, place.tolist()  # as one batch numbers them: degrees 1, 2, 3, then (1; 2), (1; 3), ...
    ([3, 4], [0, 1, 3, 5, 2, 4, 6])
    """

    def __init__(self, functional):
        if getattr(functional, "closed_walks", 0):
            raise ValueError("a WL vocabulary with closed walks is not grown batch by batch")
        self.functional = functional
        self.n_iter = functional.n_iter
        self.typed = functional.edge_label is not None
        self.initial = None  # the round-0 labels seen (an array), in first-seen order
        self.initial_columns = np.zeros(0, dtype=np.int64)
        self.edge_vocabulary = None  # the edge labels seen, in first-seen order
        self.tables = [{} for _ in range(self.n_iter)]  # per round h >= 1: degree -> _Table
        self.round_of = np.zeros(0, dtype=np.int8)  # per column: its round
        self.n_columns = 0

    # -- growing -------------------------------------------------------------------------
    def _new_columns(self, count, round_):
        out = np.arange(self.n_columns, self.n_columns + count, dtype=np.int64)
        self.n_columns += count
        self.round_of = np.concatenate([self.round_of, np.full(count, round_, dtype=np.int8)])
        return out

    def _places(self, seen, labels, kind):
        """``(seen', place)``: ``labels`` found among (or appended to) the first-seen
        labels ``seen``, compared as one batch's labels are (numbers and strings never
        equal)."""
        labels = np.asarray(labels)
        if seen is None:
            seen = labels[:0]
        if len(seen) and len(labels) and (seen.dtype.kind in "US") != (labels.dtype.kind in "US"):
            raise TypeError(f"the {kind} labels of one batch are numbers and of another strings; give them one type")
        both = concatenate_labels(seen, labels, kind)
        seen_values, new_values = both[: len(seen)], both[len(seen):]
        order = np.argsort(seen_values, kind="stable")
        place = np.full(len(new_values), -1, dtype=np.int64)
        if len(seen_values):
            at = np.minimum(np.searchsorted(seen_values[order], new_values), len(seen_values) - 1)
            hit = seen_values[order][at] == new_values
            place[hit] = order[at[hit]]
        fresh = np.flatnonzero(place < 0)  # distinct already: a batch's vocabulary is
        place[fresh] = len(seen_values) + np.arange(len(fresh))
        return np.concatenate([seen_values, new_values[fresh]]), place, fresh

    def columns(self, embedded):
        """The column of every label (count column) of ``embedded``, a ``WLBatch`` of
        this map; labels not seen before get new columns."""
        if embedded.n_iter != self.n_iter or embedded.initial_rows is not None:
            raise ValueError("the batch was not embedded by this vocabulary's map")
        self.initial, place, fresh = self._places(self.initial, embedded.initial, "node")
        self.initial_columns = np.concatenate([self.initial_columns, self._new_columns(len(fresh), 0)])
        maps = [self.initial_columns[place]]
        edges = None
        if self.typed:
            self.edge_vocabulary, edges, _ = self._places(self.edge_vocabulary, embedded.edge_vocabulary, "edge")
            if len(self.edge_vocabulary) > EDGE_TYPES:
                raise ValueError(f"more than {EDGE_TYPES} distinct edge labels")
        for h in range(1, self.n_iter + 1):
            previous = maps[-1]
            found = np.empty(embedded.sizes[h], dtype=np.int64)
            start = 0
            for d, rows in embedded.signatures[h - 1].items():
                moved = np.empty_like(rows)
                moved[:, 0] = previous[rows[:, 0]]
                if edges is None:
                    moved[:, 1:] = previous[rows[:, 1:]]
                else:
                    n_labels = embedded.sizes[h - 1]
                    moved[:, 1:] = previous[rows[:, 1:] % n_labels] * EDGE_TYPES + edges[rows[:, 1:] // n_labels]
                moved[:, 1:].sort(axis=1)
                table = self.tables[h - 1].get(d)
                if table is None:
                    table = self.tables[h - 1][d] = _Table(d + 1)
                keys = _keys(moved)
                place = table.find(keys)
                fresh = np.flatnonzero(place < 0)  # (distinct: the batch's signatures are, and moving them is one to one)
                place[fresh] = self._new_columns(len(fresh), h)
                table.add(keys[fresh], place[fresh])
                found[start : start + len(rows)] = place
                start += len(rows)
            maps.append(found)
        return np.concatenate(maps)

    def counts(self, embedded):
        """The counts of ``embedded`` on the columns seen so far (its new labels added),
        canonical CSR ``(len(embedded), n_columns)``."""
        column = self.columns(embedded)
        c = sp.coo_array(embedded.counts)
        out = sp.csr_array((c.data, (c.row, column[c.col])), shape=(c.shape[0], self.n_columns))
        out.sum_duplicates()
        return out

    @property
    def nbytes(self):
        """Bytes of the tables."""
        return int(sum(t.nbytes for tables in self.tables for t in tables.values()) + self.round_of.nbytes
                   + self.initial_columns.nbytes)

    # -- one batch's numbering -------------------------------------------------------------
    def canonical(self):
        """``(fitted, place)``: the vocabulary as embedding every graph seen in one batch
        gives it (a ``WLBatch`` with no rows: ``initial``, ``signatures``, ``sizes``,
        ``edge_vocabulary`` as :meth:`WeisfeilerLehman.embed` makes them), and, for every
        first-seen column, its column there."""
        place = np.full(self.n_columns, -1, dtype=np.int64)
        local = np.full(self.n_columns, -1, dtype=np.int64)  # a column's number within its round
        initial = self.initial if self.initial is not None else np.zeros(0)
        order = np.argsort(initial, kind="stable")
        local[self.initial_columns[order]] = np.arange(len(order))
        initial = initial[order]
        edge_vocabulary, edge_rank = None, None
        if self.typed:
            edges = self.edge_vocabulary if self.edge_vocabulary is not None else np.zeros(0)
            edge_order = np.argsort(edges, kind="stable")
            edge_rank = np.empty(len(edges), dtype=np.int64)
            edge_rank[edge_order] = np.arange(len(edges))
            edge_vocabulary = edges[edge_order]
        sizes, signatures = [len(initial)], []
        for h in range(1, self.n_iter + 1):
            by_degree, base = {}, 0
            for d in sorted(self.tables[h - 1]):
                table = self.tables[h - 1][d]
                rows = _rows(table.keys, d + 1)
                moved = np.empty_like(rows)
                moved[:, 0] = local[rows[:, 0]]
                if edge_rank is None:
                    moved[:, 1:] = local[rows[:, 1:]]
                else:
                    moved[:, 1:] = edge_rank[rows[:, 1:] % EDGE_TYPES] * sizes[-1] + local[rows[:, 1:] // EDGE_TYPES]
                moved[:, 1:].sort(axis=1)
                distinct, inverse = unique_rows(moved)
                local[table.columns] = inverse + base
                by_degree[d] = distinct
                base += len(distinct)
            signatures.append(by_degree)
            sizes.append(base)
        shift = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        place[:] = local + shift[self.round_of]
        fitted = WLBatch(sp.csr_array((0, int(sum(sizes)))), initial, signatures, sizes, self.n_iter, None, 0,
                         edge_vocabulary, params=self.functional.embedding_params())
        return fitted, place


def renumbered_rows(pieces, place, n_rows, n_columns):
    """The rows of ``pieces`` (``(data, first-seen columns, row lengths)`` per block) as
    one CSR matrix on the columns ``place`` gives, each row's columns sorted; the
    blocks are moved into arrays allocated once and released one by one."""
    nnz = sum(len(p[0]) for p in pieces)
    index_type = np.int32 if max(nnz, n_columns) <= np.iinfo(np.int32).max else np.int64
    data = np.empty(nnz)
    indices = np.empty(nnz, dtype=index_type)
    indptr = np.empty(n_rows + 1, dtype=index_type)
    indptr[0] = 0
    at, row = 0, 0
    while pieces:
        values, columns, lengths = pieces.pop(0)
        block = sp.csr_array((values, place[columns], np.concatenate(([0], np.cumsum(lengths)))),
                             shape=(len(lengths), n_columns))
        block.sort_indices()
        data[at : at + len(values)] = block.data
        indices[at : at + len(values)] = block.indices
        indptr[row + 1 : row + 1 + len(lengths)] = at + np.cumsum(lengths)
        at += len(values)
        row += len(lengths)
        del values, columns, lengths, block
    return sp.csr_array((data, indices, indptr), shape=(n_rows, n_columns))
