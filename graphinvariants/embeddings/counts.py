"""Functionals whose embeddings are sparse count vectors (histograms of node labels).

The walk-count histogram and the Weisfeiler-Lehman subtree features are both a count
per discrete label per graph, compared by the cosine-normalised inner product. What
differs is how labels are made and how two separately embedded collections are put on
one vocabulary (:meth:`CountFeatures.merge`); the pair evaluation, the explicit feature
map and the norms live here once.
"""

import copy
from abc import abstractmethod
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ..graphs.attributes import concatenate_labels
from .base import Functional

__all__ = ["CountFeatures", "CountMap", "FittedCounts", "RowLookup"]


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


#: Largest block of rows (rows x vocabulary) that a tile multiplies as a dense array (8 MiB).
_DENSE_ROWS_ENTRIES = 2**20


class AlignedCounts:
    """One side of a kernel computation: count matrix (CSR, canonical), squared row
    norms, and row blocks as views of the matrix's arrays.

    Blocks of columns (the engine asks for the same ones in every chunk of rows) are
    kept, so that a chunk pays only for its arithmetic, not for building sparse
    objects again; scipy's own slicing checks every index of the block each time.
    """

    def __init__(self, counts, norms):
        if not counts.has_canonical_format:
            counts = counts.copy()
            counts.sum_duplicates()
        self.counts = counts
        self.norms = norms
        self._blocks = {}

    def block(self, rows):
        """``counts[rows]``; for a slice of rows, a view without copying, kept."""
        if not _is_range(rows):
            return self.counts[rows]
        key = rows.indices(self.counts.shape[0])
        found = self._blocks.get(key)
        if found is None:
            start, stop = key[0], max(key[0], key[1])
            indptr = self.counts.indptr
            first, last = indptr[start], indptr[stop]
            found = sp.csr_array(
                (self.counts.data[first:last], self.counts.indices[first:last], indptr[start : stop + 1] - first),
                shape=(stop - start, self.counts.shape[1]),
            )
            self._blocks[key] = found  # one dict item per block: safe across threads
        return found

    def dense(self, rows):
        """``counts[rows]`` as a dense array."""
        if not _is_range(rows):
            return self.counts[rows].toarray()
        start, stop, _ = rows.indices(self.counts.shape[0])
        stop = max(start, stop)
        indptr = self.counts.indptr
        first, last = indptr[start], indptr[stop]
        out = np.zeros((stop - start, self.counts.shape[1]))
        row = np.repeat(np.arange(stop - start), np.diff(indptr[start : stop + 1]))
        out[row, self.counts.indices[first:last]] = self.counts.data[first:last]  # canonical: no duplicates
        return out


def _is_range(rows):
    return isinstance(rows, slice) and rows.step in (None, 1)


