"""The object NetworkX loads through the ``networkx.backends`` entry point ``graphinvariants``.

NetworkX's dispatcher (``networkx/utils/backends.py``) asks it, for a call of a
dispatchable function ``name``:

- ``can_run(name, args, kwargs)``: True, or a string saying why the backend cannot
  give NetworkX's exact answer for these arguments (NetworkX then runs the call
  itself, or raises if the backend was demanded with ``backend=``);
- ``should_run(name, args, kwargs)``: whether running here is worth it;
- ``convert_from_nx`` / ``convert_to_nx``: graphs into and out of the backend's type
  (:class:`~graphinvariants.networkx_backend.graph.BackendGraph`), the conversion kept
  in the graph's conversion cache;
- the function ``name`` itself, with NetworkX's signature.
"""

import inspect
import numbers

from .algorithms import graph_hashing, walks
from .graph import BackendGraph, from_networkx, to_networkx

__all__ = ["BackendInterface"]

#: The functions the backend runs: NetworkX name -> implementation (same signature).
FUNCTIONS = {
    "weisfeiler_lehman_graph_hash": graph_hashing.weisfeiler_lehman_graph_hash,
    "weisfeiler_lehman_subgraph_hashes": graph_hashing.weisfeiler_lehman_subgraph_hashes,
    "number_of_walks": walks.number_of_walks,
}


#: Graphs with fewer nodes than this are left to NetworkX when the backend is chosen by
#: ``backend_priority`` (``should_run``): converting them costs more than NetworkX's own
#: loop (benchmarks/benchmarks/networkx_backend.py, asv networkx_backend.Backend, "small graphs").
#: (``number_of_walks`` is faster from 8 nodes on: never left to NetworkX for its size.)
SMALL_GRAPH = {"weisfeiler_lehman_graph_hash": 100, "weisfeiler_lehman_subgraph_hashes": 100}


def _bound(name, args, kwargs):
    """The call's arguments by name, defaults filled in."""
    bound = inspect.signature(FUNCTIONS[name]).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.arguments


def _hash_reason(arguments):
    """Why a WL hash call is left to NetworkX, or None."""
    G = arguments["G"]
    iterations, digest_size = arguments["iterations"], arguments["digest_size"]
    if isinstance(iterations, bool) or not isinstance(iterations, numbers.Integral):
        return f"iterations={iterations!r} is not an int"
    if isinstance(digest_size, bool) or not isinstance(digest_size, numbers.Integral) or not 1 <= digest_size <= 64:
        return f"digest_size={digest_size!r} is not an int from 1 to 64 (BLAKE2b's digest sizes)"
    if isinstance(G, BackendGraph):
        node_attr, edge_attr = arguments["node_attr"], arguments["edge_attr"]
        if node_attr and node_attr not in G.node_attrs:
            return f"the backend graph was converted without the node attribute {node_attr!r}"
        if edge_attr is not None and edge_attr not in G.edge_attrs:
            return f"the backend graph was converted without the edge attribute {edge_attr!r}"
    return None


def _can_run(name, args, kwargs):
    if name not in FUNCTIONS:
        return f"graphinvariants does not implement {name}"
    try:
        arguments = _bound(name, args, kwargs)
    except TypeError as err:
        return f"the arguments do not match NetworkX's signature ({err})"
    if name == "number_of_walks":
        reason = walks.walk_overflow_reason(arguments["G"], arguments["walk_length"])
    else:
        reason = _hash_reason(arguments)
    return True if reason is None else reason


class BackendInterface:
    """NetworkX's backend interface for graphinvariants (see the module docstring).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.path_graph(4)
    >>> BackendInterface.can_run("number_of_walks", (G, 3), {})
    True
    >>> BackendInterface.can_run("number_of_walks", (nx.complete_graph(10), 30), {})
    "some count of walks of length 30 may reach 2**63: NetworkX's int64 matrix power would wrap around, so NetworkX gives its own answer"
    >>> H = BackendInterface.convert_from_nx(G)
    >>> BackendInterface.number_of_walks(H, 2)[0]
    {0: 1, 1: 0, 2: 1, 3: 0}
    """

    weisfeiler_lehman_graph_hash = staticmethod(graph_hashing.weisfeiler_lehman_graph_hash)
    weisfeiler_lehman_subgraph_hashes = staticmethod(graph_hashing.weisfeiler_lehman_subgraph_hashes)
    number_of_walks = staticmethod(walks.number_of_walks)

    @staticmethod
    def convert_from_nx(graph, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                        preserve_node_attrs=False, preserve_graph_attrs=False, preserve_all_attrs=False,
                        name=None, graph_name=None):
        """A NetworkX graph as a :class:`~graphinvariants.networkx_backend.graph.BackendGraph`
        (a backend graph is returned as it is)."""
        if isinstance(graph, BackendGraph):
            return graph
        if preserve_all_attrs:
            preserve_edge_attrs = preserve_node_attrs = preserve_graph_attrs = True
        return from_networkx(graph, edge_attrs=edge_attrs, node_attrs=node_attrs,
                             preserve_edge_attrs=preserve_edge_attrs, preserve_node_attrs=preserve_node_attrs,
                             preserve_graph_attrs=preserve_graph_attrs)

    @staticmethod
    def convert_to_nx(result, *, name=None):
        """A backend graph back as a NetworkX graph; any other result (hashes, dicts of
        walk counts: plain Python objects already) as it is."""
        if isinstance(result, BackendGraph):
            return to_networkx(result)
        return result

    @staticmethod
    def can_run(name, args, kwargs):
        """True if the backend gives NetworkX's exact answer for this call, else the reason."""
        return _can_run(name, args, kwargs)

    @staticmethod
    def should_run(name, args, kwargs):
        """True, or why NetworkX is the faster here: a graph of fewer than
        :data:`SMALL_GRAPH` nodes (``backend=`` runs the backend regardless)."""
        try:
            G = _bound(name, args, kwargs)["G"]
        except (KeyError, TypeError):
            return True
        if len(G) < SMALL_GRAPH.get(name, 0):
            return f"a graph of fewer than {SMALL_GRAPH[name]} nodes: NetworkX's own loop is faster than converting it"
        return True

    @staticmethod
    def on_start_tests(items):
        """Called by NetworkX's test suite (``NETWORKX_TEST_BACKEND=graphinvariants``) with
        its collected tests: none is expected to fail, so none is marked."""
