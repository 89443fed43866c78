"""A digest of what defines graphs and parameters, whatever the objects' history.

Pickled bytes do not identify graphs: NetworkX caches its views (``G.nodes``,
``G.adj``) in the graph object once they are read, a data set caches the NetworkX
graphs it built, and a ``numpy.random.Generator`` prints its memory address. Nor do
they identify functions: ``pickle`` stores a function by its module and name only, so
two scripts' ``def kern(a, b)`` with different bodies pickle alike. The digest here
reads content only, in a canonical form:

* a NetworkX graph: directed or not, multigraph or not, its graph attributes, its nodes
  in stored order with their attributes, its edges in stored order with theirs (and
  keys);
* an igraph graph: directed or not, its vertex, edge and graph attributes, its edge
  list;
* a data set (a sequence of graphs holding a
  :class:`~graphinvariants.graphs.GraphBatch` in ``batch``, such as a
  :class:`~graphinvariants.datasets.TUDataset`): the sequence of the graphs it gives
  (``ds[i]``), so that it and ``list(ds)`` are the same content;
* a :class:`~graphinvariants.graphs.GraphBatch`: its matrix, offsets, labels and
  attributes;
* a scikit-learn estimator: its class and ``get_params(deep=False)``;
* a Python function (a lambda, a nested function): what defines it, not its name
  alone: its module and qualified name, its code (bytecode, constants, nested code,
  names and argument layout; not its file or line numbers), its defaults, the contents
  of its closure cells, and the global names its code reads that its module defines
  (functions by the same rules, modules by name, classes by module and name, other
  values by their content); a bound method: its function and its object; a
  ``functools.partial``: its function, arguments and keywords; an object with a
  ``__call__`` method of its own class: that method, and the object by its pickled
  bytes. The bytecode is that of the running Python, so another Python version gives
  another digest;
* a Generator: its bit generator's state; a ``RandomState`` its state; a
  ``SeedSequence`` its entropy, spawn key and pool size;
* numbers by value (``1``, ``np.int64(1)`` and ``True`` are not merged with each other
  across kinds: integers by their value, floats by their exact hexadecimal form,
  booleans apart), strings, bytes, arrays (dtype, shape and bytes), sequences
  (lists and tuples alike), mappings and sets (order-free).

Anything else is read by its pickled bytes; what cannot be pickled is refused with a
TypeError naming where it was found.
"""

import functools
import hashlib
import numbers
import pickle
import types
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
    >>> def kern(a, b):
    ...     return 1.0
    >>> first = content_digest(kern)
    >>> def kern(a, b):  # the same name, another body
    ...     return 2.0
    >>> content_digest(kern) == first
    False
    """
    h = hashlib.sha256()
    names = names or [f"value {i}" for i in range(len(values))]
    for value, name in zip(values, names, strict=True):
        out = []
        try:
            _Encoder(out).encode(value)
        except _Unreadable as err:
            raise TypeError(f"{name}{''.join(reversed(err.path))} holds a {err.kind}, which can be neither read "
                            f"nor pickled ({err.reason})") from None
        for chunk in out:
            h.update(chunk)
    return h.hexdigest()


class _Unreadable(Exception):
    """A value that can be neither read nor pickled; ``path`` grows, innermost first,
    as the error passes up through the containers that hold it."""

    def __init__(self, kind, reason):
        super().__init__(kind, reason)
        self.kind, self.reason, self.path = kind, reason, []


def _length(n):
    return b"%d:" % n


def _scalar_key(value):
    """A hashable key that tells apart every value the encoding tells apart, for the
    plain values graphs' attributes mostly hold (None if ``value`` is not one)."""
    kind = type(value)
    if kind is int or kind is str or kind is bool:
        return kind, value
    if kind is float:
        return kind, value.hex()  # 0.0 and -0.0 are equal, their encodings are not
    if kind is tuple:
        keys = tuple(_scalar_key(item) for item in value)
        return None if None in keys else (kind, keys)
    return None


