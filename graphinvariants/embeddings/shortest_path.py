"""The shortest-path kernel (Borgwardt and Kriegel 2005), on a whole GraphBatch at once.

A graph is the histogram of its *shortest-path features*: one per ordered pair of
distinct nodes ``(u, v)`` with a path from ``u`` to ``v``, namely the number of edges
``d(u, v)`` of a shortest path and, with ``node_label``, the labels of both ends:
``(label(u), label(v), d(u, v))``. The kernel is the cosine-normalised inner product of
two histograms, that is the number of pairs of node pairs whose features are equal
(the delta kernel on features), divided by the square roots of each graph's own such
number. This is GraKeL's ``ShortestPath(with_labels=True, normalize=True)`` (and
``with_labels=False`` without node labels): GraKeL too counts ordered pairs (so a pair
``{u, v}`` gives ``(label(u), label(v), d)`` and ``(label(v), label(u), d)``), leaves
out the pairs ``(u, u)`` and the pairs with no path between them.

Definitions, where they are ours:

* **Disconnected graphs**: exact. A pair of nodes in different components has no
  shortest path and gives no feature, as in GraKeL.
* **Graphs with no pair** (a single node, an edgeless graph, the empty graph) have no
  feature at all; their histogram is one count of a feature of their own, "no connected
  pair", that no other graph has. So every graph has ``K(G, G) = 1``, two such graphs
  have kernel 1, and they have kernel 0 with every other graph (GraKeL's normalised
  value there is 0 / 0).
* **Bond types** (``edge_label``): a pair of adjacent nodes (``d = 1``) is also keyed
  by the label of its edge; pairs at ``d >= 2`` are keyed as without. A sequence of
  bond types "along the shortest path" is not defined (two nodes have, in general,
  several shortest paths with different bonds), and GraKeL's ``ShortestPath`` has no
  bond types at all.
* **Directed graphs**: distances follow edge direction, so ``(u, v)`` is a feature
  exactly when ``v`` can be reached from ``u``; an undirected graph (stored with both
  directions) gives every pair both ways.
* **Edge weights** are not read: distances are numbers of edges (as GraKeL's on
  unweighted graphs).

Distances: with numba (the ``[fast]`` extra) and at least :data:`COMPILED_PAIRS` node
pairs, a compiled breadth-first search from every node within its own graph, in chunks
of graphs of at most :data:`DISTANCE_ENTRIES` pairs. Otherwise array work: graphs are
taken in groups of about :data:`GROUP_NODES` nodes, and one call of
:func:`scipy.sparse.csgraph.shortest_path` (on the group's block-diagonal adjacency)
gives all their distances at once; pairs in different graphs of the group are
unreachable, so each source reads its own graph's part of the block. A graph with more
than ``sqrt(DISTANCE_ENTRIES)`` nodes is taken alone, its sources a block of rows at a
time, so the dense distance block never holds more than :data:`DISTANCE_ENTRIES` values
(32 MiB). Both give the same integer distances (tested). An undirected batch is read one
way (pairs ``u < v``), each feature then counted as the two ordered features it stands
for, and its Gram matrix keeps one column per mirrored pair of features, weighted 2 on
one side: the same integer inner products for half the work.
"""

import numpy as np
import scipy.sparse as sp

from .._utils.optional import compiled
from ..graphs.csr import concatenated_ranges
from .counts import (AlignedCounts, CountFeatures, CountMap, RowLookup, label_places, merged_labels, relabel_columns,
                     shared_columns, squared_norms, unique_rows)
from .wl import edge_label_ids, merged_edge_ids

__all__ = ["COMPILED_PAIRS", "DISTANCE_ENTRIES", "GROUP_NODES", "ShortestPath", "ShortestPathBatch"]

#: Largest dense block of distances computed at once (sources x nodes): 2**22 float64
#: values, 32 MiB. A graph of ``n`` nodes is swept ``DISTANCE_ENTRIES // n`` sources at
#: a time.
DISTANCE_ENTRIES = 2**22

#: Graphs are grouped until their nodes reach this number before one call of
#: ``shortest_path``: fewer calls, and a wasted (unreachable) part of the distance block
#: that grows with the group size only (``n_nodes * GROUP_NODES`` values in all).
GROUP_NODES = 256

#: Batches of at least this many node pairs (the sum of the squared graph sizes) are
#: searched by compiled code when numba (the ``[fast]`` extra) can be imported: below,
#: importing numba would cost more than it saves.
COMPILED_PAIRS = 2**19

