"""The backend's WL hashes are NetworkX's strings, on random graphs and every option."""

import contextlib
import subprocess
import sys
import warnings
from fractions import Fraction

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphinvariants.networkx_backend.algorithms import graph_hashing
from graphinvariants.networkx_backend.algorithms.graph_hashing import (
    weisfeiler_lehman_graph_hash,
    weisfeiler_lehman_subgraph_hashes,
)
from graphinvariants.networkx_backend.graph import from_networkx

from .conftest import attributed_graphs

options = st.fixed_dictionaries({
    "node_attr": st.sampled_from([None, "a"]),
    "edge_attr": st.sampled_from([None, "e"]),
    "iterations": st.integers(1, 4),
    "digest_size": st.sampled_from([1, 5, 8, 16, 33, 64]),
})


def both(G, name, **kwargs):
    """(backend's answer, NetworkX's answer, warnings of each) for one call."""
    H = from_networkx(G, node_attrs={"a": None}, edge_attrs={"e": None})
    ours = {"weisfeiler_lehman_graph_hash": weisfeiler_lehman_graph_hash,
            "weisfeiler_lehman_subgraph_hashes": weisfeiler_lehman_subgraph_hashes}[name]
    with warnings.catch_warnings(record=True) as w_ours:
        warnings.simplefilter("always")
        mine = ours(H, **kwargs)
    with warnings.catch_warnings(record=True) as w_nx:
        warnings.simplefilter("always")
        theirs = getattr(nx, name)(G, **kwargs)
    return mine, theirs, [str(w.message) for w in w_ours], [str(w.message) for w in w_nx]


@contextlib.contextmanager
def hashing_by(path):
    """Every string hashed by ``"hashlib"`` or by the ``"compiled"`` loop (if numba is
    installed), whatever the number of strings and what the process hashed before."""
    with pytest.MonkeyPatch.context() as mp:
        if path == "hashlib":
            mp.setitem(sys.modules, graph_hashing.BLAKE2B, None)  # the compiled loop switched off
        else:
            pytest.importorskip("numba")
            mp.setattr(graph_hashing, "COMPILED_MIN_STRINGS", 0)
            mp.setattr(graph_hashing, "COMPILED_AFTER_STRINGS", 0)
        yield


@pytest.mark.parametrize("path", ["hashlib", "compiled"])
@settings(max_examples=80, deadline=None)
@given(G=attributed_graphs(), kwargs=options)
def test_graph_hash_is_networkx_string(path, G, kwargs):
    with hashing_by(path):
        mine, theirs, w_mine, w_theirs = both(G, "weisfeiler_lehman_graph_hash", **kwargs)
    assert mine == theirs
    assert w_mine == w_theirs


@pytest.mark.parametrize("path", ["hashlib", "compiled"])
@settings(max_examples=80, deadline=None)
@given(G=attributed_graphs(), kwargs=options, initial=st.booleans())
def test_subgraph_hashes_are_networkx_strings(path, G, kwargs, initial):
    with hashing_by(path):
        mine, theirs, w_mine, w_theirs = both(G, "weisfeiler_lehman_subgraph_hashes",
                                              include_initial_labels=initial, **kwargs)
    assert mine == theirs and list(mine) == list(theirs)  # same strings, same node order
    assert w_mine == w_theirs


@pytest.mark.slow
def test_larger_graphs_with_many_distinct_labels():
    # 5,000 nodes (past blake2b's thread blocks): the labels become all distinct
    for G in (nx.barabasi_albert_graph(5000, 2, seed=1), nx.gnp_random_graph(5000, 0.0006, seed=2, directed=True)):
        for u in G:
            G.nodes[u]["a"] = u % 7 * 11
        for u, v in G.edges:
            G.edges[u, v]["e"] = (u * v) % 13
        for kwargs in ({}, {"node_attr": "a", "edge_attr": "e"}):
            mine, theirs, *_ = both(G, "weisfeiler_lehman_subgraph_hashes", iterations=3, **kwargs)
            assert mine == theirs


@pytest.mark.parametrize("n", [60, 5000])
def test_hashlib_and_the_compiled_loop_give_the_same_strings(n):
    G = nx.gnp_random_graph(n, 6 / n, seed=3, directed=True)
    nx.set_node_attributes(G, {u: str(u % 5) * (u % 3) for u in G}, "a")
    nx.set_edge_attributes(G, {e: e[0] % 4 * 10 for e in G.edges}, "e")
    answers = []
    for path in ("hashlib", "compiled"):
        with hashing_by(path):
            mine, theirs, *_ = both(G, "weisfeiler_lehman_subgraph_hashes", node_attr="a", edge_attr="e")
        answers.append(mine)
        assert mine == theirs
    assert answers[0] == answers[1]


