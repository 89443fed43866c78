"""graphinvariants.networkx_backend: NetworkX's own functions through the backend against NetworkX.

Through NetworkX's dispatcher with the conversion cache off, conversion included (needs ``pip install -e .``).
Targets: the WL graph hash on BA 2 x 10^5 nodes and ``number_of_walks`` on BA 1,500 nodes at least 5x NetworkX.
"""

import warnings

import networkx as nx

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
        self.fn(self.G, backend)  # the first call (compiled code loaded): FirstCall measures it

    def time_call(self, call, backend):
        self.fn(self.G, backend)

    def track_same_answer(self, call, backend):
        return int(self.fn(self.G, backend) == self.fn(self.G, "networkx"))


class FirstCall:
    """The first WL hash of a process (BA 10^5 nodes): the backend's against NetworkX's (issue 52, 17)."""

    params, param_names = ["graphinvariants", "networkx"], ["backend"]
    number, repeat = 1, 5

    def timeraw_wl_hash(self, backend):
        return (f"nx.weisfeiler_lehman_graph_hash(G, backend={backend!r})",
                "import warnings\nimport networkx as nx\nwarnings.simplefilter('ignore')\n"
                "G = nx.barabasi_albert_graph(100_000, 3, seed=1)")
