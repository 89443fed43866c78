"""Weisfeiler-Lehman hashes with NetworkX's exact strings, relabelled over CSR.

NetworkX (``networkx/algorithms/graph_hashing.py``, 3.5+ semantics) builds, for every
node and every iteration, the string ``label(u) + "".join(sorted(piece(v) for v in
neighbours(u)))`` (a directed graph: the sorted successor pieces, then the sorted
predecessor pieces), where ``piece(v)`` is ``str(edge attribute) + label(v)`` with
``edge_attr``, else ``label(v)`` (undirected) or ``"s_"`` / ``"p_"`` + ``label(v)``
(directed), and the new label is the hex BLAKE2b digest of that string. Here the
same strings are made for all nodes at once:

- every distinct label (and every distinct piece) is a row of a string table whose
  rows are ranked in Python's string order, so sorting a node's pieces is sorting
  integers, done for all nodes by one ``numpy.sort`` of ``(node, side, rank)`` keys;
- the strings are hashed by one compiled BLAKE2b loop that reads every node's string
  from the table (with the ``[fast]`` extra, numba), or gathered by one fancy index and
  hashed by :mod:`hashlib` once per distinct string: without numba, for a few strings,
  and until a process has hashed enough strings for loading numba to pay
  (:func:`_blake2b`), so that the first call of a process does not wait for numba;
- the hex digests are ranked by one ``numpy.unique``, which gives the next labels and
  NetworkX's sorted ``Counter`` of them.

Equal strings give equal digests, so whatever groups or order the work takes, every
digest is NetworkX's, and so is the graph hash (the hex digest of ``str`` of the same
tuple of ``(label, count)`` pairs).
"""

import functools
import gc
import numbers
import sys
import warnings
from hashlib import blake2b

import networkx as nx
import numpy as np

from ..._utils.optional import compiled
from ..graph import MISSING, BackendGraph
from ..rules import backend_function

__all__ = ["weisfeiler_lehman_graph_hash", "weisfeiler_lehman_subgraph_hashes"]

_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
#: The compiled BLAKE2b (without numba, and until it is loaded: hashlib hashes each
#: distinct string).
BLAKE2B = "graphinvariants.networkx_backend._blake2b_numba"
_DIGEST = blake2b.digest

_NO_ATTRIBUTE_WARNING = ("The hashes produced for graphs without node or edge attributes "
                         "changed in v3.5 due to a bugfix (see documentation).")


class _Strings:
    """Byte strings as the rows of a zero-padded 2-D uint8 array: string ``i`` is
    ``rows[i, :length[i]]``."""

    def __init__(self, rows, length):
        self.rows = rows
        self.length = length

    def __len__(self):
        return len(self.length)

    @classmethod
    def from_bytes(cls, items):
        length = np.fromiter(map(len, items), dtype=np.int64, count=len(items))
        width = int(length.max(initial=0))
        raw = b"".join([item.ljust(width, b"\0") for item in items])
        return cls(np.frombuffer(raw, dtype=np.uint8).reshape(len(items), width), length)

    @classmethod
    def from_rows(cls, rows):
        """Strings that fill their rows."""
        return cls(rows, np.full(len(rows), rows.shape[1], dtype=np.int64))

    def _full(self):
        return bool(self.length.size) and int(self.length.min()) == self.rows.shape[1]

    def gather(self, ids):
        """The concatenated bytes of strings ``ids`` (a uint8 array) and each one's length."""
        lengths = self.length[ids]
        rows = self.rows[ids]
        if self._full():
            return rows.reshape(-1), lengths
        return rows[np.arange(rows.shape[1]) < lengths[:, None]], lengths

    def widened(self, width):
        """The same strings in rows of ``width`` bytes (at least their own)."""
        if width == self.rows.shape[1]:
            return self
        rows = np.zeros((len(self), width), dtype=np.uint8)
        rows[:, :self.rows.shape[1]] = self.rows
        return _Strings(rows, self.length)

    def joined(self, other):
        """One table with ``other``'s strings after this one's (ids shifted by ``len(self)``)."""
        width = max(self.rows.shape[1], other.rows.shape[1])
        return _Strings(np.concatenate((self.widened(width).rows, other.widened(width).rows)),
                        np.concatenate((self.length, other.length)))

    def strings(self):
        """The strings as Python strings."""
        if self._full():
            width = self.rows.shape[1]
            return np.ascontiguousarray(self.rows).view(f"S{width}").ravel().astype(f"U{width}").tolist()
        return [bytes(row[:n]).decode("ascii") for row, n in zip(self.rows, self.length.tolist())]