def shared_columns(left, right):
    """Sorted columns that hold a nonzero count in both sparse matrices."""
    used = np.zeros((2, left.shape[1]), dtype=bool)
    used[0, left.indices[left.data != 0]] = True
    used[1, right.indices[right.data != 0]] = True
    return np.flatnonzero(used[0] & used[1])


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
    (by one lexsort, many times faster than numpy's structured-array sort, over the
    columns packed several to a key by :func:`_packed_columns`)."""
    keys = _packed_columns(rows)
    order = np.lexsort(keys[::-1])
    ordered_keys = np.column_stack(keys)[order]  # equal keys, equal rows: the packing is one to one
    new = np.ones(len(rows), dtype=bool)
    new[1:] = np.any(ordered_keys[1:] != ordered_keys[:-1], axis=1)
    inverse = np.empty(len(rows), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return rows[order[new]], inverse


def _packed_columns(rows):
    """Keys that order the rows of an integer matrix as its columns do, lexicographically:
    the columns shifted to start at 0, then as many consecutive columns per uint64 key as
    their bit width allows, the first in the highest bits (WL rows on dense graphs are a
    hundred columns of small colour numbers: four per key make the lexsort about four
    times shorter). Returns a list of key columns, most significant first."""
    n, width = rows.shape
    if n == 0 or width < 2 or rows.dtype.kind not in "iu":
        return list(rows.T)
    low = int(rows.min())
    bits = max((int(rows.max()) - low).bit_length(), 1)
    per_key = 64 // bits
    if per_key < 2:
        return list(rows.T)
    n_keys = -(-width // per_key)
    shifted = np.zeros((n, n_keys * per_key), dtype=np.uint64)  # the padding is equal in every row
    shifted[:, :width] = rows - rows.dtype.type(low)
    scale = np.uint64(1) << (np.uint64(bits) * np.arange(per_key - 1, -1, -1, dtype=np.uint64))
    # disjoint bit fields: the products never carry, so the sum is their bitwise or
    return list((shifted.reshape(n, n_keys, per_key) * scale).sum(axis=2, dtype=np.uint64).T)


def sort_within_rows(values, row, n_values):
    """``values[numpy.lexsort((values, row))]`` for non-negative integers below
    ``n_values`` whose ``row`` is non-decreasing (the entries of CSR rows): each row's
    values in increasing order.

    While ``row * n_values + values`` fits in int64 this sorts that one key, about 15
    times faster than the two-key lexsort on three million entries; the order, and so
    the result, is the same.
    """
    values = np.asarray(values, dtype=np.int64)
    row = np.asarray(row, dtype=np.int64)
    if not values.size:
        return values.copy()
    if int(row[-1]) < (np.iinfo(np.int64).max - n_values) // max(n_values, 1):
        key = row * np.int64(n_values) + values
        key.sort()
        return key - row * np.int64(n_values)
    return values[np.lexsort((values, row))]


def merged_labels(left, right, kind="node"):
    """The sorted union of two label vocabularies (``kind``: "node" or "edge") and each
    label's place in it; numbers and strings are never merged (numpy would make 1 and
    "1" one label)."""
    _check_label_kinds(left, right, kind)
    merged, place = np.unique(concatenate_labels(left, right, kind), return_inverse=True)
    return merged, place.reshape(-1)


def _check_label_kinds(left, right, kind):
    kinds = {"text" if labels.dtype.kind in "US" else "numbers" for labels in (left, right) if len(labels)}
    if len(kinds) > 1:
        raise TypeError(f"the {kind} labels of one collection are numbers and of the other strings; give them one "
                        "type (a TU molecule data set labels atoms and bonds by integer codes, molecules from SMILES "
                        "by element and bond type: graphinvariants.datasets.as_molecules(dataset) gives the data set "
                        "those names)")


def label_places(fitted, labels, kind="node"):
    """The place of every label of ``labels`` in the sorted distinct labels ``fitted``
    (-1 for a label ``fitted`` lacks), compared as :func:`merged_labels` compares them
    (numbers and strings never equal). Costs ``len(labels) log len(fitted)``.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.embeddings.counts import label_places
    >>> label_places(np.array(["C", "N", "O"]), np.array(["O", "S", "C"])).tolist()
    [2, -1, 0]
    """
    fitted, labels = np.asarray(fitted), np.asarray(labels)
    _check_label_kinds(fitted, labels, kind)
    if not len(labels):
        return np.zeros(0, dtype=np.int64)
    if not len(fitted):
        return np.full(len(labels), -1, dtype=np.int64)
    both = concatenate_labels(fitted, labels, kind)  # one type, every value kept exact
    fitted, labels = both[: len(fitted)], both[len(fitted) :]
    place = np.minimum(np.searchsorted(fitted, labels), len(fitted) - 1)
    return np.where(fitted[place] == labels, place, -1).astype(np.int64)


def _ordered_bytes(rows):
    """Integer rows as one opaque item each whose byte order is the rows' lexicographic
    order (big-endian, sign bit flipped): numpy sorts and searches such items by memcmp."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    n, width = rows.shape  # (at least one column: a label's signature is never empty)
    keyed = np.ascontiguousarray((rows.view(np.uint64) ^ np.uint64(1 << 63)).astype(">u8"))
    return keyed.view(np.dtype((np.void, 8 * width))).reshape(n)


