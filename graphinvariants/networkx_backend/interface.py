"""The object NetworkX loads through the ``networkx.backends`` entry point ``graphinvariants``.

NetworkX's dispatcher (``networkx/utils/backends.py``) asks it, for a call of a
dispatchable function ``name``:

- ``can_run(name, args, kwargs)``: True for every function in :data:`FUNCTIONS` (each
  declines arguments it cannot answer exactly itself, with its reason: see
  :mod:`~graphinvariants.networkx_backend.rules`), else a string saying why not;
- ``should_run(name, args, kwargs)``: the function's own ``should_run``;
- ``convert_from_nx`` / ``convert_to_nx``: graphs into and out of the backend's type
  (:class:`~graphinvariants.networkx_backend.graph.BackendGraph`), the conversion kept
  in the graph's conversion cache;
- the function ``name`` itself, with NetworkX's signature.
"""

from . import algorithms
from .graph import BackendGraph, from_networkx, to_networkx

__all__ = ["BackendInterface", "FUNCTIONS"]

#: The functions the backend runs: NetworkX name -> implementation (same signature,
#: with its ``can_run`` and ``should_run``).
FUNCTIONS = {name: getattr(algorithms, name) for name in algorithms.__all__}


class BackendInterface:
    """NetworkX's backend interface for graphinvariants (see the module docstring).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.path_graph(4)
    >>> BackendInterface.can_run("number_of_walks", (G, 3), {}), BackendInterface.can_run("pagerank", (G,), {})
    (True, 'graphinvariants does not implement pagerank')
    >>> H = BackendInterface.convert_from_nx(G)
    >>> BackendInterface.number_of_walks(H, 2)[0]
    {0: 1, 1: 0, 2: 1, 3: 0}
    >>> BackendInterface.number_of_walks.can_run(nx.complete_graph(10), 30)  # declined when called
    "some count of walks of length 30 may reach 2**63: NetworkX's int64 matrix power would wrap around, so NetworkX gives its own answer"
    """

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
        """True for the functions the backend has (each declines, with its reason, what it
        cannot answer exactly: :mod:`~graphinvariants.networkx_backend.rules`)."""
        return True if name in FUNCTIONS else f"graphinvariants does not implement {name}"

    @staticmethod
    def should_run(name, args, kwargs):
        """The function's own ``should_run``: True, or why NetworkX is the faster here."""
        return FUNCTIONS[name].should_run(*args, **kwargs)

    @staticmethod
    def on_start_tests(items):
        """Called by NetworkX's test suite (``NETWORKX_TEST_BACKEND=graphinvariants``) with
        its collected tests: none is expected to fail, so none is marked."""


for _name, _function in FUNCTIONS.items():
    setattr(BackendInterface, _name, staticmethod(_function))