def _ranked(strings):
    """Python strings -> (ids by Python's string order of the distinct ones, table of
    their ASCII bytes). ``UnicodeEncodeError`` as NetworkX's ``label.encode("ascii")``."""
    distinct = sorted(set(strings))
    position = dict(zip(distinct, range(len(distinct))))
    ids = np.fromiter(map(position.__getitem__, strings), dtype=np.int64, count=len(strings))
    return ids, _Strings.from_bytes([s.encode("ascii") for s in distinct])


def _ranks(table):
    """Ranks of the table's strings in Python's order of byte strings (equal strings,
    equal ranks)."""
    width = table.rows.shape[1]
    if width == 0:
        return np.zeros(len(table), dtype=np.int64)
    rows = np.ascontiguousarray(table.rows)
    nonempty = table.length > 0
    if not np.any(rows[nonempty, table.length[nonempty] - 1] == 0):
        # zero-padded rows compare as Python compares the strings, since none ends in NUL
        return np.unique(rows.view(f"S{width}").ravel(), return_inverse=True)[1].reshape(-1)
    items = [bytes(row[:n]) for row, n in zip(rows, table.length.tolist())]
    distinct = sorted(set(items))
    position = dict(zip(distinct, range(len(distinct))))
    return np.fromiter(map(position.__getitem__, items), dtype=np.int64, count=len(items))


def _digests(buffer, starts, lengths, digest_size):
    """BLAKE2b digests (a ``(m, digest_size)`` uint8 array) of the strings
    ``buffer[starts[i]:starts[i] + lengths[i]]``, by :mod:`hashlib`, once per distinct
    string (the loops over the strings run in C: ``map``)."""
    raw = buffer.tobytes()
    items = list(map(raw.__getitem__, map(slice, starts.tolist(), (starts + lengths).tolist())))
    distinct = list(dict.fromkeys(items))
    digests = b"".join(map(_DIGEST, map(functools.partial(blake2b, digest_size=digest_size), distinct)))
    digests = np.frombuffer(digests, dtype=np.uint8).reshape(len(distinct), digest_size)
    if len(distinct) == len(items):
        return digests
    position = dict(zip(distinct, range(len(distinct))))
    return digests[np.fromiter(map(position.__getitem__, items), dtype=np.int64, count=len(items))]


#: Strings of one iteration below which hashlib hashes them, compiled loop loaded or
#: not: it is as fast there (a WL graph hash of BA 30 nodes took 0.54 ms against 0.72
#: ms compiled, 0.86 against 0.93 ms at 100 nodes, 1.97 against 1.69 at 300).
COMPILED_MIN_STRINGS = 200
#: Strings (of larger iterations) a process hashes by hashlib before it loads the
#: compiled loop: about what it takes for the loop's gain to repay loading it (numba's
#: import and its cached code). On BA 10^5 nodes, 2-core machine, heavily shared:
#: hashlib took 2.5-3.0 us more a string than the loop, loading took 2.0-2.2 s, so
#: 0.74-0.87 million strings. A hash of that graph makes 2 x 10^5 strings (two
#: iterations): the first three hashes of a process are hashlib's, the fourth loads the
#: loop in its second iteration (asv ``networkx_backend.FirstCall`` times them).
COMPILED_AFTER_STRINGS = 750_000
_hashed_by_hashlib = 0  # such strings hashed so far in this process


def _blake2b(n_strings):
    """The compiled BLAKE2b for hashing ``n_strings`` strings, or None: hashlib.

    hashlib for fewer than :data:`COMPILED_MIN_STRINGS`, and, in a process that has
    not loaded the compiled loop, until the strings hashed by hashlib and these reach
    :data:`COMPILED_AFTER_STRINGS` (the loop is then loaded once, as renting until the
    rent paid equals the price, then buying, costs at most twice the best choice made
    in hindsight). hashlib and the loop give the same digests, bit for bit. The loop
    reads the table's bytes as little-endian words: little-endian machines only.
    """
    global _hashed_by_hashlib
    if n_strings < COMPILED_MIN_STRINGS or sys.byteorder != "little":
        return None
    if sys.modules.get(BLAKE2B) is None and _hashed_by_hashlib + n_strings < COMPILED_AFTER_STRINGS:
        _hashed_by_hashlib += n_strings
        return None
    return compiled(BLAKE2B)


