"""The backend's WL hashes are NetworkX's strings, on random graphs and every option."""

import sys
import warnings

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


@settings(max_examples=120, deadline=None)
@given(G=attributed_graphs(), kwargs=options)
def test_graph_hash_is_networkx_string(G, kwargs):
    mine, theirs, w_mine, w_theirs = both(G, "weisfeiler_lehman_graph_hash", **kwargs)
    assert mine == theirs
    assert w_mine == w_theirs


@settings(max_examples=120, deadline=None)
@given(G=attributed_graphs(), kwargs=options, initial=st.booleans())
def test_subgraph_hashes_are_networkx_strings(G, kwargs, initial):
    mine, theirs, w_mine, w_theirs = both(G, "weisfeiler_lehman_subgraph_hashes", include_initial_labels=initial,
                                          **kwargs)
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


def test_without_numba_hashlib_gives_the_same_strings(monkeypatch):
    G = nx.gnp_random_graph(60, 0.1, seed=3, directed=True)
    nx.set_node_attributes(G, {u: str(u % 5) * (u % 3) for u in G}, "a")
    nx.set_edge_attributes(G, {e: e[0] % 4 * 10 for e in G.edges}, "e")
    with_numba = both(G, "weisfeiler_lehman_subgraph_hashes", node_attr="a", edge_attr="e")[0]
    monkeypatch.setitem(sys.modules, "graphinvariants.networkx_backend._blake2b_numba", None)
    mine, theirs, *_ = both(G, "weisfeiler_lehman_subgraph_hashes", node_attr="a", edge_attr="e")
    assert mine == theirs == with_numba


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
