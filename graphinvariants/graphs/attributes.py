"""What graphs carry besides edges: node labels, edge labels and node attributes.

The adapters read them from NetworkX and igraph graphs with the same rules, so that
both libraries give the same batch:

* A **label** (node or edge) is a number or a string, not NaN. numpy scalars count as their
  Python counterparts (``numpy.int64(3)`` is ``3``, ``numpy.bool_(True)`` is ``True``,
  ``numpy.str_("C")`` is ``"C"``). ``None``, tuples, sets and other objects are
  refused, naming the node or edge.
* Labels of one batch are all numbers or all strings (numpy would turn ``1`` into
  ``"1"`` and merge them). Integers and floats may be mixed only when no label changes
  value on the way into one array: integers beyond 2**53 with non-integral floats
  are refused, since float64 would merge 2**53 and 2**53 + 1. Integers must fit in
  64 bits.
* **Node attributes** are a sequence of real numbers (or one number) per node, the
  same length on every node, finite; they become one float64 row per node.
* Every node (edge) must carry the attribute asked for; the error names the first
  one that does not.
"""

import itertools
import math
import numbers
from operator import itemgetter, methodcaller

import numpy as np

from .._utils.validation import python_scalar
from .adjacency import describe, graph_library

__all__ = []

#: The value of an attribute a node or edge does not carry (igraph gives None instead).
MISSING = object()
_EXACT_FLOAT_INTEGERS = 2**53
_INT64_MIN, _INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


_PLAIN = frozenset({str, int, float, bool})
_EXACT = frozenset({int, str, bool})  # labels of these types are what check_label returns, as they are


def check_label(value, where, attribute, library):
    """``value`` as a Python number or str, or raise naming ``where`` (``"node 3"``;
    a callable giving it is called only for the message)."""
    if type(value) in _PLAIN and value == value:  # the common case, first (NaN is not equal to itself)
        return value
    where = where() if callable(where) else where
    if value is MISSING:
        raise ValueError(f"{where} has no attribute {attribute!r}")
    if value is None:
        if library == "igraph":  # igraph stores None where an attribute was never set
            raise ValueError(f"{where} has no value for attribute {attribute!r} (igraph gives None)")
        raise ValueError(f"{where} has the label None; labels must be numbers or strings")
    value = python_scalar(value)
    if isinstance(value, str):
        return value
    if isinstance(value, numbers.Integral):
        return value if isinstance(value, bool) else int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        if value != value:
            raise ValueError(f"{where} has the label nan; NaN is equal to no label, not even itself, so it cannot be "
                             "one: give a number or a string")
        return value
    raise TypeError(
        f"{where} has the label {value!r}, a {type(value).__name__}; labels must be numbers or "
        "strings (write a tuple or set label as a string)"
    )


def label_array(values, kind="node"):
    """Labels checked by :func:`check_label` as one array, every value kept exact.

    All strings give a string array, all bools a bool array, all integers int64, all
    floats float64. Integers and floats together give float64 when every integer is
    exact in float64, int64 when every float is an integer, and are refused otherwise.
    """
    if not values:
        return np.zeros(0, np.int64)
    types = set(map(type, values))
    if types == {int} and _INT64_MIN <= min(values) and max(values) <= _INT64_MAX:  # the common cases, first
        return np.array(values, dtype=np.int64)
    if types == {str}:
        return np.array(values)
    is_text = [isinstance(v, str) for v in values]
    if any(is_text):
        if not all(is_text):
            number = next(v for v, text in zip(values, is_text) if not text)
            text = next(v for v, text in zip(values, is_text) if text)
            raise TypeError(f"{kind} labels mix numbers and strings ({number!r} and {text!r}); give them one type")
        return np.array(values)
    if all(isinstance(v, bool) for v in values):
        return np.array(values, dtype=bool)
    integers = [v for v in values if isinstance(v, int)]
    floats = [v for v in values if isinstance(v, float)]
    for v in integers:
        if not _INT64_MIN <= v <= _INT64_MAX:
            raise ValueError(f"{kind} label {v} does not fit in 64 bits; write it as a string")
    if not floats:
        return np.array(values, dtype=np.int64)
    if not integers or all(-_EXACT_FLOAT_INTEGERS <= v <= _EXACT_FLOAT_INTEGERS for v in integers):
        return np.array(values, dtype=np.float64)
    if all(v.is_integer() and _INT64_MIN <= v < 2.0**63 for v in floats):
        return np.array([int(v) for v in values], dtype=np.int64)
    big = next(v for v in integers if abs(v) > _EXACT_FLOAT_INTEGERS)
    fraction = next(v for v in floats if not (v.is_integer() and _INT64_MIN <= v < 2.0**63))
    raise TypeError(
        f"{kind} labels mix integers and floats ({big!r} and {fraction!r}), and {big} has no exact float64 "
        "(it would merge with its neighbours); give the labels one type"
    )