def test_which_strings_go_to_the_compiled_loop(monkeypatch):
    pytest.importorskip("numba")
    monkeypatch.setattr(graph_hashing, "_hashed_by_hashlib", 0)
    assert graph_hashing._blake2b(graph_hashing.COMPILED_MIN_STRINGS - 1) is None  # a few: always hashlib
    monkeypatch.delitem(sys.modules, graph_hashing.BLAKE2B, raising=False)  # not loaded yet
    large = graph_hashing.COMPILED_AFTER_STRINGS // 2
    assert graph_hashing._blake2b(large) is None and graph_hashing._hashed_by_hashlib == large
    module = graph_hashing._blake2b(large)  # the rent paid reaches the price: loaded
    assert module is not None and module.__name__ == graph_hashing.BLAKE2B
    assert graph_hashing._blake2b(graph_hashing.COMPILED_MIN_STRINGS) is module  # from then on
    monkeypatch.setitem(sys.modules, "numba", None)
    assert graph_hashing._blake2b(large) is None  # switched off


FIRST_CALLS = """
import sys, warnings
import networkx as nx
from graphinvariants.networkx_backend.graph import from_networkx
from graphinvariants.networkx_backend.algorithms import graph_hashing as gh
warnings.simplefilter("ignore")
G = nx.barabasi_albert_graph(3000, 3, seed=1)
H = from_networkx(G)
first = gh.weisfeiler_lehman_graph_hash(H)
print("numba" in sys.modules, "scipy" in sys.modules, first == nx.weisfeiler_lehman_graph_hash(G))
gh.COMPILED_AFTER_STRINGS = 0
print(gh.weisfeiler_lehman_graph_hash(H) == first, gh.BLAKE2B in sys.modules)
"""


def test_the_first_hash_of_a_process_loads_neither_numba_nor_scipy():
    pytest.importorskip("numba")
    out = subprocess.run([sys.executable, "-c", FIRST_CALLS], capture_output=True, text=True, check=True).stdout
    # the first hash: hashlib, same string; once the strings hashed pay for it, the loop
    assert out.split() == ["False", "False", "True", "True", "True"]


def test_renumbering_the_nodes_keeps_the_graph_hash():
    G = nx.gnp_random_graph(40, 0.15, seed=4)
    order = list(G)[::-1][::2] + list(G)[::-1][1::2]
    H = nx.Graph()
    H.add_nodes_from(order)  # stored in a new order
    H.add_edges_from(G.edges)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert (weisfeiler_lehman_graph_hash(from_networkx(G)) == weisfeiler_lehman_graph_hash(from_networkx(H))
                == nx.weisfeiler_lehman_graph_hash(G))


def test_errors_are_networkx_errors():
    G = nx.Graph([(1, 2, {"e": "a"}), (1, 3)])
    G.nodes[1]["a"] = "x"
    H = from_networkx(G, node_attrs={"a": None}, edge_attrs={"e": None})
    with pytest.raises(KeyError):
        weisfeiler_lehman_graph_hash(H, edge_attr="e")
    with pytest.raises(KeyError):
        weisfeiler_lehman_subgraph_hashes(H, node_attr="a")
    with pytest.raises(ValueError, match="`iterations` be positive"):
        weisfeiler_lehman_graph_hash(H, node_attr="a", iterations=0)
    with pytest.raises(nx.NetworkXNotImplemented):
        weisfeiler_lehman_graph_hash(from_networkx(nx.MultiGraph([(0, 1)])))
    G = nx.path_graph(3)
    nx.set_node_attributes(G, "é", "a")
    for f in (weisfeiler_lehman_graph_hash, nx.weisfeiler_lehman_graph_hash):  # both refuse non-ASCII
        with pytest.raises(UnicodeEncodeError):
            f(from_networkx(G, node_attrs={"a": None}) if f is weisfeiler_lehman_graph_hash else G, node_attr="a")


class _SortedKeys(dict):
    """A dict that iterates its keys sorted by ``str``, whatever the insertion order."""

    def __iter__(self):
        return iter(sorted(dict.keys(self), key=str))

    def keys(self):
        return list(self)

    def values(self):
        return [self[k] for k in self]

    def items(self):
        return [(k, self[k]) for k in self]


class _SortedAdjacency(nx.Graph):
    adjlist_outer_dict_factory = _SortedKeys