def _concatenation_digests(source, parts, part_ptr, digest_size):
    """Digests of the concatenations of strings ``parts[part_ptr[i]:part_ptr[i + 1]]`` of
    ``source``: streamed into the compiled BLAKE2b (:func:`_blake2b`), else written out
    and hashed by hashlib."""
    module = _blake2b(len(part_ptr) - 1)
    if module is None:
        data, part_lengths = source.gather(parts)
        lengths = np.add.reduceat(part_lengths, part_ptr[:-1])
        return _digests(data, _starts(lengths), lengths, digest_size)
    return module.hash_concatenations(source.rows, source.length, parts, part_ptr, digest_size)


def _hex(digests):
    """Lower-case hex of digests, as rows of ASCII (what ``hexdigest`` gives)."""
    out = np.empty((len(digests), 2 * digests.shape[1]), dtype=np.uint8)
    out[:, 0::2] = _HEX[digests >> 4]
    out[:, 1::2] = _HEX[digests & 15]
    return out


class _Neighbourhoods:
    """The pieces each node's string is made of, fixed over the iterations.

    Entry ``e`` puts ``prefix[e] + label(neighbour[e])`` into the string of node
    ``row[e]``, among the pieces of side ``side[e]`` (0: neighbours or successors,
    1: predecessors); ``prefix`` indexes the ranked ``prefixes`` table, or is None.
    """

    def __init__(self, G, edge_attr):
        n = len(G)
        rows = G.rows
        cols = G.indices
        if edge_attr is not None:
            if G.edge_attrs.get(edge_attr) is None:
                raise KeyError(edge_attr)
            values = G.edge_attrs[edge_attr]
            if any(v is MISSING for v in values):
                raise KeyError(edge_attr)
            prefix, self.prefixes = _ranked(list(map(str, values)))
        if G.directed:
            self.row = np.concatenate((rows, cols))
            self.neighbour = np.concatenate((cols, rows))
            self.side = np.repeat(np.array([0, 1]), len(rows))
            if edge_attr is None:
                self.prefixes = _Strings.from_bytes([b"p_", b"s_"])
                prefix = np.ones(len(rows), dtype=np.int64)
                self.prefix = np.concatenate((prefix, prefix - 1))
            else:
                self.prefix = np.concatenate((prefix, prefix))
        else:
            self.row, self.neighbour, self.side = rows, cols, np.zeros(len(rows), dtype=np.int64)
            self.prefix = prefix if edge_attr is not None else None
        self.n = n
        self.group = self.row * 2 + self.side  # sort key: node, then side
        counts = np.bincount(self.row, minlength=n)
        # node i's string: its own label, then its pieces; where each goes among the parts
        self.own_at = np.arange(n, dtype=np.int64) + np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
        self.is_piece = np.ones(n + len(self.row), dtype=bool)
        self.is_piece[self.own_at] = False

    def tokens(self, labels, table):
        """Each entry's piece as an id of a piece table, the pieces' ranks, and the table."""
        if self.prefix is None:
            return labels[self.neighbour], np.arange(len(table)), table
        L = len(table)
        pairs, token = np.unique(self.prefix * L + labels[self.neighbour], return_inverse=True)
        token = token.reshape(-1)
        prefix_ids, label_ids = np.divmod(pairs, L)
        prefixes = self.prefixes
        length = prefixes.length[prefix_ids] + table.length[label_ids]
        rows = np.zeros((len(pairs), int(length.max(initial=0))), dtype=np.uint8)
        mask = np.arange(rows.shape[1]) < length[:, None]
        both = np.empty(2 * len(pairs), dtype=np.int64)
        both[0::2] = prefix_ids
        both[1::2] = label_ids + len(prefixes)
        rows[mask] = prefixes.joined(table).gather(both)[0]
        pieces = _Strings(rows, length)
        used = prefixes.length[np.unique(prefix_ids)]
        if used.min(initial=0) == used.max(initial=0):
            rank = np.arange(len(pairs))  # equal-length prefixes: (prefix, label) order is string order
        else:
            rank = _ranks(pieces)
        return token, rank, pieces

    def step(self, labels, table, digest_size):
        """One WL iteration: the new labels (ranks) and their table of hex digests."""
        token, rank, pieces = self.tokens(labels, table)
        n_ranks = int(rank.max(initial=-1)) + 1
        representative = np.empty(max(n_ranks, 1), dtype=np.int64)
        representative[rank] = np.arange(len(rank))
        keys = self.group * max(n_ranks, 1) + rank[token]
        keys.sort()
        ordered = representative[keys % max(n_ranks, 1)]
        parts = np.empty(len(self.is_piece), dtype=np.int64)
        parts[self.own_at] = labels
        is_piece = self.is_piece
        if pieces is table:
            parts[is_piece] = ordered
            source = table
        else:
            parts[is_piece] = ordered + len(table)
            source = table.joined(pieces)
        part_ptr = np.append(self.own_at, len(parts))
        return _relabel(_concatenation_digests(source, parts, part_ptr, digest_size))