def concatenate_labels(left, right, kind="node"):
    """The labels of two collections as one array, every value kept exact (the rule of
    :func:`label_array`: integers beside floats only if no value changes)."""
    left, right = np.asarray(left), np.asarray(right)
    kinds = {labels.dtype.kind for labels in (left, right) if len(labels)}
    if "f" in kinds and kinds & set("biu"):
        integers, floats = (left, right) if left.dtype.kind in "biu" else (right, left)
        if np.all(np.abs(integers.astype(object)) <= _EXACT_FLOAT_INTEGERS):
            return np.concatenate((left, right)).astype(np.float64)
        if np.all((floats == np.round(floats)) & (floats >= -(2.0**63)) & (floats < 2.0**63)):
            return np.concatenate((left.astype(np.int64), right.astype(np.int64)))
        big = next(v for v in integers.tolist() if abs(v) > _EXACT_FLOAT_INTEGERS)
        fraction = next(v for v in floats.tolist() if not (v.is_integer() and -(2.0**63) <= v < 2.0**63))
        raise TypeError(
            f"the {kind} labels of one collection are integers and of the other floats ({big!r} and {fraction!r}), "
            f"and {big} has no exact float64 (it would merge with its neighbours); give them one type"
        )
    return np.concatenate((left, right))


def check_attribute_row(value, where, attribute, library):
    """A node's attributes as a tuple of floats (one number is a row of one)."""
    where = where() if callable(where) else where
    if value is MISSING or value is None:
        hint = " (igraph gives None)" if value is None and library == "igraph" else ""
        raise ValueError(f"{where} has no attribute {attribute!r}{hint}")
    value = python_scalar(value)
    if isinstance(value, np.ndarray) and value.ndim == 1:
        value = value.tolist()
    row = (value,) if isinstance(value, numbers.Number) else value
    if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
        raise TypeError(f"{where}: attribute {attribute!r} must be a number or a sequence of numbers, got {value!r}")
    out = []
    for x in row:
        x = python_scalar(x)
        if isinstance(x, bool) or not isinstance(x, numbers.Real):
            raise TypeError(f"{where}: attribute {attribute!r} must hold real numbers, got {x!r}")
        x = float(x)
        if not np.isfinite(x):
            raise ValueError(f"{where}: attribute {attribute!r} holds {x}; attributes must be finite")
        out.append(x)
    if not out:
        raise ValueError(f"{where}: attribute {attribute!r} is empty; give at least one number per node")
    return tuple(out)


def node_values(G, attribute):
    """``(library, nodes, values)`` of a NetworkX or igraph graph, in node order; a
    node without the attribute has the value ``MISSING`` (None in igraph)."""
    library = graph_library(G)
    return (library, *graph_node_values(G, attribute, library))


def graph_node_values(G, attribute, library):
    """``(nodes, values)`` of a graph whose library is known (:func:`node_values`
    without asking it again); a TypeError for a graph that is not a NetworkX or igraph
    graph."""
    if library == "networkx":
        return G, list(map(methodcaller("get", attribute, MISSING), map(itemgetter(1), G.nodes(data=True))))
    if library == "igraph":
        values = G.vs[attribute] if attribute in G.vs.attributes() else [MISSING] * G.vcount()
        return range(G.vcount()), values
    raise TypeError(not_carrying_message(G, "node"))


def edge_values(G, attribute):
    """``(library, edges, values)`` of a NetworkX or igraph graph, in the order the
    adapters read edges (``G.edges()``, ``G.get_edgelist()``)."""
    library = graph_library(G)
    if library == "networkx":
        triples = list(G.edges(data=True))
        return library, [(u, v) for u, v, _ in triples], [data.get(attribute, MISSING) for _, _, data in triples]
    if library == "igraph":
        values = G.es[attribute] if attribute in G.es.attributes() else [MISSING] * G.ecount()
        return library, G.get_edgelist(), values
    raise TypeError(not_carrying_message(G, "edge"))