class _Encoder:
    """Appends the canonical bytes of values to ``out``."""

    def __init__(self, out):
        self.out = out
        self.memo = {}  # attribute dictionaries' bytes, by _scalar_key
        self.active = set()  # ids of the functions being encoded (a recursive function reads itself)

    def encode(self, value):
        out = self.out
        kind = type(value)
        if kind is int:  # the most common values first, by their exact type
            out.append(b"I%d;" % value)
        elif kind is str:
            data = value.encode("utf-8", "surrogatepass")
            out.append(b"S" + _length(len(data)) + data)
        elif kind is tuple or kind is list:
            self.sequence(value)
        elif value is None:
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
            self.array(value)
        elif isinstance(value, (list, tuple)):
            self.sequence(value)
        elif isinstance(value, Mapping):
            self.unordered([(key, item) for key, item in value.items()], b"D")
        elif isinstance(value, (set, frozenset)):
            self.unordered(value, b"E")
        elif isinstance(value, np.random.Generator):
            out.append(b"G")
            self.encode(value.bit_generator.state)
        elif isinstance(value, np.random.RandomState):
            out.append(b"R")
            self.encode(value.get_state(legacy=False))
        elif isinstance(value, np.random.SeedSequence):
            out.append(b"Z")
            self.encode((value.entropy, value.spawn_key, value.pool_size))
        elif isinstance(value, GraphBatch):
            self.batch(value)
        elif isinstance(getattr(value, "batch", None), GraphBatch):  # a data set: the graphs it gives
            self.sequence(value[i] for i in range(len(value)))
        elif isinstance(value, GraphAdjacency):
            out.append(b"J" + (b"w" if value.weighted else b"u"))
            self.encode(value.matrix)
            self.encode(value.nodes)
        elif sp.issparse(value):
            A = sp.csr_array(value)
            A.sum_duplicates()
            out.append(b"C" + value.format.encode() + b"|" + b",".join(_length(n) for n in A.shape))
            for array in (A.indptr, A.indices, A.data):
                self.array(array)
        elif graph_library(value) == "networkx":
            self.networkx(value)
        elif graph_library(value) == "igraph":
            self.igraph(value)
        elif hasattr(value, "get_params") and not isinstance(value, type):
            out.append(b"P" + f"{type(value).__module__}.{type(value).__qualname__}".encode() + b";")
            self.encode_at(value.get_params(deep=False), ".get_params()")
        elif isinstance(value, types.FunctionType):
            self.function(value)
        elif isinstance(value, types.MethodType):
            out.append(b"W")
            self.encode(value.__func__)
            self.encode_at(value.__self__, ".__self__")
        elif isinstance(value, functools.partial):
            out.append(b"V")
            self.encode((value.func, value.args, value.keywords))
        else:
            self.pickled(value)

    def encode_at(self, value, path):
        """:meth:`encode`; an error names ``path`` (where ``value`` is in its container)."""
        try:
            self.encode(value)
        except _Unreadable as err:
            err.path.append(path)
            raise

    def pickled(self, value):
        try:
            data = pickle.dumps(value, protocol=4)
        except (pickle.PicklingError, TypeError, AttributeError) as err:
            raise _Unreadable(type(value).__name__, err) from None
        self.out.append(b"K" + _length(len(data)) + data)
        call = getattr(type(value), "__call__", None)
        if isinstance(call, types.FunctionType):  # a callable object: its class's code too
            self.out.append(b"k")
            self.function(call)

    def array(self, a):
        a = np.asarray(a)
        if a.dtype == object:
            self.out.append(b"O" + _length(a.ndim) + b",".join(_length(n) for n in a.shape))
            for item in a.reshape(-1):
                self.encode(item)
            return
        self.out.append(b"A" + a.dtype.str.encode() + b"|" + b",".join(_length(n) for n in a.shape))
        data = np.ascontiguousarray(a).tobytes()
        self.out.append(_length(len(data)) + data)

    def sequence(self, items, tag=b"L"):
        items = list(items)
        self.out.append(tag + _length(len(items)))
        for i, item in enumerate(items):
            try:
                self.encode(item)
            except _Unreadable as err:
                err.path.append(f"[{i}]")
                raise

    def unordered(self, items, tag):
        """Items sorted by their bytes; a mapping's items are ``(key, value)`` pairs."""
        parts = []
        out = self.out
        try:
            for item in items:
                self.out = chunk = []
                if tag == b"D":
                    key, item = item
                    self.encode(key)
                    self.encode_at(item, f"[{key!r}]")
                else:
                    self.encode(item)
                parts.append(b"".join(chunk))
        finally:
            self.out = out
        parts.sort()
        out.append(tag + _length(len(parts)))
        out.extend(_length(len(p)) + p for p in parts)

    def batch(self, batch):
        A = batch.matrix
        self.out.append(b"M" + (b"w" if batch.weighted else b"u"))
        for array in (A.indptr, A.indices, A.data, batch.offsets):
            self.array(array)
        for optional in (batch.node_labels, batch.edge_labels, batch.node_attributes):
            if optional is None:
                self.out.append(b"N")
            else:
                self.array(optional)

    def attributes(self, data):
        """An attribute dictionary, its bytes reused when they are plain values (graphs'
        attributes repeat: the same labels on most nodes)."""
        key = []
        for name, value in data.items():
            item = _scalar_key(value)
            if item is None or type(name) is not str:
                self.encode(dict(data))
                return
            key.append((name, item))
        key = tuple(key)
        chunk = self.memo.get(key)
        if chunk is None:
            out, self.out = self.out, []
            try:
                self.encode(dict(data))
                chunk = self.memo[key] = b"".join(self.out)
            finally:
                self.out = out
        self.out.append(chunk)

    def networkx(self, G):
        out = self.out
        out.append(b"X" + (b"d" if G.is_directed() else b"u") + (b"m" if G.is_multigraph() else b"s"))
        where = (".graph", None)  # formatted only for an error message
        try:
            self.encode(dict(G.graph))
            out.append(_length(G.number_of_nodes()))
            for node, data in G.nodes(data=True):
                where = (".nodes", None)
                self.encode(node)
                where = (".nodes", (node,))
                self.attributes(data)
            edges = G.edges(keys=True, data=True) if G.is_multigraph() else G.edges(data=True)
            out.append(_length(G.number_of_edges()))
            for *ends, data in edges:
                where = (".edges", None)
                self.sequence(ends)
                where = (".edges", ends)
                self.attributes(data)
        except _Unreadable as err:
            part, key = where
            err.path.append(part if key is None else f"{part}[{', '.join(map(repr, key))}]")
            raise

    def igraph(self, G):
        self.out.append(b"Q" + (b"d" if G.is_directed() else b"u") + _length(G.vcount()))
        for kind, names, values in (("graph", G.attributes(), lambda name: G[name]),
                                    ("vertex", G.vs.attributes(), lambda name: G.vs[name]),
                                    ("edge", G.es.attributes(), lambda name: G.es[name])):
            names = sorted(names)
            self.out.append(kind.encode() + _length(len(names)))
            for name in names:
                self.encode(name)
                self.encode_at(values(name), f", {kind} attribute {name!r}")
        self.encode_at(G.get_edgelist(), ", its edge list")

    def function(self, f):
        """A Python function by what defines it (see the module)."""
        self.out.append(b"U" + f"{f.__module__}.{f.__qualname__}".encode() + b";")
        if id(f) in self.active:  # read already, higher up: a recursive function
            self.out.append(b"^")
            return
        self.active.add(id(f))
        try:
            self.code(f.__code__)
            for part, value in ((".__defaults__", f.__defaults__), (".__kwdefaults__", f.__kwdefaults__),
                                (".__closure__", None if f.__closure__ is None else
                                 [cell.cell_contents if _filled(cell) else _EMPTY for cell in f.__closure__]),
                                (".__globals__", self.globals_read(f))):
                self.encode_at(value, f" (function {f.__qualname__}){part}")
        finally:
            self.active.discard(id(f))

    def code(self, code):
        """A code object: its bytecode, constants (nested code too), names and argument
        layout; not its file, first line or line table."""
        self.out.append(b"c")
        self.encode(code.co_code)
        self.encode((code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_flags,
                     code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars))
        self.out.append(_length(len(code.co_consts)))
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                self.code(const)
            else:
                self.encode(const)

    @staticmethod
    def globals_read(f):
        """The global names ``f``'s code (and the code nested in it) reads that its
        module defines, sorted: functions as they are, modules by name, classes by
        module and name, other values as they are."""
        names, stack = set(), [f.__code__]
        while stack:
            code = stack.pop()
            names.update(code.co_names)
            stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        read = []
        for name in sorted(names):
            if name not in f.__globals__:
                continue
            value = f.__globals__[name]
            if isinstance(value, types.ModuleType):
                value = ("module", value.__name__)
            elif isinstance(value, type):
                value = ("class", f"{value.__module__}.{value.__qualname__}")
            read.append((name, value))
        return read


class _Empty:
    """An empty closure cell (a name the function reads before it is assigned)."""

    def __reduce__(self):
        return "_EMPTY"


_EMPTY = _Empty()


def _filled(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True