#: Rows of a group are packed into one int64 key while the product of their column
#: ranges stays below this (else they are counted as rows, by a lexsort).
PACKED_KEYS = 2.0**62

#: The key of a graph with no connected pair (distance 0 is no pair's distance).
_NO_PAIR = (0, -1, -1, -1)


class ShortestPathBatch:
    """Shortest-path feature counts of many graphs.

    Attributes
    ----------
    counts : scipy.sparse.csr_array of shape (n_graphs, n_features)
        Number of ordered node pairs of each graph with each feature.
    keys : numpy.ndarray of shape (n_features, 4), int64
        The distinct features in the order of the columns, sorted:
        ``(distance, edge label id, label id of u, label id of v)``, an id being a place
        in ``edge_vocabulary`` or ``labels`` and -1 where not used (no edge labels, no
        node labels, ``distance >= 2`` for the edge label). ``(0, -1, -1, -1)`` is the
        feature of a graph without any connected pair.
    labels : numpy.ndarray or None
        The distinct node labels, sorted (None without node labels).
    edge_vocabulary : numpy.ndarray or None
        The distinct edge labels, sorted (None without edge labels).
    params : dict
        The parameters the features were made with (``node_label``, ``edge_label``).
    undirected : bool
        Whether every graph was undirected (each edge stored both ways with one label),
        so that the features ``(a, b, d)`` and ``(b, a, d)`` have equal counts.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import ShortestPath
    >>> batch = ShortestPath().as_embeddings([nx.path_graph(3)])
    >>> batch.keys[:, 0].tolist(), batch.counts.toarray().tolist()  # 4 ordered pairs at 1, 2 at 2
    ([1, 2], [[4.0, 2.0]])
    """

    def __init__(self, counts, keys, labels=None, edge_vocabulary=None, *, params=None, undirected=False):
        self.undirected = undirected
        self.counts = counts
        self.keys = keys
        self.labels = labels
        self.edge_vocabulary = edge_vocabulary
        self.params = dict(params) if params is not None else {}

    def __len__(self):
        return self.counts.shape[0]

    def __repr__(self):
        return f"<ShortestPathBatch: {len(self)} graphs, {self.counts.shape[1]} features>"


