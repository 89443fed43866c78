"""A digest of what defines graphs and parameters, whatever the objects' history.

Pickled bytes do not identify graphs: NetworkX caches its views (``G.nodes``,
``G.adj``) in the graph object once they are read, a data set caches the NetworkX
graphs it built, and a ``numpy.random.Generator`` prints its memory address. The
digest here reads content only, in a canonical form:

* a NetworkX graph: directed or not, multigraph or not, its graph attributes, its nodes
  in stored order with their attributes, its edges in stored order with theirs (and
  keys);
* an igraph graph: directed or not, its vertex, edge and graph attributes, its edge
  list;
* a :class:`~graphinvariants.graphs.GraphBatch` (or a data set holding one in
  ``batch``, with its ``edge_attributes``): its matrix, offsets, labels and attributes;
* a scikit-learn estimator: its class and ``get_params(deep=False)``;
* a Generator: its bit generator's state; a ``RandomState`` its state; a
  ``SeedSequence`` its entropy, spawn key and pool size;
* numbers by value (``1``, ``np.int64(1)`` and ``True`` are not merged with each other
  across kinds: integers by their value, floats by their exact hexadecimal form,
  booleans apart), strings, bytes, arrays (dtype, shape and bytes), sequences
  (lists and tuples alike), mappings and sets (order-free).

Anything else is read by its pickled bytes; what cannot be pickled is refused with a
TypeError naming where it was found.
"""

import hashlib
import numbers
import pickle
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from .adjacency import GraphAdjacency, graph_library
from .batch import GraphBatch

__all__ = ["content_digest"]


def content_digest(*values, names=None):
    """SHA-256 hex digest of the canonical form of ``values`` (see the module).

    ``names`` (one per value) name the values in the TypeError raised for what can be
    neither read nor pickled, e.g. ``graphs[0].graph['made_by']``.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.graphs.identity import content_digest
    >>> G, H = nx.path_graph(4), nx.path_graph(4)
    >>> _ = G.nodes, G.adj  # NetworkX caches these views in G: its pickle changes
    >>> content_digest([G]) == content_digest([H])
    True
    >>> H.nodes[0]["label"] = 1
    >>> content_digest([G]) == content_digest([H])
    False
    """
    h = hashlib.sha256()
    out = []
    names = names or [f"value {i}" for i in range(len(values))]
    for value, name in zip(values, names, strict=True):
        _encode(value, out, name)
    for chunk in out:
        h.update(chunk)
    return h.hexdigest()


def _length(n):
    return str(int(n)).encode() + b":"


def _array(a, out, where):
    a = np.asarray(a)
    if a.dtype == object:
        out.append(b"O" + _length(a.ndim) + b",".join(_length(n) for n in a.shape))
        for item in a.reshape(-1):
            _encode(item, out, where)
        return
    out.append(b"A" + a.dtype.str.encode() + b"|" + b",".join(_length(n) for n in a.shape))
    data = np.ascontiguousarray(a).tobytes()
    out.append(_length(len(data)) + data)


def _sequence(items, out, where, tag=b"L"):
    items = list(items)
    out.append(tag + _length(len(items)))
    for i, item in enumerate(items):
        _encode(item, out, f"{where}[{i}]")


def _unordered(items, out, where, tag):
    """Items sorted by their bytes; a mapping's items are ``(key, value)`` pairs."""
    parts = []
    for item in items:
        chunk = []
        if tag == b"D":
            key, item = item
            _encode(key, chunk, where)
            _encode(item, chunk, f"{where}[{key!r}]")
        else:
            _encode(item, chunk, where)
        parts.append(b"".join(chunk))
    parts.sort()
    out.append(tag + _length(len(parts)))
    out.extend(_length(len(p)) + p for p in parts)


def _batch(batch, out, where):
    A = batch.matrix
    out.append(b"M" + (b"w" if batch.weighted else b"u"))
    for array in (A.indptr, A.indices, A.data, batch.offsets):
        _array(array, out, where)
    for optional in (batch.node_labels, batch.edge_labels, batch.node_attributes):
        if optional is None:
            out.append(b"N")
        else:
            _array(optional, out, where)


