"""graphinvariants.networkx_backend: NetworkX's own functions through the backend against NetworkX.

Through NetworkX's dispatcher with the conversion cache off, conversion included (needs ``pip install -e .``).
Targets: the WL graph hash on BA 2 x 10^5 nodes and ``number_of_walks`` on BA 1,500 nodes at least 5x NetworkX.
"""

import warnings
from pathlib import Path

import networkx as nx

from graphinvariants.networkx_backend.algorithms import graph_hashing

from .common import tu


def _graph(name):
    if name.startswith("BA "):
        n = int(float(name.split()[1]))
        return nx.barabasi_albert_graph(n, 3 if n >= 1000 else 2, seed=1 if n > 10**4 else (2 if n == 1500 else n))
    dd = tu("DD").graphs
    if name == "DD protein":  # the DD protein nearest 1,500 nodes
        return nx.convert_node_labels_to_integers(min(dd, key=lambda g: abs(len(g) - 1500)))
    return nx.convert_node_labels_to_integers(nx.disjoint_union_all(dd))  # DD as one graph, labels kept


CALLS = {"WL graph hash": ("BA 2e5", lambda G, b: nx.weisfeiler_lehman_graph_hash(G, backend=b)),
         "WL subgraph hashes": ("BA 2e5", lambda G, b: nx.weisfeiler_lehman_subgraph_hashes(G, backend=b)),
         "WL graph hash, DD as one graph": ("DD", lambda G, b: nx.weisfeiler_lehman_graph_hash(
             G, node_attr="label", backend=b)),
         "number_of_walks(G, 3), BA 1500": ("BA 1500", lambda G, b: nx.number_of_walks(G, 3, backend=b)),
         "number_of_walks(G, 3), DD protein": ("DD protein", lambda G, b: nx.number_of_walks(G, 3, backend=b)),
         **{f"small: WL graph hash, BA {n}": (f"BA {n}", lambda G, b: nx.weisfeiler_lehman_graph_hash(G, backend=b))
            for n in (30, 100, 300)},
         **{f"small: number_of_walks(G, 3), BA {n}": (f"BA {n}", lambda G, b: nx.number_of_walks(G, 3, backend=b))
            for n in (8, 16, 40)},
         "WL graph hash of each NCI1 graph": ("NCI1", lambda graphs, b: [nx.weisfeiler_lehman_graph_hash(
             g, node_attr="label", backend=b) for g in graphs])}


class Backend:
    """Each function through ``backend="graphinvariants"`` and ``backend="networkx"`` (the backend forced:
    ``should_run`` leaves small graphs to NetworkX when chosen by priority); ``track_same_answer``: the backend's answer
    equals NetworkX's."""

    params, param_names = (list(CALLS), ["graphinvariants", "networkx"]), ["call", "backend"]
    timeout = 1200

    def setup(self, call, backend):
        if "graphinvariants" not in nx.utils.backends.backends:
            raise NotImplementedError("the networkx.backends entry point is not installed: pip install -e .")
        warnings.simplefilter("ignore", UserWarning)  # NetworkX's notes on the 3.5 hash change
        nx.config.cache_converted_graphs = False
        source, self.fn = CALLS[call]
        self.G = tu("NCI1").graphs if source == "NCI1" else _graph(source)
        # the first calls (FirstCall times them): on BA 2e5 the second one loads the compiled loop
        for _ in range(3 if source == "BA 2e5" else 1):
            self.fn(self.G, backend)

    def time_call(self, call, backend):
        self.fn(self.G, backend)

    def track_same_answer(self, call, backend):
        return int(self.fn(self.G, backend) == self.fn(self.G, "networkx"))


#: A fresh process before the clock starts: NetworkX, the graph (BA 10^5 nodes) and, for
#: "numba's cache empty", a new numba cache folder (a new installation). The process
#: finds the graphinvariants this suite imported first (asv's own environment, or a
#: clone given by ASV_PYTHONPATH, which asv does not hand on to timeraw's processes).
_FIRST = """
import os, sys, tempfile, warnings
sys.path.insert(0, {root!r})
if {cold!r}:
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp()
import networkx as nx
warnings.simplefilter("ignore")
nx.config.cache_converted_graphs = False
G = nx.barabasi_albert_graph(100_000, 3, seed=1)
"""
#: What FirstCall's calls depend on, read here so that a rename fails ``asv check``.
_SWITCHES = (graph_hashing.COMPILED_MIN_STRINGS, graph_hashing.COMPILED_AFTER_STRINGS)
_ROOT = str(Path(graph_hashing.__file__).resolve().parents[3])


class FirstCall:
    """The first WL graph hashes of a fresh process on BA 10^5 nodes, the backend's against
    NetworkX's (issue 52, 17), conversion included (the cache off): the first call, and
    the first six (the backend hashes by hashlib until loading numba pays: its fifth
    call loads the compiled loop, or compiles it with numba's cache empty, as in a new
    installation). :class:`LaterCall` is the steady state."""

    params = ["graphinvariants", "graphinvariants, numba's cache empty", "networkx"]
    param_names = ["backend"]
    number, repeat, timeout = 1, 5, 600

    def _raw(self, backend, calls):
        stmt = "\n".join([f"nx.weisfeiler_lehman_graph_hash(G, backend={backend.split(',')[0]!r})"] * calls)
        return stmt, _FIRST.format(cold=backend.endswith("empty"), root=_ROOT)

    def timeraw_first_call(self, backend):
        return self._raw(backend, 1)

    def timeraw_first_six_calls(self, backend):
        return self._raw(backend, 6)


class LaterCall:
    """A WL graph hash of BA 10^5 nodes once a process has made six (the steady state
    of :class:`FirstCall`), conversion included."""

    params, param_names = ["graphinvariants", "networkx"], ["backend"]
    number, repeat = 1, 5

    def setup(self, backend):
        warnings.simplefilter("ignore", UserWarning)
        nx.config.cache_converted_graphs = False
        self.G = nx.barabasi_albert_graph(100_000, 3, seed=1)
        for _ in range(6):
            nx.weisfeiler_lehman_graph_hash(self.G, backend=backend)

    def time_call(self, backend):
        nx.weisfeiler_lehman_graph_hash(self.G, backend=backend)