class RowLookup:
    """Exact lookup of integer rows among fixed distinct rows of one width (a label's
    signature among the fitted labels' signatures): a query costs a binary search over
    the fitted rows per row asked, nothing that grows with them otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.embeddings.counts import RowLookup
    >>> table = RowLookup(np.array([[0, 1], [0, 3], [2, -1]]))
    >>> table.find(np.array([[2, -1], [0, 2], [0, 1]])).tolist()
    [2, -1, 0]
    """

    def __init__(self, rows):
        rows = np.asarray(rows, dtype=np.int64)
        self.width = rows.shape[1]
        keys = _ordered_bytes(rows)
        self.order = None
        if len(keys) > 1 and not strictly_increasing_rows(rows):
            self.order = np.argsort(keys, kind="stable")
            keys = keys[self.order]
        self.keys = keys

    def __len__(self):
        return len(self.keys)

    def find(self, rows, known=None):
        """The place of every row of ``rows`` among the fitted rows, -1 where it is not
        one of them or where ``known`` (a mask) is False."""
        rows = np.asarray(rows, dtype=np.int64)
        out = np.full(len(rows), -1, dtype=np.int64)
        if not len(rows) or not len(self.keys):
            return out
        if rows.shape[1] != self.width:
            raise ValueError(f"rows of width {rows.shape[1]} looked up among rows of width {self.width}")
        keys = _ordered_bytes(rows)
        place = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        found = self.keys[place] == keys
        if known is not None:
            found &= known
        ids = place if self.order is None else self.order[place]
        out[found] = ids[found]
        return out


def strictly_increasing_rows(rows):
    """Whether the rows of an integer matrix (signatures, or words packing them) are
    strictly increasing in lexicographic order."""
    later, earlier = rows[1:], rows[:-1]
    differ = later != earlier
    first = differ.argmax(axis=1)
    at = np.arange(len(first))
    return bool(np.all(differ[at, first]) and np.all(later[at, first] > earlier[at, first]))


def kept_columns(counts, column, n_columns):
    """``counts`` (CSR) with its column ``j`` moved to ``column[j]`` and the columns
    where ``column`` is -1 dropped, as a canonical ``(n, n_columns)`` CSR matrix; one
    pass over the non-zeros."""
    counts = sp.csr_array(counts)
    column = np.asarray(column, dtype=np.int64)
    new = column[counts.indices]
    keep = new >= 0
    row = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    out = sp.csr_array((counts.data[keep], (row[keep], new[keep])), shape=(counts.shape[0], n_columns))
    out.sum_duplicates()
    return out


class FittedCounts(NamedTuple):
    """The label counts of a batch on a fitted count map's columns, as plain arrays laid
    out as a CSR matrix's (a graph's entries are ``indptr[g]:indptr[g + 1]``): one entry
    per distinct label of a graph, its count and its fitted column (-1 for a label no
    fitted graph has). What :meth:`CountFeatures.fitted_counts` gives; a feature map's
    rows are made from it (all counts for the norm, the fitted ones for the row).

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import WeisfeilerLehman
    >>> wl = WeisfeilerLehman(n_iter=1)
    >>> fitted = wl.count_map(wl.as_embeddings([nx.path_graph(3)]))
    >>> found = wl.fitted_counts([nx.star_graph(2), nx.star_graph(3)], fitted)
    >>> found.indptr.tolist(), found.count.tolist(), found.column.tolist()
    ([0, 4, 8], [2.0, 1.0, 2.0, 1.0, 3.0, 1.0, 3.0, 1.0], [0, 1, 2, 3, 0, -1, -1, -1])
    """

    indptr: np.ndarray
    count: np.ndarray
    column: np.ndarray

    @classmethod
    def of(cls, counts, columns=None):
        """The entries of a canonical CSR count matrix, its column ``j`` at fitted column
        ``columns[j]`` (None: the matrix's columns are the fitted ones)."""
        column = counts.indices.astype(np.int64)
        return cls(counts.indptr, counts.data, column if columns is None else columns[column])


