"""Higher-order Weisfeiler-Leman kernels: colours of node pairs instead of nodes.

1-WL (:mod:`~graphinvariants.embeddings.wl`) colours nodes and cannot tell apart two
regular graphs of one degree. The members here colour ordered *pairs* of nodes
``(u, v)`` and count, per graph, the pairs of every colour of every round (the
cosine-normalised inner product of those counts is the kernel, as for ``wl``):

``fwl2`` (:class:`FolkloreWL`)
    Folklore 2-WL (2-FWL, as strong as 3-WL; Cai, Fürer and Immerman 1992). Round 0
    colours ``(u, v)`` by its atomic type: ``u == v``, the edges ``u -> v`` and
    ``v -> u`` with their labels, and the labels of ``u`` and ``v``. Round ``h``
    colours it by its round ``h - 1`` colour and the multiset, over every node ``w``,
    of the pairs of colours ``(C(u, w), C(w, v))``. Cost per graph of ``n`` nodes:
    ``n**3`` per round, ``n**2`` memory.
``fwl2_ir`` (:class:`FolkloreWL` with ``individualise=True``)
    A step beyond 3-WL: after the rounds of 2-FWL, the nodes of the smallest class of
    at least two nodes (their colours ``C(v, v)``, ties broken by the colour) are
    *individualised* one at a time: the pairs of row and column ``v`` get a colour of
    their own and 2-FWL refines ``n_iter`` more rounds. Each individualised node adds
    one count, of the name of its final histogram: the multiset of those histograms
    is an invariant (the class is chosen from colours alone). It separates the
    Cai-Fürer-Immerman pairs over ``K4`` and other bases of treewidth 3, which no 3-WL
    test does (:mod:`graphinvariants.datasets.cfi`). Cost per graph: ``(1 + c) n**3``
    per round, ``c`` the size of that class (at most ``n``).
``lwl2`` (:class:`LocalWL`)
    Local 2-WL in the manner of δ-2-LWL (Morris, Rattan and Mutzel, "Weisfeiler and
    Leman go sparse", NeurIPS 2020): round ``h`` colours ``(u, v)`` by its colour and
    the multisets of ``C(w, v)`` over the neighbours ``w`` of ``u`` and of ``C(u, w)``
    over the neighbours ``w`` of ``v``. Only pairs at distance at most ``radius``
    (default 1) are coloured (``radius=None``: all pairs of a graph), and their
    distance is part of their round-0 colour. Cost per graph and round: the sum of
    ``d_u + d_v`` over those pairs, which number ``n + 2m`` at radius 1 (``2 sum_u
    d_u (1 + d_u)`` entries) and ``sum_v |ball(v, 2)|`` at radius 2, so it runs on
    NCI1, DD and REDDIT-BINARY, where ``n**3`` would not (REDDIT-BINARY's largest
    graphs need more than 1 GiB at radius 2, and are refused there).

Colours are named, not numbered: a colour is a 128-bit name, two lanes of 64 bits, each
computed with wrapping uint64 arithmetic and the splitmix64 finaliser as mixing
function. A multiset is named by the sum of the mixed names of its elements (the sum
does not depend on their order, so nothing is sorted). Round-0 names come from the
label *values* (their BLAKE2b digests), so a colour has the same name in every batch
and every process, and two collections embedded apart put their counts on one
vocabulary by the names (:meth:`FolkloreWL.merge`), as ``rooted_subgraph`` does. Two
different colours share a name only if both 64-bit lanes collide (about ``m**2 / 2**129``
for ``m`` colours, as for a random 128-bit name); such a collision can only merge two
colours, never make a graph's counts depend on how its nodes are numbered, so the
counts are exactly invariant under renumbering.

Memory is bounded by ``working_memory`` (MiB; None: scikit-learn's global setting):
2-FWL holds one round of a graph's ``n**2`` pair colours at a time (about ``160 n**2``
bytes with its work arrays: a graph of up to about 2,600 nodes at 1 GiB) and takes the
pairs' sums in blocks of a quarter of the budget; local 2-WL takes graphs in chunks
whose pairs and neighbour lists fit. A graph whose smallest working set does not fit is
refused with a ValueError naming its size and the budget. The counts found, which are
the result, come on top of the budget: each round keeps only its distinct colours and
their counts (at most one a pair, 24 bytes each), and putting them on one vocabulary
at the end holds about twice the result's own size (32 bytes a colour) at its peak, so
the traced peak stays within ``working_memory`` plus the result while the result is
smaller than the budget. With numba (the ``[fast]`` extra) 2-FWL's inner sums are
compiled (same bits as the numpy blocks).
"""

import hashlib

import numpy as np
import scipy.sparse as sp

from .._utils.optional import compiled
from .._utils.validation import check_int, check_working_memory
from ..graphs.csr import concatenated_ranges
from .counts import CountFeatures, relabel_columns, unique_rows