def _networkx(G, out, where):
    out.append(b"X" + (b"d" if G.is_directed() else b"u") + (b"m" if G.is_multigraph() else b"s"))
    _encode(dict(G.graph), out, f"{where}.graph")
    out.append(_length(G.number_of_nodes()))
    for node, data in G.nodes(data=True):
        _encode(node, out, f"{where}.nodes")
        _encode(dict(data), out, f"{where}.nodes[{node!r}]")
    edges = G.edges(keys=True, data=True) if G.is_multigraph() else G.edges(data=True)
    out.append(_length(G.number_of_edges()))
    for *ends, data in edges:
        _sequence(ends, out, f"{where}.edges")
        _encode(dict(data), out, f"{where}.edges[{', '.join(map(repr, ends))}]")


def _igraph(G, out, where):
    out.append(b"Q" + (b"d" if G.is_directed() else b"u") + _length(G.vcount()))
    for kind, names, values in (("graph", G.attributes(), lambda name: G[name]),
                                ("vertex", G.vs.attributes(), lambda name: G.vs[name]),
                                ("edge", G.es.attributes(), lambda name: G.es[name])):
        names = sorted(names)
        out.append(kind.encode() + _length(len(names)))
        for name in names:
            _encode(name, out, where)
            _encode(values(name), out, f"{where}, {kind} attribute {name!r}")
    _sequence(G.get_edgelist(), out, f"{where}, its edge list")


def _encode(value, out, where):
    """Append the canonical bytes of ``value`` to ``out`` (``where``: for messages)."""
    if value is None:
        out.append(b"N")
    elif isinstance(value, (bool, np.bool_)):
        out.append(b"B1" if value else b"B0")
    elif isinstance(value, numbers.Integral):
        out.append(b"I" + str(int(value)).encode() + b";")
    elif isinstance(value, (float, np.floating)) and not isinstance(value, np.longdouble):
        out.append(b"F" + float(value).hex().encode() + b";")
    elif isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
        out.append(b"S" + _length(len(data)) + data)
    elif isinstance(value, bytes):
        out.append(b"Y" + _length(len(value)) + value)
    elif isinstance(value, np.ndarray):
        _array(value, out, where)
    elif isinstance(value, (list, tuple)):
        _sequence(value, out, where)
    elif isinstance(value, Mapping):
        _unordered([(key, item) for key, item in value.items()], out, where, b"D")
    elif isinstance(value, (set, frozenset)):
        _unordered(value, out, where, b"E")
    elif isinstance(value, np.random.Generator):
        out.append(b"G")
        _encode(value.bit_generator.state, out, where)
    elif isinstance(value, np.random.RandomState):
        out.append(b"R")
        _encode(value.get_state(legacy=False), out, where)
    elif isinstance(value, np.random.SeedSequence):
        out.append(b"Z")
        _encode((value.entropy, value.spawn_key, value.pool_size), out, where)
    elif isinstance(value, GraphBatch):
        _batch(value, out, where)
    elif isinstance(getattr(value, "batch", None), GraphBatch):  # a data set: its batch and edge attributes
        _batch(value.batch, out, where)
        _encode(getattr(value, "edge_attributes", None), out, where)
    elif isinstance(value, GraphAdjacency):
        out.append(b"J" + (b"w" if value.weighted else b"u"))
        _encode(value.matrix, out, where)
        _encode(value.nodes, out, where)
    elif sp.issparse(value):
        A = sp.csr_array(value)
        A.sum_duplicates()
        out.append(b"C" + value.format.encode() + b"|" + b",".join(_length(n) for n in A.shape))
        for array in (A.indptr, A.indices, A.data):
            _array(array, out, where)
    elif graph_library(value) == "networkx":
        _networkx(value, out, where)
    elif graph_library(value) == "igraph":
        _igraph(value, out, where)
    elif hasattr(value, "get_params") and not isinstance(value, type):
        out.append(b"P" + f"{type(value).__module__}.{type(value).__qualname__}".encode() + b";")
        _encode(value.get_params(deep=False), out, f"{where}.get_params()")
    else:
        try:
            data = pickle.dumps(value, protocol=4)
        except (pickle.PicklingError, TypeError, AttributeError) as err:
            raise TypeError(f"{where} holds a {type(value).__name__}, which can be neither read nor pickled "
                            f"({err})") from None
        out.append(b"K" + _length(len(data)) + data)