class CountMap:
    """A fitted count map: the labels of a fitted batch as columns, and where the labels
    of any other batch of the same functional sit among them.

    Made by :meth:`CountFeatures.count_map`. This base class works for every count
    member through its :meth:`CountFeatures.merge` with the fitted vocabulary, so a
    batch costs what merging it with the whole vocabulary costs; the library's members
    override :meth:`CountFeatures.count_map` with maps that look each label up by its
    signature (a :class:`RowLookup` per round), in time set by the batch alone.

    Attributes
    ----------
    n_columns : int
        The fitted batch's number of labels (its count columns, in their order).
    """

    def __init__(self, functional, fitted):
        probe = copy.copy(fitted)
        self.n_columns = int(fitted.counts.shape[1])
        probe.counts = sp.csr_array(sp.identity(self.n_columns, format="csr", dtype=np.float64))
        self.functional = functional
        self.probe = probe

    def columns(self, embedded):
        """For every label (count column) of ``embedded``, its fitted column; -1 for a
        label that no fitted graph has."""
        own = copy.copy(embedded)
        n = embedded.counts.shape[1]
        own.counts = sp.csr_array(sp.identity(n, format="csr", dtype=np.float64))
        place, merged = self.functional.merge(self.probe, own)
        fitted_of = np.full(place.shape[1], -1, dtype=np.int64)
        place = sp.coo_array(place)
        fitted_of[place.col] = place.row
        merged = sp.coo_array(merged)
        out = np.full(n, -1, dtype=np.int64)
        out[merged.row] = fitted_of[merged.col]
        return out

    def counts(self, embedded):
        """The counts of ``embedded`` on the fitted columns (labels no fitted graph has
        left out), CSR ``(len(embedded), n_columns)``, canonical."""
        return kept_columns(embedded.counts, self.columns(embedded), self.n_columns)

    def fitted_counts(self, embedded):
        """Every label count of ``embedded`` with its fitted column (a
        :class:`FittedCounts`)."""
        counts = sp.csr_array(embedded.counts)
        if not counts.has_canonical_format:
            counts.sum_duplicates()
        return FittedCounts.of(counts, self.columns(embedded))


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

    def count_map(self, embedded):
        """The fitted count map of ``embedded``'s labels (a :class:`CountMap`): where
        the labels of another batch sit among them. This default merges with the whole
        vocabulary; members override it with a lookup whose cost is the batch's."""
        return CountMap(self, embedded)

    def fitted_counts(self, items, count_map, *, what="graphs"):
        """The label counts of ``items`` (graphs, or this functional's embeddings) on the
        columns of ``count_map`` (made by :meth:`count_map`), as a :class:`FittedCounts`:
        the embeddings' counts with :meth:`CountMap.columns`. A member may make them
        without its embeddings where that is faster (the Weisfeiler-Lehman member for a
        few small graphs); the counts are the same."""
        return count_map.fitted_counts(self.as_embeddings(items, what=what))

    def align(self, left, right):
        if left is right:
            side = AlignedCounts(left.counts, squared_norms(left.counts))
            return side, side
        a, b = self.merge(left, right)
        norms_a, norms_b = squared_norms(a), squared_norms(b)
        # A label that only one side has adds nothing to any inner product. Dropping
        # those columns here, once per call, keeps every tile's work within the shared
        # vocabulary: a few queries against a large corpus (kneighbors in small chunks)
        # used to pay for the corpus's whole vocabulary in every tile. The counts kept
        # are the same integers, so every value is unchanged to the last bit.
        shared = shared_columns(a, b)
        return AlignedCounts(a[:, shared], norms_a), AlignedCounts(b[:, shared], norms_b)

    def tile(self, left, right, rows, cols):
        a_rows, b_cols = left.block(rows), right.block(cols)
        if a_rows.shape[0] * a_rows.shape[1] <= _DENSE_ROWS_ENTRIES:
            # few rows (kneighbors in small chunks): the rows as a dense array, so that
            # no sparse operand is transposed (its cost grows with the vocabulary)
            dots = (b_cols @ left.dense(rows).T).T
        else:
            dots = (a_rows @ b_cols.T).toarray()
        # the counts are integers, so both products are exact and give equal values
        return dots / np.sqrt(left.norms[rows][:, None] * right.norms[cols][None, :])

    def pairs(self, left, right, i, j):
        a, b = left.counts, right.counts
        dots = np.asarray(a[i].multiply(b[j]).sum(axis=1)).reshape(-1)
        return dots / np.sqrt(left.norms[i] * right.norms[j])

    def tile_size(self, n_jobs):
        return 1024

    def features(self, embedded):
        """Explicit feature map: unit-norm count vectors, shape (n_graphs, n_labels)."""
        counts = embedded.counts
        return sp.csr_array(sp.diags_array(1.0 / np.sqrt(squared_norms(counts))) @ counts)