def _starts(lengths):
    """Where each of consecutive strings of ``lengths`` starts."""
    starts = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    return starts


def _relabel(digests):
    """Ranks of the digests in the order of their hex strings (byte order), and the
    table of the distinct ones' hex strings."""
    n, size = digests.shape
    if n == 0:
        return np.zeros(0, dtype=np.int64), _Strings.from_rows(np.zeros((0, 2 * size), dtype=np.uint8))
    padded = np.zeros((n, -(-size // 8) * 8), dtype=np.uint8)
    padded[:, :size] = digests
    words = padded.view(">u8").astype(np.uint64)  # big-endian words compare as the bytes do
    order = np.argsort(words[:, 0])
    ranked = words[order]
    same_head = ranked[1:, 0] == ranked[:-1, 0]
    differ = np.any(ranked[1:, 1:] != ranked[:-1, 1:], axis=1)
    if np.any(same_head & differ):  # distinct digests sharing their first 8 bytes: sort on all
        order = np.lexsort(words.T[::-1])
        ranked = words[order]
        differ = np.any(ranked[1:] != ranked[:-1], axis=1)
    else:
        differ |= ~same_head
    new = np.ones(n, dtype=bool)
    new[1:] = differ
    ids = np.empty(n, dtype=np.int64)
    ids[order] = np.cumsum(new) - 1
    return ids, _Strings.from_rows(_hex(digests[order[new]]))


def _initial_labels(G, edge_attr, node_attr):
    """NetworkX's ``_init_node_labels``: ranked ids and their table (warns as NetworkX does)."""
    if node_attr:
        values = G.node_attrs.get(node_attr)
        if values is None or any(v is MISSING for v in values):
            raise KeyError(node_attr)
        return _ranked(list(map(str, values)))
    if edge_attr:
        return np.zeros(len(G), dtype=np.int64), _Strings.from_bytes([b""])
    warnings.warn(_NO_ATTRIBUTE_WARNING, UserWarning, stacklevel=3)
    n = len(G)
    out_degree = np.diff(G.indptr)
    if G.directed:
        in_degree = np.bincount(G.indices, minlength=n)
        pairs, ids = np.unique(in_degree.astype(np.int64) * (n + 1) + out_degree, return_inverse=True)
        strings = [f"{i}_{o}" for i, o in zip(*np.divmod(pairs, n + 1))]
    else:
        degree = out_degree + (G.loops() != 0)  # a self-loop counts twice in G.degree
        pairs, ids = np.unique(degree, return_inverse=True)
        strings = [str(d) for d in pairs.tolist()]
    order, table = _ranked(strings)
    return order[ids.reshape(-1)], table


#: Graphs with fewer nodes than this are left to NetworkX when the backend is chosen by a
#: priority (``should_run``): converting them costs more than NetworkX's own loop
#: (benchmarks/benchmarks/networkx_backend.py, asv networkx_backend.Backend, "small
#: graphs"). ``backend=`` runs them anyway.
SMALL_GRAPH = 100


def hashes_exactly(G, edge_attr=None, node_attr=None, iterations=3, digest_size=16, include_initial_labels=False):
    """``can_run`` of both hashes: True, or why NetworkX's answer is left to NetworkX."""
    if isinstance(iterations, bool) or not isinstance(iterations, numbers.Integral):
        return f"iterations={iterations!r} is not an int"
    if isinstance(digest_size, bool) or not isinstance(digest_size, numbers.Integral) or not 1 <= digest_size <= 64:
        return f"digest_size={digest_size!r} is not an int from 1 to 64 (BLAKE2b's digest sizes)"
    if isinstance(G, BackendGraph):
        if node_attr and node_attr not in G.node_attrs:
            return f"the backend graph was converted without the node attribute {node_attr!r}"
        if edge_attr is not None and edge_attr not in G.edge_attrs:
            return f"the backend graph was converted without the edge attribute {edge_attr!r}"
    return True


def large_enough(G, *args, **kwargs):
    """``should_run`` of both hashes: True, or why NetworkX is faster on this graph."""
    if len(G) < SMALL_GRAPH:
        return f"a graph of fewer than {SMALL_GRAPH} nodes: NetworkX's own loop is faster than converting it"
    return True


def _prepared(G, edge_attr, node_attr, *, hash_initial, aggregate):
    """The initial labels, their table and the neighbourhoods (None without an iteration).

    Where NetworkX raises, this raises what NetworkX raises first: the work for all
    nodes at once meets the errors in another order than NetworkX's loop over the
    nodes, so once it meets one, :func:`_networkx_error` replays that loop.
    """
    try:
        labels, table = _initial_labels(G, edge_attr, node_attr)
        neighbourhoods = _Neighbourhoods(G, edge_attr) if aggregate else None
    except (KeyError, UnicodeEncodeError):
        _networkx_error(G, edge_attr, node_attr, hash_initial, aggregate)
        raise
    return labels, table, neighbourhoods


def _networkx_error(G, edge_attr, node_attr, hash_initial, aggregate):
    """Raise the error NetworkX's hashes meet first, if any: a node without ``node_attr``
    (``KeyError``, before anything is hashed); a label that is not ASCII among the
    initial labels hashed (``hash_initial``); else, node by node in the graph's order in
    the first iteration, an edge without ``edge_attr`` (``KeyError``) or the node's
    string not ASCII (``UnicodeEncodeError`` of that very string)."""
    n = len(G)
    if node_attr:
        values = G.node_attrs.get(node_attr, [MISSING] * n)
        if any(v is MISSING for v in values):
            raise KeyError(node_attr)
        labels = [str(v) for v in values]
        if hash_initial:
            for label in labels:
                label.encode("ascii")
    else:
        labels = [""] * n  # degrees, or "" with an edge attribute: ASCII
    if not aggregate:
        return
    indptr, indices = G.indptr.tolist(), G.indices.tolist()
    edge_values = None if edge_attr is None else G.edge_attrs.get(edge_attr, [MISSING] * len(indices))
    into = [[] for _ in range(n)]  # directed: the entries (edges) into each node
    if G.directed:
        for i in range(n):
            for e in range(indptr[i], indptr[i + 1]):
                into[indices[e]].append((e, i))

    def pieces(entries, mark):
        out = []
        for e, other in entries:
            if edge_values is None:
                prefix = mark
            elif edge_values[e] is MISSING:
                raise KeyError(edge_attr)
            else:
                prefix = str(edge_values[e])
            out.append(prefix + labels[other])
        return "".join(sorted(out))

    for i in range(n):
        out_entries = [(e, indices[e]) for e in range(indptr[i], indptr[i + 1])]
        if G.directed:
            string = labels[i] + pieces(out_entries, "s_") + pieces(into[i], "p_")
        else:
            string = labels[i] + pieces(out_entries, "")
        string.encode("ascii")


def _check(G, iterations, name):
    if G.is_multigraph():
        raise nx.NetworkXNotImplemented("not implemented for multigraph type")
    if G.directed:
        warnings.warn(f"The hashes produced for directed graphs changed in {name} due to a bugfix "
                      + ("to track in and out edges separately (see documentation)."
                         if name == "version v3.5" else "(see documentation)."), UserWarning, stacklevel=3)
    if iterations <= 0:
        raise ValueError("The WL algorithm requires that `iterations` be positive")


@backend_function(can_run=hashes_exactly, should_run=large_enough)
def weisfeiler_lehman_graph_hash(G, edge_attr=None, node_attr=None, iterations=3, digest_size=16):
    """NetworkX's ``weisfeiler_lehman_graph_hash``, the same string (see the module docstring).

    The same hash string as NetworkX's, with the relabelling done for all nodes at once
    over the graph's CSR (one sort of integer ranks per iteration, one compiled BLAKE2b
    loop over all the strings with the [fast] extra). Declines (NetworkX runs the call)
    an ``iterations`` that is not an int and a ``digest_size`` outside 1..64.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.networkx_backend.graph import from_networkx
    >>> G = nx.Graph([(1, 2, {"label": "A"}), (2, 3, {"label": "A"}), (3, 1, {"label": "A"}),
    ...               (1, 4, {"label": "B"})])
    >>> H = from_networkx(G, edge_attrs={"label": None})
    >>> weisfeiler_lehman_graph_hash(H, edge_attr="label")
    'c653d85538bcf041d88c011f4f905f10'
    >>> nx.weisfeiler_lehman_graph_hash(G, edge_attr="label")
    'c653d85538bcf041d88c011f4f905f10'
    """
    _check(G, iterations, "version v3.5")
    if not edge_attr and not node_attr:
        iterations -= 1
    labels, table, neighbourhoods = _prepared(G, edge_attr, node_attr, hash_initial=False,
                                              aggregate=iterations > 0 and len(G) > 0)
    items, n_items = [], 0
    if neighbourhoods is not None:
        for _ in range(iterations):
            labels, table = neighbourhoods.step(labels, table, digest_size)
            items.append(_counter_items(table, np.bincount(labels, minlength=len(table))))
            n_items += len(table)
    # NetworkX hashes str(tuple(the (label, count) pairs of every iteration))
    text = b"(" + b"".join(items)[:-2] + (b",)" if n_items == 1 else b")")
    return blake2b(text, digest_size=digest_size).hexdigest()


def _counter_items(table, counts):
    """``"('label', count), "`` for every label of the table (hex strings) and its count,
    concatenated: ``str`` of a tuple of such pairs, written for all pairs at once."""
    distinct, which = np.unique(counts, return_inverse=True)
    tails = _Strings.from_bytes([b"', %d), " % c for c in distinct.tolist()])
    m, width = table.rows.shape
    rows = np.zeros((m, 2 + width + tails.rows.shape[1]), dtype=np.uint8)
    rows[:, :2] = np.frombuffer(b"('", dtype=np.uint8)
    rows[:, 2:2 + width] = table.rows
    rows[:, 2 + width:] = tails.rows[which.reshape(-1)]
    return _Strings(rows, 2 + width + tails.length[which.reshape(-1)]).gather(np.arange(m))[0].tobytes()


@backend_function(can_run=hashes_exactly, should_run=large_enough)
def weisfeiler_lehman_subgraph_hashes(G, edge_attr=None, node_attr=None, iterations=3, digest_size=16,
                                      include_initial_labels=False):
    """NetworkX's ``weisfeiler_lehman_subgraph_hashes``, the same strings (see the module docstring).

    The same dict of hash strings as NetworkX's, with the relabelling done for all nodes
    at once over the graph's CSR. Declines (NetworkX runs the call) an ``iterations``
    that is not an int and a ``digest_size`` outside 1..64.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.networkx_backend.graph import from_networkx
    >>> G = nx.Graph([(1, 2), (2, 3), (2, 4), (3, 5), (4, 6), (5, 7), (6, 7)])
    >>> import warnings
    >>> with warnings.catch_warnings():  # NetworkX's note: these hashes changed in 3.5
    ...     warnings.simplefilter("ignore", UserWarning)
    ...     hashes = weisfeiler_lehman_subgraph_hashes(from_networkx(G), iterations=4, digest_size=8)
    >>> hashes[1]
    ['f6fc42039fba3776', 'a93b64973cfc8897', 'db1b43ae35a1878f', '57872a7d2059c1c0']
    """
    _check(G, iterations, "v3.5")
    rounds = iterations - 1 if not edge_attr and not node_attr else iterations
    labels, table, neighbourhoods = _prepared(G, edge_attr, node_attr, hash_initial=include_initial_labels,
                                              aggregate=rounds > 0 and len(G) > 0)
    columns = []
    initial = None
    if include_initial_labels or (not edge_attr and not node_attr):
        data, lengths = table.gather(np.arange(len(table)))
        initial = _hex(_digests(data, _starts(lengths), lengths, digest_size))
        initial = np.array([bytes(row).decode("ascii") for row in initial], dtype=object)[labels].tolist()
    if include_initial_labels:
        columns.append(initial)
    if not edge_attr and not node_attr:
        iterations -= 1
        columns.append(initial)
    if neighbourhoods is not None:
        for _ in range(iterations):
            labels, table = neighbourhoods.step(labels, table, digest_size)
            strings = table.strings()
            columns.append(list(map(strings.__getitem__, labels.tolist())))
    if not columns or not len(G):
        return {}
    # one list per node: a collection of the cyclic garbage collector every few hundred
    # new lists (each scanning all the lists made so far) would cost more than the rest
    enabled = gc.isenabled()
    gc.disable()
    try:
        return dict(zip(G.nodes, map(list, zip(*columns))))
    finally:
        if enabled:
            gc.enable()