__all__ = ["FolkloreWL", "HigherWLBatch", "LocalWL"]

_MULTIPLIERS = (np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


def _constants(tag, count):
    """``count`` fixed uint64 constants per lane (2, count), the same in every process."""
    digest = b"".join(hashlib.blake2b(f"{tag} {i}".encode(), digest_size=16).digest() for i in range(count))
    return np.frombuffer(digest, dtype="<u8").reshape(count, 2).T.copy()


# per lane: [atom seed, odd multiplier, second of a pair, own colour, local j=1, local j=2,
#            individualised (4 codes), histogram, empty label]
_C = _constants("graphinvariants.higher_wl", 12)
_ATOM, _ODD, _SECOND, _OWN, _LOCAL_1, _LOCAL_2 = (_C[:, i] for i in range(6))
_ODD = _ODD | np.uint64(1)
_INDIVIDUAL = _C[:, 6:10]
_HISTOGRAM, _NO_LABEL = _C[:, 10], _C[:, 11]

#: Bytes local 2-WL may hold per coloured pair (keys, names of one round and the next,
#: the graph of each, the segment bounds, the counting of a round) ...
LOCAL_PAIR_BYTES = 160
#: ... and per neighbour entry kept over the rounds (its position, as int32) ...
LOCAL_ENTRY_BYTES = 8
#: ... while the entries are built and summed in slices of a quarter of the budget, at
#: about this many bytes of work arrays per entry of a slice.
SLICE_ENTRY_BYTES = 64

#: Bytes 2-FWL may hold per pair of a graph (two lanes of colours, their mixed form, the
#: next round's, the pairs' sums, class ids and the sort that finds them).
FWL_PAIR_BYTES = 160


def _mix(x):
    """The splitmix64 finaliser, elementwise on uint64 (wrapping arithmetic)."""
    x = x ^ (x >> np.uint64(30))
    x = x * _MULTIPLIERS[0]
    x = x ^ (x >> np.uint64(27))
    x = x * _MULTIPLIERS[1]
    return x ^ (x >> np.uint64(31))


def _mix_in_place(x):
    """:func:`_mix` of the uint64 array ``x``, in place (one scratch array): the same bits."""
    scratch = x >> np.uint64(30)
    x ^= scratch
    x *= _MULTIPLIERS[0]
    np.right_shift(x, np.uint64(27), out=scratch)
    x ^= scratch
    x *= _MULTIPLIERS[1]
    np.right_shift(x, np.uint64(31), out=scratch)
    x ^= scratch


def _fold(words, value):
    """Names ``words`` (lanes first) extended by one more component ``value``."""
    return _mix(words * _ODD.reshape((2,) + (1,) * (words.ndim - 1)) + value)


def _lane(constant, ndim):
    return constant.reshape((2,) + (1,) * ndim)


def _plain(value):
    """A label value as it prints in every process (integral floats as ints)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def label_words(labels, what):
    """Per-lane words of the label of every item: ``(2, len(labels))`` uint64 from the
    BLAKE2b digest of each distinct value, so equal values have equal words in every
    batch (None if ``labels`` is None)."""
    if labels is None:
        return None
    values, place = np.unique(np.asarray(labels), return_inverse=True)
    words = np.empty((2, len(values)), dtype=np.uint64)
    for i, value in enumerate(values.tolist()):
        digest = hashlib.blake2b(repr((what, _plain(value))).encode(), digest_size=16).digest()
        words[:, i] = np.frombuffer(digest, dtype="<u8")
    return words[:, place.reshape(-1)]


class HigherWLBatch:
    """Counts of the named pair colours of many graphs.

    Attributes
    ----------
    counts : scipy.sparse.csr_array of shape (n_graphs, n_colours)
        How many pairs of each colour (over all rounds) each graph has; with
        individualisation, also how many of its individualised nodes end in each
        histogram.
    vocabulary : numpy.ndarray of int64, shape (n_colours, 2)
        The 128-bit name of each column's colour (two int64 halves), rows sorted: the
        same colour has the same name in every batch and every process.
    params : dict
        The parameters the counts were made with.
    """

    def __init__(self, counts, vocabulary, *, params=None):
        self.counts = counts
        self.vocabulary = vocabulary
        self.params = dict(params) if params is not None else {}

    def __len__(self):
        return self.counts.shape[0]

    def __repr__(self):
        return f"<HigherWLBatch: {len(self)} graphs, {self.counts.shape[1]} colours>"


class _NamedCounts(CountFeatures):
    """Count members whose columns are 128-bit colour names: merged by name."""

    batch_type = HigherWLBatch
    weight = None

    def _check_labels(self, batch):
        if self.node_label is not None and batch.node_labels is None:
            raise ValueError(f"node_label={self.node_label!r} was asked for, but the graphs carry no node labels")
        if self.edge_label is not None and batch.edge_labels is None:
            raise ValueError(f"edge_label={self.edge_label!r} was asked for, but the graphs carry no edge labels")
        nodes = label_words(batch.node_labels, "node") if self.node_label is not None else None
        edges = label_words(batch.edge_labels, "edge") if self.edge_label is not None else None
        return nodes, edges

    def merge(self, left, right):
        names, place = unique_rows(np.concatenate((left.vocabulary, right.vocabulary)))
        n_left = len(left.vocabulary)
        return (relabel_columns(left.counts, place[:n_left], len(names)),
                relabel_columns(right.counts, place[n_left:], len(names)))

    def _batch(self, n_graphs, tally):
        """The batch of counts from the occurrences kept in ``tally``."""
        counts, vocabulary = tally.counts(n_graphs)
        return HigherWLBatch(counts, vocabulary, params=self.embedding_params())


class _Tally:
    """Occurrences ``(row, name, amount)`` found round by round, put on one vocabulary
    at the end.

    Only the distinct names of a round are kept (a pair's colour table is dropped once
    the next round has read it): 16 bytes a name, 8 an amount, and 8 a row where a round
    spreads over several rows (node rows, or a chunk of graphs).
    """

    def __init__(self):
        self.rows, self.names, self.amounts = [], [], []

    def add(self, row, names, amounts):
        """Keep ``amounts[i]`` occurrences of ``names[i]`` (int64 rows of two lanes) in
        row ``row`` (one int for all, or one per name)."""
        self.rows.append(row if np.ndim(row) else int(row))
        self.names.append(np.ascontiguousarray(names, dtype=np.int64).reshape(-1, 2))
        self.amounts.append(np.asarray(amounts))

    def count_classes(self, row, classes, distinct):
        """Keep the classes ``classes`` (of the names ``distinct``) in rows ``row`` (one
        int, or one per item of ``classes``)."""
        if not np.ndim(row):
            self.add(row, distinct, np.bincount(classes, minlength=len(distinct)))
            return
        low = int(row.min()) if len(row) else 0
        keys, amounts = np.unique((row - low) * max(len(distinct), 1) + classes, return_counts=True)
        rows, which = np.divmod(keys, max(len(distinct), 1))
        self.add(rows + low, distinct[which], amounts)

    def counts(self, n_graphs):
        """The count matrix ``(n_graphs, n_colours)`` and its sorted vocabulary of names.

        Put together lane by lane, letting each part go once copied: at the peak about
        twice the result's own size (32 bytes a count and name) is held.
        """
        sizes = [len(names) for names in self.names]
        hi = np.concatenate([names[:, 0] for names in self.names]) if sizes else np.zeros(0, np.int64)
        lo = np.concatenate([names[:, 1] for names in self.names]) if sizes else np.zeros(0, np.int64)
        self.names.clear()
        lanes = [hi, lo]
        del hi, lo
        vocabulary, column = _distinct_lanes(lanes)
        amount = np.concatenate(self.amounts).astype(np.float64) if sizes else np.zeros(0)
        self.amounts.clear()
        if all(isinstance(r, int) for r in self.rows) and all(np.diff(self.rows) >= 0):
            # rows in order, one per part: the compressed rows directly, sorted within each
            per_row = np.bincount(np.asarray(self.rows, np.int64), weights=sizes, minlength=n_graphs)
            indptr = np.concatenate(([0], np.cumsum(per_row.astype(np.int64))))
            counts = sp.csr_array((amount, column, indptr), shape=(n_graphs, len(vocabulary)))
        else:
            row = np.concatenate([np.full(size, r, np.int64) if isinstance(r, int) else r
                                  for r, size in zip(self.rows, sizes)])
            counts = sp.csr_array((amount, (row, column)), shape=(n_graphs, len(vocabulary)))
        self.rows.clear()
        counts.sum_duplicates()
        return counts, vocabulary


def distinct_names(hi, lo):
    """``unique_rows`` of the names given as their two int64 lanes ``hi`` and ``lo``:
    the distinct names ``(d, 2)`` in lexicographic order and the class of each, without
    copies of ``(m, 2)`` rows (about 50 bytes a name at the peak)."""
    return _distinct_lanes([hi, lo])


def _distinct_lanes(lanes):
    """:func:`distinct_names` of ``lanes = [hi, lo]``, emptying the list so that the
    lanes go as soon as they are read (when the caller holds no other reference)."""
    order = np.lexsort(lanes[::-1])
    new = np.ones(len(order), dtype=bool)
    hi = lanes[0][order]
    np.not_equal(hi[1:], hi[:-1], out=new[1:])
    lo = lanes[1][order]
    lanes.clear()
    new[1:] |= lo[1:] != lo[:-1]
    distinct = np.empty((int(np.count_nonzero(new)), 2), np.int64)
    distinct[:, 0] = hi[new]
    distinct[:, 1] = lo[new]
    del hi, lo
    ids = np.cumsum(new, dtype=np.int64)
    del new
    ids -= 1
    classes = np.empty(len(order), np.int64)
    classes[order] = ids
    return distinct, classes


def _check_label_names(node_label, edge_label):
    for name, value in (("node_label", node_label), ("edge_label", edge_label)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} must be None or an attribute name, got {value!r}")


def _distinct(words):
    """``(distinct names as int64 rows, class id of each)`` of names given as lanes."""
    lanes = words.reshape(2, -1)
    return distinct_names(lanes[0].view(np.int64), lanes[1].view(np.int64))


class FolkloreWL(_NamedCounts):
    """Folklore 2-WL over ordered node pairs, as strong as 3-WL (cosine-normalised).

    Parameters
    ----------
    n_iter : int, default=3
        Refinement rounds after the atomic types; the counts of rounds ``0 .. n_iter``
        are the features (and, with ``individualise``, the rounds after each
        individualisation).
    node_label : str or None, keyword-only, default=None
        Node attribute whose values colour the nodes (``"label"`` for a TUDataset).
    edge_label : str or None, keyword-only, default=None
        Edge attribute whose values colour the edges (``"label"`` for bond types).
    individualise : bool, keyword-only, default=False
        Individualise each node of the smallest class of at least two nodes in turn
        (registered as ``"fwl2_ir"``; see the module's documentation).
    working_memory : float or None, keyword-only, default=None
        MiB the embedding may use for a graph's pair colours (None:
        ``sklearn.get_config()["working_memory"]``); a graph with more than about
        ``sqrt(working_memory * 2**20 / 160)`` nodes is refused. The counts returned
        come on top (see the module's documentation). It does not change the counts.

    Notes
    -----
    Registered as ``"fwl2"``. Cost per graph of ``n`` nodes: ``n**3`` per round
    (``(1 + c) n**3`` with individualisation, ``c`` the size of the class), memory
    ``160 n**2`` bytes. Edge weights are ignored; a directed graph's pairs see the
    direction of their edges.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import FolkloreWL, WeisfeilerLehman
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> decalin = nx.cycle_graph(10)  # two hexagons sharing the edge 0-5
    >>> decalin.add_edge(0, 5)
    >>> bicyclopentyl = nx.disjoint_union(nx.cycle_graph(5), nx.cycle_graph(5))
    >>> bicyclopentyl.add_edge(0, 5)  # two pentagons joined by an edge
    >>> molecules = [decalin, bicyclopentyl]  # the classic pair that 1-WL confuses
    >>> float(pairwise_kernels(molecules, functional=WeisfeilerLehman())[0, 1])
    1.0
    >>> float(pairwise_kernels(molecules, functional=FolkloreWL())[0, 1]) < 1
    True
    """

    def __init__(self, n_iter=3, *, node_label=None, edge_label=None, individualise=False, working_memory=None):
        self.n_iter = check_int(n_iter, "n_iter", minimum=0)
        _check_label_names(node_label, edge_label)
        self.node_label = node_label
        self.edge_label = edge_label
        if not isinstance(individualise, (bool, np.bool_)):
            raise TypeError(f"individualise must be True or False, got {individualise!r}")
        self.individualise = bool(individualise)
        if working_memory is not None:
            check_working_memory(working_memory)
        self.working_memory = working_memory

    def embedding_params(self):
        return {"n_iter": self.n_iter, "node_label": self.node_label, "edge_label": self.edge_label,
                "individualise": self.individualise}

    def embed(self, batch):
        node_words, edge_words = self._check_labels(batch)
        budget = check_working_memory(self.working_memory) * 2**20
        offsets = np.asarray(batch.offsets, dtype=np.int64)
        sizes = np.diff(offsets)  # nodes per graph (a batch of node rows has its graphs' offsets)
        too_large = np.flatnonzero(sizes.astype(float) ** 2 * FWL_PAIR_BYTES > budget)
        if len(too_large):
            g = int(too_large[0])
            raise ValueError(
                f"graph {g} has {int(sizes[g])} nodes: folklore 2-WL needs about "
                f"{sizes[g] ** 2 * FWL_PAIR_BYTES / 2**20:.3g} MiB for its pair colours, more than "
                f"working_memory={budget / 2**20:g} MiB; raise working_memory, or use 'lwl2' (local 2-WL)")
        module = compiled("graphinvariants.embeddings._higher_wl_numba")
        A = batch.matrix
        row_of_node = _row_of_node(batch)
        tally = _Tally()
        for g in range(len(offsets) - 1):
            a, b = int(offsets[g]), int(offsets[g + 1])
            n = b - a
            rows = row_of_node[a:b]
            # a pair (u, v) counts at u: one row for the whole graph, or one per node
            row = int(rows[0]) if n and (rows == rows[0]).all() else np.repeat(rows, n)
            rounds = _Refinement(_fwl_atoms(A, a, b, node_words, edge_words), budget, module)
            tally.count_classes(row, rounds.classes, rounds.distinct)
            for _ in range(self.n_iter):
                rounds.step()
                tally.count_classes(row, rounds.classes, rounds.distinct)
            if self.individualise:
                nodes, histograms = self._individualised(rounds, budget, module)
                tally.add(row_of_node[a + nodes], histograms, np.ones(len(nodes), np.int64))
            del rounds, row
        return self._batch(len(batch), tally)

    def _individualised(self, rounds, budget, compiled):
        """The nodes of the target class and the names of their final histograms."""
        words = rounds.words
        n = words.shape[1]
        none = np.zeros(0, np.int64), np.zeros((0, 2), np.int64)
        if n == 0:
            return none
        diagonal = np.ascontiguousarray(words[:, np.arange(n), np.arange(n)].T).view(np.int64)
        classes, ids = unique_rows(diagonal)
        size = np.bincount(ids, minlength=len(classes))
        candidates = np.flatnonzero(size >= 2)
        if not len(candidates):  # every node has a colour of its own: nothing to individualise
            return none
        target = candidates[np.argmin(size[candidates])]  # classes are sorted by name: ties go to the first
        nodes = np.flatnonzero(ids == target)
        histograms = np.empty((len(nodes), 2), np.uint64)
        code = np.zeros((n, n), np.int8)
        rounds.forget_classes()  # only the names are read from here on
        for i, v in enumerate(nodes.tolist()):
            code[:] = 0
            code[v, :] += 1
            code[:, v] += 2
            start = _INDIVIDUAL[:, code]
            start ^= words
            _mix_in_place(start)
            refined = _Refinement(start, budget, compiled)
            del start
            for _ in range(self.n_iter):
                refined.step()
            total = refined.words.reshape(2, -1) ^ _lane(_HISTOGRAM, 1)
            del refined
            _mix_in_place(total)
            histograms[i] = _mix(total.sum(axis=1, dtype=np.uint64) ^ _HISTOGRAM)
            del total
        return nodes, histograms.view(np.int64)


def _row_of_node(batch):
    """The row of counts each node's items go to: its graph's (a node's own, when the
    batch is one graph per node, as explanations ask)."""
    return np.repeat(np.arange(len(batch)), np.asarray(batch.sizes, dtype=np.int64))


def _fwl_atoms(A, a, b, node_words, edge_words):
    """Round-0 names ``(2, n, n)`` of the pairs of the graph on rows ``a:b`` of ``A``."""
    n = b - a
    rows = np.repeat(np.arange(n), np.diff(A.indptr[a : b + 1]))
    first, last = A.indptr[a], A.indptr[b]
    cols = A.indices[first:last].astype(np.int64) - a
    adjacent = np.zeros((n, n), np.uint64)
    adjacent[rows, cols] = 1
    code = adjacent * np.uint64(2) + adjacent.T * np.uint64(4)
    code[np.arange(n), np.arange(n)] += np.uint64(1)
    words = _mix(_lane(_ATOM, 2) ^ code[None])
    if node_words is not None:
        own = node_words[:, a:b]
        words = _fold(words, own[:, :, None])
        words = _fold(words, own[:, None, :])
    if edge_words is not None:
        bond = np.broadcast_to(_lane(_NO_LABEL, 2), (2, n, n)).copy()
        bond[:, rows, cols] = edge_words[:, first:last]
        words = _fold(words, bond)
        words = _fold(words, bond.transpose(0, 2, 1))
    return words


class _Refinement:
    """Rounds of 2-FWL on one graph's pair names ``(2, n, n)``; once a round splits no
    class (the partition is stable), later rounds rename each class from one pair.

    Between rounds it holds the names (16 bytes a pair), the class of each pair (8) and
    the distinct names (at most 16 a pair); a round adds the mixed names, the sums and
    the next names (16 each), and :func:`distinct_names` of the next names (about 50),
    so about 140 bytes a pair at the peak, within :data:`FWL_PAIR_BYTES`.
    """

    #: Whether stable rounds are taken from one pair per class (tests turn it off).
    shortcut = True

    def __init__(self, words, budget, compiled):
        self.words = np.ascontiguousarray(words)
        self.budget = budget
        self.compiled = compiled
        self._classes = self._distinct = None
        self.stable = False

    @property
    def names(self):
        return self.words

    @property
    def classes(self):
        """The class of every pair (int64, ``n**2``), classes numbered by sorted name."""
        if self._classes is None:
            self._distinct, self._classes = _distinct(self.words)
        return self._classes

    @property
    def distinct(self):
        """The distinct names ``(d, 2)`` of this round (int64 rows), one per class."""
        if self._distinct is None:
            self._distinct, self._classes = _distinct(self.words)
        return self._distinct

    def forget_classes(self):
        """Let the classes go (only the names are read from here on)."""
        self._classes = self._distinct = None
        self.stable = False

    def step(self):
        words = self.words
        n = words.shape[1]
        if n == 0:
            return words
        classes = self.classes
        mixed = words ^ _lane(_SECOND, 2)
        _mix_in_place(mixed)
        if self.stable and self.shortcut:  # one pair per class: the others have the same multiset
            _, first = np.unique(classes, return_index=True)
            us, vs = np.divmod(first.astype(np.int64), n)
            sums = self._sums(words, mixed, us, vs)
            del mixed
            new = _mix(_mix(words[:, us, vs] ^ _lane(_OWN, 1)) + sums)
            self.words = np.ascontiguousarray(new[:, classes].reshape(2, n, n))
            self._distinct = np.ascontiguousarray(new.T).view(np.int64)
            return self.words
        sums = self._sums(words, mixed, None, None)
        del mixed
        new = words.reshape(2, -1) ^ _lane(_OWN, 1)
        _mix_in_place(new)
        new += sums
        del sums
        _mix_in_place(new)
        n_classes = len(self._distinct)
        self._distinct = self._classes = None
        del classes, words
        self.words = new.reshape(2, n, n)
        self.stable = len(self.distinct) == n_classes
        return self.words

    def _sums(self, words, mixed, us, vs):
        """``sum_w mix(words[u, w] * odd + mixed[w, v])`` per lane, for each pair ``(u, v)``
        (every pair, in order, if ``us`` is None), in blocks of pairs."""
        n = words.shape[1]
        n_pairs = n * n if us is None else len(us)
        out = np.empty((2, n_pairs), np.uint64)
        if self.compiled:  # blocks of rows: the pair lists stay small
            block = max(n, (int(self.budget // 64) // max(n, 1)) * n)
        else:  # three (2, block, n) arrays of uint64: a quarter of the budget
            block = max(1, int(self.budget // (4 * 3 * 16 * max(n, 1))))
        for start in range(0, n_pairs, block):
            stop = min(start + block, n_pairs)
            if us is None:
                u, v = np.divmod(np.arange(start, stop, dtype=np.int64), n)
            else:
                u, v = us[start:stop], vs[start:stop]
            if self.compiled:
                out[:, start:stop] = self.compiled.pair_sums(words, mixed, u, v, _ODD)
                continue
            terms = _mix(words[:, u, :] * _lane(_ODD, 2) + mixed[:, :, v].transpose(0, 2, 1))
            out[:, start:stop] = terms.sum(axis=2, dtype=np.uint64)
        return out


class LocalWL(_NamedCounts):
    """Local 2-WL over the node pairs within a radius, δ-2-LWL-like (cosine-normalised).

    Parameters
    ----------
    n_iter : int, default=3
        Refinement rounds after the atomic types; the counts of rounds ``0 .. n_iter``
        are the features.
    radius : int or None, keyword-only, default=1
        Pairs ``(u, v)`` at distance at most ``radius`` are coloured (their distance is
        part of their first colour); None: every pair of nodes of a graph.
    node_label : str or None, keyword-only, default=None
        Node attribute whose values colour the nodes.
    edge_label : str or None, keyword-only, default=None
        Edge attribute whose values colour the edges.
    working_memory : float or None, keyword-only, default=None
        MiB the embedding may use (None: scikit-learn's global setting): graphs are
        taken in chunks whose pairs and neighbour lists fit; a graph that does not fit
        alone is refused. The counts returned come on top (see the module's
        documentation). It does not change the counts.

    Notes
    -----
    Registered as ``"lwl2"``. Cost per graph and round: ``sum over pairs (d_u + d_v)``
    (degrees), memory about ``8`` bytes per such neighbour entry and ``160`` per pair.
    With ``radius=1`` the pairs are the nodes and the edges (``n + 2m``). Edge weights
    are ignored; directed graphs are read along out-edges.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import LocalWL
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> hexagon = nx.cycle_graph(6)
    >>> triangles = nx.disjoint_union(nx.cycle_graph(3), nx.cycle_graph(3))
    >>> float(pairwise_kernels([hexagon, triangles], functional=LocalWL(radius=1))[0, 1]) < 1
    True
    """

    def __init__(self, n_iter=3, *, radius=1, node_label=None, edge_label=None, working_memory=None):
        self.n_iter = check_int(n_iter, "n_iter", minimum=0)
        self.radius = None if radius is None else check_int(radius, "radius", minimum=1)
        _check_label_names(node_label, edge_label)
        self.node_label = node_label
        self.edge_label = edge_label
        if working_memory is not None:
            check_working_memory(working_memory)
        self.working_memory = working_memory

    def embedding_params(self):
        return {"n_iter": self.n_iter, "radius": self.radius, "node_label": self.node_label,
                "edge_label": self.edge_label}

    def embed(self, batch):
        node_words, edge_words = self._check_labels(batch)
        budget = check_working_memory(self.working_memory) * 2**20
        A = batch.matrix
        offsets = np.asarray(batch.offsets, dtype=np.int64)
        tally = _Tally()
        g, n_graphs = 0, len(offsets) - 1
        row_of_node = _row_of_node(batch)
        needs = self._needs(A, offsets)
        while g < n_graphs:
            stop = self._chunk(needs, g, budget)
            a, b = int(offsets[g]), int(offsets[stop])
            keys, distance = self._pairs(A, offsets, g, stop)
            rows = row_of_node[a:b]
            # a pair (u, v) counts at u: one row for the chunk, or one per pair
            row = int(rows[0]) if (rows == rows[0]).all() else rows[keys // max(b - a, 1)]
            words = _local_atoms(A, a, b, keys, distance, node_words, edge_words)
            del distance
            slice_entries = max(1024, int(budget // (4 * SLICE_ENTRY_BYTES)))
            lists = _local_neighbours(A, a, b, keys, slice_entries)
            del keys
            for h in range(self.n_iter + 1):
                if h:
                    words = _local_step(words, lists, slice_entries)
                distinct, classes = distinct_names(words[0].view(np.int64), words[1].view(np.int64))
                tally.count_classes(row, classes, distinct)
                del distinct, classes
            del words, lists, row
            g = stop
        return self._batch(len(batch), tally)

    def _needs(self, A, offsets):
        """Bytes each graph may need: :data:`LOCAL_PAIR_BYTES` per pair and
        :data:`LOCAL_ENTRY_BYTES` per neighbour entry kept, the pairs of a node bounded
        by the walks of length at most ``radius`` from it (exact for radius 1)."""
        degree = np.diff(A.indptr).astype(np.float64)
        sizes = np.diff(offsets).astype(np.float64)
        size_of_node = np.repeat(sizes, np.diff(offsets))
        if self.radius is None:
            ball = size_of_node
        else:
            pattern = sp.csr_array((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
            walks, ball = np.ones(A.shape[0]), np.ones(A.shape[0])
            for _ in range(self.radius):
                walks = pattern @ walks
                ball += walks
            ball = np.minimum(ball, size_of_node)
        # entries: sum over pairs (u, v) of d_u + d_v, at most 2 sum_u |ball(u)| d_u for
        # an undirected graph (v is in ball(u) exactly when u is in ball(v))
        per_node = LOCAL_PAIR_BYTES * ball + LOCAL_ENTRY_BYTES * 2 * ball * degree
        total = np.concatenate(([0.0], np.cumsum(per_node)))
        return total[offsets[1:]] - total[offsets[:-1]] + SLICE_ENTRY_BYTES * 1024

    def _chunk(self, needs, g, budget):
        """End of the chunk of graphs from ``g`` whose pairs and lists fit the budget."""
        if needs[g] > budget:
            raise ValueError(
                f"graph {g} may need about {needs[g] / 2**20:.3g} MiB for local 2-WL at radius {self.radius}, "
                f"more than working_memory={budget / 2**20:g} MiB; raise working_memory or lower radius")
        total = np.cumsum(needs[g:])
        return g + max(1, int(np.searchsorted(total, budget, side="right")))

    def _pairs(self, A, offsets, g, stop):
        """Sorted keys ``u * n + v`` (local to the chunk) of the pairs and their distance."""
        a, b = int(offsets[g]), int(offsets[stop])
        n = b - a
        local_offsets = offsets[g : stop + 1] - a
        sizes = np.diff(local_offsets)
        if self.radius is None:
            u = concatenated_ranges(local_offsets[:-1], sizes)
            u = np.repeat(u, np.repeat(sizes, sizes))
            v = concatenated_ranges(np.repeat(local_offsets[:-1], sizes), np.repeat(sizes, sizes))
            keys = u * n + v
            distance = np.full(len(keys), -1, np.int64)  # not computed: only adjacency is in the atoms
            distance[u == v] = 0
        else:
            block = A[a:b, a:b]
            step = sp.csr_array(block.astype(bool).astype(np.int32) + sp.identity(n, dtype=np.int32, format="csr"))
            ball = sp.identity(n, dtype=np.int32, format="csr")
            keys = _keys(ball, n)
            distance = np.zeros(len(keys), np.int64)
            for r in range(1, self.radius + 1):
                ball = sp.csr_array(ball @ step)
                ball.sum_duplicates()
                ball.sort_indices()
                ball.data[:] = 1
                new_keys = _keys(ball, n)
                new_distance = np.full(len(new_keys), r, np.int64)
                new_distance[np.searchsorted(new_keys, keys)] = distance
                keys, distance = new_keys, new_distance
        return keys, distance


def _keys(matrix, n):
    rows = np.repeat(np.arange(matrix.shape[0], dtype=np.int64), np.diff(matrix.indptr))
    return rows * n + matrix.indices.astype(np.int64)


def _local_atoms(A, a, b, keys, distance, node_words, edge_words):
    """Round-0 names ``(2, P)`` of the pairs ``keys`` of the chunk on rows ``a:b``."""
    n = b - a
    u, v = np.divmod(keys, max(n, 1))
    entry_keys = _keys(A[a:b, a:b], n)
    forward, f_at = _lookup(entry_keys, keys)
    backward, b_at = _lookup(entry_keys, v * n + u)
    code = (distance + 1).astype(np.uint64) * np.uint64(8) + forward * np.uint64(2) + backward * np.uint64(4)
    code += (u == v).astype(np.uint64)
    words = _mix(_lane(_ATOM, 1) ^ code[None])
    if node_words is not None:
        words = _fold(words, node_words[:, a + u])
        words = _fold(words, node_words[:, a + v])
    if edge_words is not None:
        first = A.indptr[a]
        for present, at in ((forward, f_at), (backward, b_at)):
            bond = np.broadcast_to(_lane(_NO_LABEL, 1), (2, len(keys))).copy()
            bond[:, present] = edge_words[:, first + at[present]]
            words = _fold(words, bond)
    return words


def _lookup(sorted_keys, keys):
    """Whether each of ``keys`` is in ``sorted_keys``, and where."""
    if not len(sorted_keys):
        return np.zeros(len(keys), bool), np.zeros(len(keys), np.int64)
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return sorted_keys[at] == keys, at


def _local_neighbours(A, a, b, keys, slice_entries):
    """For each kind (replace ``u``, replace ``v``): the positions of the neighbour pairs,
    pair by pair, the bounds of each pair's segment, and the kind's constant. Built for
    slices of pairs of at most about ``slice_entries`` candidate entries."""
    n = b - a
    block = A[a:b, a:b]
    indptr, indices = block.indptr.astype(np.int64), block.indices.astype(np.int64)
    degree = np.diff(indptr)
    u, v = np.divmod(keys, max(n, 1))
    position = np.int32 if len(keys) < 2**31 else np.int64
    lists = []
    for replace_u, constant in ((True, _LOCAL_1), (False, _LOCAL_2)):
        moved, kept = (u, v) if replace_u else (v, u)
        counts = degree[moved]
        parts, found_per_pair = [], np.zeros(len(keys), np.int64)
        for lo, hi in _slices(counts, slice_entries):
            c = counts[lo:hi]
            source = np.repeat(np.arange(lo, hi), c)
            w = indices[concatenated_ranges(indptr[moved[lo:hi]], c)]
            other = np.repeat(kept[lo:hi], c)
            found, at = _lookup(keys, w * n + other if replace_u else other * n + w)
            parts.append(at[found].astype(position))
            found_per_pair[lo:hi] = np.bincount(source[found] - lo, minlength=hi - lo)
        at = np.concatenate(parts) if parts else np.zeros(0, position)
        bounds = np.concatenate(([0], np.cumsum(found_per_pair)))
        lists.append((at, bounds, constant))
    return lists


def _slices(counts, size):
    """Ranges ``[lo, hi)`` of items whose ``counts`` add up to about ``size`` (one item
    at least)."""
    total = np.concatenate(([0], np.cumsum(counts)))
    lo, out = 0, []
    while lo < len(counts):
        hi = max(lo + 1, int(np.searchsorted(total, total[lo] + size, side="right")) - 1)
        out.append((lo, min(hi, len(counts))))
        lo = out[-1][1]
    return out


def _local_step(words, lists, slice_entries):
    """One round of local 2-WL on the pair names ``(2, P)``, in slices of pairs."""
    total = _mix(words ^ _lane(_OWN, 1))
    for at, bounds, constant in lists:
        for lo, hi in _slices(np.diff(bounds), slice_entries):
            first, last = bounds[lo], bounds[hi]
            terms = _mix(words[:, at[first:last]] ^ _lane(constant, 1))
            running = np.zeros((2, last - first + 1), np.uint64)
            np.cumsum(terms, axis=1, dtype=np.uint64, out=running[:, 1:])
            ends = bounds[lo : hi + 1] - first
            total[:, lo:hi] += running[:, ends[1:]] - running[:, ends[:-1]]
    return _mix(total)