class ShortestPath(CountFeatures):
    """Shortest-path kernel (cosine-normalised), exact on disconnected graphs.

    Parameters
    ----------
    node_label : str or None, default=None
        ``None``: a pair's feature is its distance alone (GraKeL's
        ``with_labels=False``); a string: ``(label(u), label(v), distance)`` with that
        node attribute (``"label"`` for a TUDataset's node labels; GraKeL's
        ``with_labels=True``).
    edge_label : str or None, default=None
        ``None`` ignores edge labels; a string keys each pair of adjacent nodes by the
        label of their edge too (that edge attribute; ``"label"`` for a TUDataset's bond
        types). Pairs at distance 2 or more are keyed as without.

    Notes
    -----
    The features are those of GraKeL's ``ShortestPath``: ordered pairs ``u != v`` with
    a path from ``u`` to ``v``; its normalised matrix is equal to this one (to rounding)
    on graphs with at least one edge. See the module's documentation for the graphs
    with no pair, directed graphs and bond types.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import ShortestPath
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> graphs = [nx.path_graph(4), nx.star_graph(3), nx.cycle_graph(4)]
    >>> pairwise_kernels(graphs, functional=ShortestPath()).round(3)  # pairs at 1, 2, 3: (6, 4, 2), (6, 6, 0), (8, 4, 0)
    array([[1.   , 0.945, 0.956],
           [0.945, 1.   , 0.949],
           [0.956, 0.949, 1.   ]])
    """

    batch_type = ShortestPathBatch
    weight = None

    def __init__(self, *, node_label=None, edge_label=None):
        for option, value in (("node_label", node_label), ("edge_label", edge_label)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{option} must be None or an attribute name, got {value!r}")
        self.node_label = node_label
        self.edge_label = edge_label

    def embedding_params(self):
        return {"node_label": self.node_label, "edge_label": self.edge_label}

    def embed(self, batch):
        n_graphs, n = len(batch), batch.n_nodes
        A = batch.matrix
        labels, label_ids = None, None
        if self.node_label is not None:
            if batch.node_labels is None:
                raise ValueError(f"node_label={self.node_label!r} was asked for, but the graphs carry no node labels")
            labels, label_ids = np.unique(batch.node_labels, return_inverse=True)
            label_ids = label_ids.reshape(-1).astype(np.int64)
        edge_vocabulary, edge_ids = edge_label_ids(batch, self.edge_label)
        edge_keys = None
        if edge_ids is not None:  # the global (row, column) of every stored entry, sorted (canonical CSR)
            row = np.repeat(np.arange(n, dtype=np.int64), np.diff(A.indptr))
            edge_keys = row * n + A.indices
        offsets = np.asarray(batch.offsets, dtype=np.int64)
        sizes = np.diff(offsets)
        owner = np.repeat(np.arange(n_graphs, dtype=np.int64), sizes)
        # an undirected batch (symmetric pattern and edge labels) is read one way only:
        # the pairs u < v, keyed by their labels in increasing order, then each such
        # feature is counted as the two ordered features it stands for (half the sorting)
        undirected = _symmetric(A, edge_ids)
        # a pair's row (graph, distance, edge label id, label id of u, of v), -1 where unused;
        # packed into one int64 key (mixed radix) when the ranges allow, so that each group
        # is counted by one sort of integers
        radix = (n_graphs, int(sizes.max(initial=1)) + 1,
                 1 + (len(edge_vocabulary) if edge_vocabulary is not None else 0),
                 1 + (len(labels) if labels is not None else 0), 1 + (len(labels) if labels is not None else 0))
        packed = float(np.prod(np.asarray(radix, dtype=np.float64))) < PACKED_KEYS
        parts, counted = [], []
        for u, v, distance in _connected_pairs(A, offsets, owner, undirected):
            if not len(u):
                continue
            columns = [owner[u], distance, np.full(len(u), -1, np.int64)]
            if edge_keys is not None:
                adjacent = columns[1] == 1
                place = np.searchsorted(edge_keys, u[adjacent] * n + v[adjacent])
                columns[2][adjacent] = edge_ids[place]
            if label_ids is not None:
                lu, lv = label_ids[u], label_ids[v]
                columns += [np.minimum(lu, lv), np.maximum(lu, lv)] if undirected else [lu, lv]
            else:
                columns += [np.full(len(u), -1, np.int64)] * 2
            if packed:
                key = columns[0]
                for c in range(1, 5):
                    key = key * radix[c] + (columns[c] + (c >= 2))  # ids from -1: shifted by one
                key, count = np.unique(key, return_counts=True)
                distinct = np.empty((len(key), 5), dtype=np.int64)
                for c in range(4, 0, -1):
                    key, distinct[:, c] = np.divmod(key, radix[c])
                    distinct[:, c] -= c >= 2
                distinct[:, 0] = key
            else:
                distinct, inverse = unique_rows(np.column_stack(columns))
                count = np.bincount(inverse, minlength=len(distinct))
            if undirected:  # (a, b) with a < b: also (b, a); (a, a): both ways, twice
                mirrored = distinct[distinct[:, 3] != distinct[:, 4]][:, [0, 1, 2, 4, 3]]
                count = np.concatenate((np.where(distinct[:, 3] == distinct[:, 4], 2 * count, count),
                                        count[distinct[:, 3] != distinct[:, 4]]))
                distinct = np.concatenate((distinct, mirrored))
            parts.append(distinct)
            counted.append(count.astype(np.float64))
        has_pair = np.zeros(n_graphs, dtype=bool)
        for distinct in parts:
            has_pair[distinct[:, 0]] = True
        lonely = np.flatnonzero(~has_pair)
        parts.append(np.column_stack((lonely, np.tile(_NO_PAIR, (len(lonely), 1)))).astype(np.int64))
        counted.append(np.ones(len(lonely)))
        rows = np.concatenate(parts)
        if packed:  # the features as one packed key each: one sort of integers, the same order as the rows'
            key = np.zeros(len(rows), dtype=np.int64)
            for c in range(1, 5):
                key = key * radix[c] + (rows[:, c] + (c >= 2))
            key, column = np.unique(key, return_inverse=True)
            keys = np.empty((len(key), 4), dtype=np.int64)
            for c in range(4, 0, -1):
                key, keys[:, c - 1] = np.divmod(key, radix[c])
                keys[:, c - 1] -= c >= 2
            column = column.reshape(-1)
        else:
            keys, column = unique_rows(rows[:, 1:])
        counts = sp.csr_array((np.concatenate(counted), (rows[:, 0], column)), shape=(n_graphs, len(keys)))
        counts.sum_duplicates()  # a graph swept in blocks of sources has a feature in several parts
        return ShortestPathBatch(counts, keys, labels, edge_vocabulary, params=self.embedding_params(),
                                 undirected=undirected)

    def align(self, left, right):
        """As the count members, but when both sides are undirected each pair of mirrored
        features ``(a, b, d)``, ``(b, a, d)`` (equal counts) is one column, weighted 2 on
        the left side: the inner products are the same integers, for half the work."""
        if not (left.undirected and right.undirected and left.labels is not None):
            return super().align(left, right)
        if left is right:
            merged, keys = (left.counts, left.counts), left.keys
        else:
            keys, new_left, new_right = self._merged_keys(left, right)
            merged = (relabel_columns(left.counts, new_left, len(keys)), relabel_columns(right.counts, new_right, len(keys)))
        norms = squared_norms(merged[0]), squared_norms(merged[1])
        kept = keys[:, 2] <= keys[:, 3]
        weight = np.where(keys[kept, 2] < keys[kept, 3], 2.0, 1.0)
        a, b = (sp.csr_array(m[:, np.flatnonzero(kept)]) for m in merged)
        a = sp.csr_array(a @ sp.diags_array(weight))
        shared = shared_columns(a, b)
        return AlignedCounts(a[:, shared], norms[0]), AlignedCounts(b[:, shared], norms[1])

    def tile_size(self, n_jobs):
        """256: the features are few (1,894 on NCI1 with node labels, 259 on ENZYMES), so
        a tile's rows times the features stay within the count members' dense block
        (2**20 values) and each tile is one sparse-times-dense product; in tiles of
        1,024 rows NCI1's Gram matrix was a sparse-times-sparse product, several times
        slower (the counts are integers: both products are exact and equal)."""
        return 256

    def count_map(self, embedded):
        return ShortestPathCountMap(embedded)

    def merge(self, left, right):
        """Count matrices of two batches over the union of their features."""
        keys, new_left, new_right = self._merged_keys(left, right)
        return (relabel_columns(left.counts, new_left, len(keys)),
                relabel_columns(right.counts, new_right, len(keys)))

    def _merged_keys(self, left, right):
        """The union of two batches' features, sorted, and each batch's columns in it."""
        keys = [left.keys.copy(), right.keys.copy()]
        if (left.labels is None) != (right.labels is None):
            raise ValueError("one collection's shortest-path features carry node labels and the other's do not; "
                             "embed both with the same node_label")
        if left.labels is not None:
            _, place = merged_labels(left.labels, right.labels)
            maps = place[: len(left.labels)], place[len(left.labels) :]
            for side in (0, 1):
                _remap(keys[side], (2, 3), maps[side])
        edge_maps = merged_edge_ids(left, right)
        if edge_maps is not None:
            for side in (0, 1):
                _remap(keys[side], (1,), edge_maps[side])
        distinct, inverse = unique_rows(np.concatenate(keys))
        return distinct, inverse[: len(keys[0])], inverse[len(keys[0]) :]


class ShortestPathCountMap(CountMap):
    """The features of a fitted :class:`ShortestPathBatch` as columns: another batch's
    features, their label and edge label ids put into the fitted vocabularies, are
    looked up among the fitted ones, in time set by that batch alone."""

    def __init__(self, fitted):
        self.n_columns = int(fitted.counts.shape[1])
        self.labels = fitted.labels
        self.edge_vocabulary = fitted.edge_vocabulary
        self.keys = RowLookup(fitted.keys)

    def columns(self, embedded):
        if (self.labels is None) != (embedded.labels is None):
            raise ValueError("one collection's shortest-path features carry node labels and the other's do not; "
                             "embed both with the same node_label")
        if (self.edge_vocabulary is None) != (embedded.edge_vocabulary is None):
            raise ValueError("one collection's shortest-path features are typed by edge labels and the other's are not")
        keys = embedded.keys.copy()
        known = np.ones(len(keys), dtype=bool)
        for vocabulary, own, columns, kind in ((self.labels, embedded.labels, (2, 3), "node"),
                                               (self.edge_vocabulary, embedded.edge_vocabulary, (1,), "edge")):
            if vocabulary is None:
                continue
            place = label_places(vocabulary, own, kind)
            for c in columns:
                used = keys[:, c] >= 0
                keys[used, c] = place[keys[used, c]]
                known &= ~used | (keys[:, c] >= 0)
        return self.keys.find(keys, known)


def _connected_pairs(A, offsets, owner, undirected):
    """Yield ``(u, v, d)`` arrays: the pairs of distinct nodes of one graph with a path
    from ``u`` to ``v`` (only ``u < v`` if ``undirected``) and their distances, a group
    of graphs at a time. Compiled breadth-first search (numba) for batches of at least
    :data:`COMPILED_PAIRS` node pairs when numba can be imported, in chunks of graphs of
    at most :data:`DISTANCE_ENTRIES` pairs; otherwise, and for a graph larger than that,
    ``scipy.sparse.csgraph.shortest_path`` on blocks of the batch. Both give the same
    pairs and the same integer distances (tested)."""
    sizes = np.diff(offsets)
    module = None
    if float(np.sum(sizes.astype(np.float64) ** 2)) >= COMPILED_PAIRS:
        module = compiled("graphinvariants.embeddings._shortest_path_numba")  # numba is the [fast] extra
    if module is not None:
        indptr, indices = A.indptr.astype(np.int64), A.indices.astype(np.int64)
        pairs = sizes * (sizes - 1)
        g, n_graphs = 0, len(sizes)
        while g < n_graphs:
            if pairs[g] > DISTANCE_ENTRIES:  # one large graph: in blocks of sources
                yield from _scipy_pairs(A, offsets[g : g + 2], owner, undirected)
                g += 1
                continue
            end, total = g, 0
            while end < n_graphs and pairs[end] <= DISTANCE_ENTRIES and total + pairs[end] <= DISTANCE_ENTRIES:
                total += pairs[end]
                end += 1
            yield module.bfs_pairs(indptr, indices, offsets, g, end, one_way=undirected)
            g = end
        return
    yield from _scipy_pairs(A, offsets, owner, undirected)


def _scipy_pairs(A, offsets, owner, undirected):
    """:func:`_connected_pairs` by ``scipy.sparse.csgraph.shortest_path`` (``offsets``:
    of the graphs to read, which may be a part of the batch)."""
    from scipy.sparse.csgraph import shortest_path  # here: it loads scipy.linalg, which the import need not

    sizes = np.diff(offsets)
    for start, stop, sources in _blocks(offsets):
        p0, p1 = A.indptr[start], A.indptr[stop]  # block-diagonal: the group's rows hold its columns only
        block = sp.csr_array((A.data[p0:p1], A.indices[p0:p1] - start, A.indptr[start : stop + 1] - p0),
                             shape=(stop - start, stop - start))
        whole = sources == (start, stop)
        D = shortest_path(block, method="D", directed=True, unweighted=True,
                          indices=None if whole else np.arange(sources[0] - start, sources[1] - start))
        # only each source's own graph: the rest of the block is unreachable
        source_graph = owner[sources[0] : sources[1]]
        local = np.searchsorted(offsets, sources[0], side="right") - 1 + (source_graph - owner[sources[0]])
        first = offsets[local] - start
        width = sizes[local]
        if undirected:  # the nodes after the source in its graph
            first = np.arange(sources[0], sources[1]) - start + 1
            width = offsets[local + 1] - start - first
        i = np.repeat(np.arange(sources[1] - sources[0]), width)
        j = concatenated_ranges(first, width)
        distance = D[i, j]
        keep = (distance > 0) & (distance < np.inf)
        yield i[keep] + sources[0], j[keep] + start, distance[keep].astype(np.int64)


def _symmetric(A, edge_ids):
    """Whether every stored entry ``(u, v)`` has ``(v, u)`` stored with the same edge
    label (``edge_ids``: one per entry, or None)."""
    if (A != A.T).nnz:
        return False
    if edge_ids is None:
        return True
    entry = sp.csr_array((np.arange(1, A.nnz + 1, dtype=np.float64), A.indices, A.indptr), shape=A.shape)
    mirror = sp.csr_array(entry.T)  # entry k of the transpose, in CSR order: the number (from 1) of (v, u)
    mirror.sort_indices()
    return bool(np.array_equal(edge_ids[mirror.data.astype(np.int64) - 1], edge_ids))


def _remap(keys, columns, mapping):
    """Put the ids in ``columns`` of ``keys`` through ``mapping``, in place (-1 stays)."""
    for c in columns:
        used = keys[:, c] >= 0
        keys[used, c] = mapping[keys[used, c]]


def _blocks(offsets):
    """``(start, stop, (first source, stop source))``: node ranges of groups of whole
    graphs of about GROUP_NODES nodes, and for a graph too large for one dense block of
    DISTANCE_ENTRIES values, ranges of its sources."""
    g, n_graphs = 0, len(offsets) - 1
    while g < n_graphs:
        start = int(offsets[g])
        end = g + 1
        while end < n_graphs and offsets[end + 1] - start <= GROUP_NODES:
            end += 1
        stop = int(offsets[end])
        width = stop - start
        step = max(1, DISTANCE_ENTRIES // max(width, 1))
        for a in range(start, stop, step):
            yield start, stop, (a, min(a + step, stop))
        g = end
