"""NetworkX reaches the backend in its three ways, converts a graph once, and runs what
the backend declines itself."""

import subprocess
import sys
import traceback
import warnings

import networkx as nx
import pytest

from graphinvariants.networkx_backend import interface
from graphinvariants.networkx_backend.graph import BackendGraph

from .conftest import needs_entry_points

pytestmark = needs_entry_points


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # NetworkX's 3.5 hash-change notes, the cache note
        yield


@pytest.fixture
def conversions(monkeypatch):
    """The graphs convert_from_nx is asked to convert, in order."""
    seen = []
    convert = interface.from_networkx

    def counting(G, **kwargs):
        seen.append(G)
        return convert(G, **kwargs)

    monkeypatch.setattr(interface, "from_networkx", counting)
    return seen


def test_backend_keyword_runs_the_backend_and_caches_the_conversion(conversions):
    G = nx.barabasi_albert_graph(200, 2, seed=0)
    expected = nx.weisfeiler_lehman_graph_hash(G)
    assert conversions == []
    assert nx.weisfeiler_lehman_graph_hash(G, backend="graphinvariants") == expected
    assert nx.weisfeiler_lehman_subgraph_hashes(G, backend="graphinvariants") == nx.weisfeiler_lehman_subgraph_hashes(G)
    assert nx.number_of_walks(G, 3, backend="graphinvariants") == nx.number_of_walks(G, 3)
    assert conversions == [G]  # three calls, one conversion: the cache served the others
    cached = G.__networkx_cache__["backends"]["graphinvariants"]
    assert [type(H) for H in cached.values()] == [BackendGraph]
    G.add_edge(0, 199)  # NetworkX empties the cache of a changed graph
    assert nx.weisfeiler_lehman_graph_hash(G, backend="graphinvariants") == nx.weisfeiler_lehman_graph_hash(G)
    assert conversions == [G, G]


def test_attributes_asked_for_are_converted_too(conversions):
    G = nx.path_graph(30)
    nx.set_node_attributes(G, {u: u % 3 for u in G}, "colour")
    nx.set_edge_attributes(G, {e: sum(e) % 2 for e in G.edges}, "bond")
    for kwargs in ({"node_attr": "colour"}, {"edge_attr": "bond"}, {"node_attr": "colour", "edge_attr": "bond"}):
        assert (nx.weisfeiler_lehman_graph_hash(G, backend="graphinvariants", **kwargs)
                == nx.weisfeiler_lehman_graph_hash(G, **kwargs))
    assert len(conversions) == 3  # one conversion per set of attributes


def test_backend_priority_and_fallback(conversions):
    G = nx.complete_graph(20)
    saved = list(nx.config.backend_priority.algos)
    try:
        nx.config.backend_priority.algos = ["graphinvariants"]
        assert nx.number_of_walks(G, 5) == nx.number_of_walks(G, 5, backend="networkx")
        assert conversions == [G]
        # 19**20 > 2**63: the backend declines, NetworkX runs it (its int64 answer)
        assert nx.number_of_walks(G, 20) == nx.number_of_walks(G, 20, backend="networkx")
        # a function the backend does not have: NetworkX's own
        assert nx.number_of_nodes(G) == 20
        # should_run: a graph this small is left to NetworkX, unless backend= asks
        small = nx.path_graph(5)
        assert "fewer than" in interface.BackendInterface.should_run("weisfeiler_lehman_graph_hash", (small,), {})
        nx.weisfeiler_lehman_graph_hash(small)
        assert conversions == [G]
        nx.weisfeiler_lehman_graph_hash(small, backend="graphinvariants")
        assert conversions == [G, small]
    finally:
        nx.config.backend_priority.algos = saved


def test_declined_call_with_backend_keyword_says_so_and_why():
    """Issue 52 item 14: the reason reached only a debug log (NetworkX logs a string that
    can_run returns); now the function declines, and its reason is the error's cause."""
    with pytest.raises(NotImplementedError, match="'graphinvariants' backend raised NotImplementedError") as error:
        nx.number_of_walks(nx.complete_graph(10), 20, backend="graphinvariants")
    assert "may reach 2**63" in str(error.value.__cause__)
    assert "may reach 2**63" in "".join(traceback.format_exception(error.value))  # what the user reads
    with pytest.raises(NotImplementedError) as error:
        nx.weisfeiler_lehman_graph_hash(nx.path_graph(3), digest_size=65, backend="graphinvariants")
    assert "digest_size=65 is not an int from 1 to 64" in str(error.value.__cause__)
    with pytest.raises(NotImplementedError) as error:  # NetworkX's positional call of the subgraph hashes
        nx.weisfeiler_lehman_subgraph_hashes(nx.path_graph(3), None, None, 2.0, 16, True, backend="graphinvariants")
    assert "iterations=2.0 is not an int" in str(error.value.__cause__)
    with pytest.raises(nx.NetworkXNotImplemented):  # NetworkX's own check, before dispatching
        nx.weisfeiler_lehman_graph_hash(nx.MultiGraph([(0, 1)]), backend="graphinvariants")