def set_everywhere(graphs, attribute, kind="node"):
    """Whether every node (``kind="edge"``: edge) of every NetworkX or igraph graph has
    ``attribute`` set, whatever its value (igraph's None counts as not set); False for
    a graph of any other kind."""
    for G in graphs:
        try:
            _, _, values = node_values(G, attribute) if kind == "node" else edge_values(G, attribute)
        except TypeError:  # not a NetworkX or igraph graph: it carries nothing
            return False
        if any(value is MISSING or (value is None and graph_library(G) == "igraph") for value in values):
            return False
    return True


def graphs_lacking(graphs, attribute, kind="node"):
    """``(lacking, carrying)``: positions of the NetworkX or igraph graphs on some node
    (``kind="edge"``: edge) of which ``attribute`` is not set, and how many graphs set
    it on at least one (igraph's None counts as not set). Graphs of other kinds count
    in neither."""
    lacking, carrying = [], 0
    for position, G in enumerate(graphs):
        try:
            library, _, values = node_values(G, attribute) if kind == "node" else edge_values(G, attribute)
        except TypeError:  # not a NetworkX or igraph graph
            continue
        unset = [value is MISSING or (value is None and library == "igraph") for value in values]
        if any(unset):
            lacking.append(position)
        if not all(unset):
            carrying += 1
    return lacking, carrying


def naming(kind, key):
    """A callable giving ``"node 3"``: the text is built only for an error message."""
    return lambda: f"{kind} {key!r}"


def not_carrying_message(G, kind="node"):
    """Why a graph that is not a NetworkX or igraph graph has no node attributes
    (``kind="edge"``: edge labels) to read."""
    what = "node attributes" if kind == "node" else "edge labels"
    return f"{what} can be read from NetworkX and igraph graphs, not from a {describe(G)}"


def read_labels(G, attribute, kind="node"):
    """The checked labels of every node (edge) of ``G``, as a list."""
    library, keys, values = node_values(G, attribute) if kind == "node" else edge_values(G, attribute)
    return check_labels(keys, values, attribute, library, kind)


def check_labels(keys, values, attribute, library, kind="node"):
    """The labels ``values`` of the nodes (edges) ``keys`` of a graph from ``library``,
    each checked by :func:`check_label` (a value not set is :data:`MISSING`), as a list."""
    return [check_label(value, naming(kind, key), attribute, library) for key, value in zip(keys, values)]


def checked_labels(keys, values, attribute, library, kind="node"):
    """:func:`check_labels`, with a test of the types of all the values first: values
    that need no check (ints, strings, bools; floats that are not NaN) come back as
    they are, the list given (how the reader of a batch takes a graph's labels)."""
    types = set(map(type, values))
    if types <= _EXACT or (types <= _EXACT | {float} and not any(v != v for v in values if type(v) is float)):
        return values
    return check_labels(keys, values, attribute, library, kind)


def read_attribute_rows(G, attribute):
    """The checked attribute rows of every node of ``G``, all of one length."""
    library, keys, values = node_values(G, attribute)
    return check_attribute_rows(keys, values, attribute, library)


def check_attribute_rows(keys, values, attribute, library):
    """The attribute rows ``values`` of the nodes ``keys`` of a graph from ``library``,
    each checked by :func:`check_attribute_row`, all of one length."""
    rows, first = [], None
    for key, value in zip(keys, values):
        where = f"node {key!r}"
        row = check_attribute_row(value, where, attribute, library)
        if first is None:
            first = (where, len(row))
        elif len(row) != first[1]:
            raise ValueError(
                f"{where} has {len(row)} values of attribute {attribute!r}, {first[0]} has {first[1]}; "
                "every node needs the same number"
            )
        rows.append(row)
    return rows


def graph_attribute_rows(G, attribute, library):
    """:func:`read_attribute_rows` of a graph whose library is known (how the reader of
    a batch takes a graph's attributes: :func:`checked_attribute_rows`)."""
    nodes, values = graph_node_values(G, attribute, library)
    return checked_attribute_rows(nodes, values, attribute, library)


def checked_attribute_rows(keys, values, attribute, library):
    """:func:`check_attribute_rows`, with a test of the types of all the values first:
    one Python float per node, or tuples or lists of Python floats of one length, all
    finite, come back as they are (rows of one float for the former)."""
    if values:
        types = set(map(type, values))
        if types == {float} and all(map(math.isfinite, values)):
            return list(zip(values))
        if types <= {tuple, list} and len(lengths := set(map(len, values))) == 1 and 0 not in lengths:
            flat = list(itertools.chain.from_iterable(values))
            if set(map(type, flat)) == {float} and all(map(math.isfinite, flat)):
                return values
    return check_attribute_rows(keys, values, attribute, library)