def test_an_adjacency_in_another_order_than_the_nodes_gives_networkx_hashes():
    """Issue 52 item 6: G._adj iterating in another order than G._node gave each node the
    attributes of another (positions from one order, attributes from the other)."""
    G = _SortedAdjacency()
    G.add_nodes_from([(u, {"a": u % 3 + 10 * (u == 12)}) for u in (12, 3, 1, 20, 2, 0)])
    G.add_edges_from([(12, 3), (3, 1), (1, 20), (20, 2), (2, 0), (0, 12), (3, 20)], e=1)
    assert list(G._adj) != list(G._node)
    H = from_networkx(G, node_attrs={"a": None}, edge_attrs={"e": None})
    assert H.nodes == list(G)
    assert weisfeiler_lehman_graph_hash(H, node_attr="a") == nx.weisfeiler_lehman_graph_hash(G, node_attr="a")
    mine = weisfeiler_lehman_subgraph_hashes(H, node_attr="a", edge_attr="e")
    theirs = nx.weisfeiler_lehman_subgraph_hashes(G, node_attr="a", edge_attr="e")
    assert mine == theirs and list(mine) == list(theirs)


@pytest.mark.parametrize("kind", [complex, Fraction, float])
def test_node_ids_equal_to_positions_but_of_another_type(kind):
    """Issue 52 item 6: nodes 0j, 1+0j, ... equal 0..n-1, and the conversion took them
    for positions (np.fromiter of complex into int64: TypeError)."""
    G = nx.relabel_nodes(nx.path_graph(5), {u: kind(u) for u in range(5)})
    G.add_edge(kind(0), kind(3))
    H = from_networkx(G)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert weisfeiler_lehman_graph_hash(H) == nx.weisfeiler_lehman_graph_hash(G)
        assert weisfeiler_lehman_subgraph_hashes(H) == nx.weisfeiler_lehman_subgraph_hashes(G)
    assert all(type(u) is kind for u in H.nodes)


def _error(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(Exception) as info:
            f(*args, **kwargs)
    return type(info.value), str(info.value)


@pytest.mark.parametrize("directed", [False, True])
def test_the_first_error_is_networkx_first_error(directed):
    """Issue 52 item 6: a label that is not ASCII and a missing attribute elsewhere: the
    backend raised KeyError where NetworkX raises UnicodeEncodeError (and the other way
    round); NetworkX meets them node by node, in its first iteration."""
    def graph(order):
        G = nx.DiGraph() if directed else nx.Graph()
        G.add_nodes_from(order)
        G.add_edge(0, 1, e="x")
        G.add_edge(1, 2)  # no "e"
        G.add_edge(2, 3, e="ü")
        nx.set_node_attributes(G, {0: "a", 1: "b", 2: "c", 3: "é"}, "a")
        return G

    for order in ([0, 1, 2, 3], [3, 2, 1, 0], [2, 3, 0, 1], [1, 0, 2, 3]):
        G = graph(order)
        H = from_networkx(G, node_attrs={"a": None}, edge_attrs={"e": None})
        for kwargs in ({"edge_attr": "e"}, {"edge_attr": "e", "node_attr": "a"}, {"node_attr": "a"}):
            for ours, theirs in ((weisfeiler_lehman_graph_hash, nx.weisfeiler_lehman_graph_hash),
                                 (weisfeiler_lehman_subgraph_hashes, nx.weisfeiler_lehman_subgraph_hashes)):
                assert _error(ours, H, **kwargs) == _error(theirs, G, **kwargs), (order, kwargs, ours)
        kwargs = {"edge_attr": "e", "node_attr": "a", "include_initial_labels": True}
        assert (_error(weisfeiler_lehman_subgraph_hashes, H, **kwargs)
                == _error(nx.weisfeiler_lehman_subgraph_hashes, G, **kwargs))


@settings(max_examples=150, deadline=None)
@given(G=attributed_graphs(max_nodes=8), kwargs=options, initial=st.booleans(), data=st.data())
def test_answers_and_errors_are_networkx_on_graphs_with_holes(G, kwargs, initial, data):
    """Random attributes removed or made non-ASCII: the same answer, or the same error."""
    for u in G:
        if data.draw(st.integers(0, 9)) == 0:
            del G.nodes[u]["a"]
        elif data.draw(st.integers(0, 9)) == 0:
            G.nodes[u]["a"] = "ä"
    for _, _, d in G.edges(data=True):
        if data.draw(st.integers(0, 9)) == 0:
            del d["e"]
        elif data.draw(st.integers(0, 9)) == 0:
            d["e"] = "ß"
    H = from_networkx(G, node_attrs={"a": None}, edge_attrs={"e": None})
    for ours, theirs, extra in ((weisfeiler_lehman_graph_hash, nx.weisfeiler_lehman_graph_hash, {}),
                                (weisfeiler_lehman_subgraph_hashes, nx.weisfeiler_lehman_subgraph_hashes,
                                 {"include_initial_labels": initial})):
        outcomes = []
        for f, graph in ((ours, H), (theirs, G)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                try:
                    outcomes.append(f(graph, **kwargs, **extra))
                except (KeyError, UnicodeEncodeError) as err:
                    outcomes.append((type(err), str(err)))
        assert outcomes[0] == outcomes[1]