def test_backend_info_is_registered():
    info = nx.utils.backends.backend_info["graphinvariants"]
    assert set(info["functions"]) == set(interface.FUNCTIONS)
    assert "graphinvariants" in nx.number_of_walks.backends


def run(code, **env):
    import os
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, **env}).stdout.strip()


def test_import_networkx_does_not_import_graphinvariants():
    code = ("import sys, networkx\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('graphinvariants', '_graphinvariants_nx')))")
    assert run(code) == "['_graphinvariants_nx']"  # only get_info's module, which imports nothing


def test_environment_variable_sets_the_priority():
    code = ("import warnings; warnings.simplefilter('ignore'); import networkx as nx\n"
            "G = nx.cycle_graph(200); nx.weisfeiler_lehman_graph_hash(G)\n"
            "print(nx.config.backend_priority.algos, list(G.__networkx_cache__['backends']))")
    assert run(code, NETWORKX_BACKEND_PRIORITY="graphinvariants") == "['graphinvariants'] ['graphinvariants']"


def test_a_converted_graph_dispatches_by_itself():
    G = nx.path_graph(150)
    nx.set_node_attributes(G, {u: u % 4 for u in G}, "a")
    H = interface.BackendInterface.convert_from_nx(G, node_attrs={"a": None})
    assert nx.weisfeiler_lehman_graph_hash(H, node_attr="a") == nx.weisfeiler_lehman_graph_hash(G, node_attr="a")
    assert nx.number_of_walks(H, 2) == nx.number_of_walks(G, 2)
    reason = interface.BackendInterface.weisfeiler_lehman_graph_hash.can_run(H, edge_attr="w")
    assert "without the edge attribute 'w'" in reason
    with pytest.raises(NotImplementedError):
        nx.weisfeiler_lehman_graph_hash(H, edge_attr="w")
    with pytest.raises(NotImplementedError) as error:
        nx.weisfeiler_lehman_graph_hash(H, edge_attr="w", backend="graphinvariants")
    assert "without the edge attribute 'w'" in str(error.value.__cause__)
    assert nx.utils.graphs_equal(interface.BackendInterface.convert_to_nx(H), G)


def test_conversion_reads_edge_attributes_only_when_asked():
    # NetworkX's dispatcher passes edge_attrs={} for a call that needs none
    G = nx.MultiGraph([(0, 1, {"w": 1}), (0, 1)])
    H = interface.BackendInterface.convert_from_nx(G, edge_attrs={})
    assert H.edge_attrs == {} and H.adjacency[0, 1] == 2
    with pytest.raises(NotImplementedError, match="no edge attributes of multigraphs"):
        interface.BackendInterface.convert_from_nx(G, edge_attrs={"w": None})
    with pytest.raises(NotImplementedError, match="no edge attributes of multigraphs"):
        interface.BackendInterface.convert_from_nx(G, preserve_edge_attrs=True)
    S = nx.Graph([(0, 1, {"w": 1}), (1, 2, {"v": 2})])
    assert sorted(interface.BackendInterface.convert_from_nx(S, preserve_edge_attrs=True).edge_attrs) == ["v", "w"]
    assert interface.BackendInterface.convert_from_nx(S, edge_attrs={}).edge_attrs == {}


def test_a_change_in_place_leaves_the_cached_conversion_until_it_is_cleared():
    """Issue 52 item 5: with the "cache" warning silenced, as the docs suggested, a label
    changed in place gave the old hash silently. That is NetworkX's cache design; the
    docs now say so and give NetworkX's way to clear it, tested here."""
    G = nx.barabasi_albert_graph(150, 2, seed=1)
    nx.set_node_attributes(G, 0, "label")
    with nx.config(backend_priority=["graphinvariants"], warnings_to_ignore={"cache"}):
        before = nx.weisfeiler_lehman_graph_hash(G, node_attr="label")
        G.nodes[0]["label"] = 1
        stale = nx.weisfeiler_lehman_graph_hash(G, node_attr="label")
        G.__networkx_cache__.clear()
        fresh = nx.weisfeiler_lehman_graph_hash(G, node_attr="label")
    assert stale == before != fresh
    assert fresh == nx.weisfeiler_lehman_graph_hash(G, node_attr="label", backend="networkx")
    with warnings.catch_warnings(record=True) as caught:  # unsilenced, NetworkX says it used the cache
        warnings.simplefilter("always")
        nx.weisfeiler_lehman_graph_hash(G, node_attr="label", backend="graphinvariants")
    assert any("saved to cache" in str(w.message) for w in caught)


def test_the_docs_never_suggest_silencing_the_cache_warning_without_clearing_the_cache():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "networkx_backend.rst").read_text()
    for paragraph in text.split("\n\n"):
        if 'warnings_to_ignore.add("cache")' in paragraph:
            assert "clears the" in paragraph and "cache_converted_graphs = False" in paragraph
    assert "G.__networkx_cache__.clear()" in text
