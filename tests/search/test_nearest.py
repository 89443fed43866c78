"""NearestGraphs' contract: refused calls change nothing, ids keep their type,
parameters are checked at the door."""

import subprocess
import sys
import warnings
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi


def _graphs():
    return [nx.path_graph(n) for n in range(4, 9)] + [nx.star_graph(n) for n in range(4, 9)]


def _state(search):
    return (search.n_samples_fit_, None if search.ids_ is None else list(search.ids_),
            search.index_.n_rows_, search.kneighbors(n_neighbors=2)[1].tolist())


def test_refused_partial_fit_leaves_the_search_as_it_was():
    # issue 38, defect 1: the rows went in before the ids were checked
    graphs = _graphs()
    search = gi.NearestGraphs(kernel=gi.GraphFeatures("wl").fit(graphs), n_neighbors=3)
    search.fit(graphs[:5], ids=list("abcde"))
    before = _state(search)
    with pytest.raises(ValueError, match="ids must have one identifier per graph"):
        search.partial_fit(graphs[5:], ids=list("fghi"))  # one too few
    assert _state(search) == before
    with pytest.raises(ValueError, match="give ids to partial_fit"):
        search.partial_fit(graphs[5:])
    assert _state(search) == before
    with pytest.raises(ValueError, match="unique"):
        search.partial_fit(graphs[5:], ids=list("fghia"))  # 'a' is taken
    assert _state(search) == before
    search.partial_fit(graphs[5:], ids=list("fghij"))
    assert search.n_samples_fit_ == 10 and search.kneighbors(return_ids=True)[2].shape == (10, 3)


def test_refused_refit_keeps_the_old_index_and_ids():
    graphs = _graphs()
    search = gi.NearestGraphs(kernel="wl", n_neighbors=2).fit(graphs[5:], ids=[f"star{n}" for n in range(4, 9)])
    before = (search.n_samples_fit_, list(search.ids_), search.kneighbors([nx.star_graph(6)], return_ids=True)[2].tolist())
    with pytest.raises(ValueError, match="ids must have one identifier per graph"):
        search.fit(graphs[:4], ids=["p"] * 3)
    after = (search.n_samples_fit_, list(search.ids_), search.kneighbors([nx.star_graph(6)], return_ids=True)[2].tolist())
    assert after == before
    with pytest.raises(ValueError, match="unique"):
        search.fit(graphs[:4], ids=["p", "q", "p", "r"])
    assert search.n_samples_fit_ == 5


@pytest.mark.parametrize("ids", [[101, 102, 103], ["a", "b", "c"], [(1, 2), (3, 4), (5, 6)]])
def test_ids_keep_their_type(ids):
    # issue 38, defect 3: partial_fit([], ids=[]) made ints floats, then strings '101.0'
    graphs = _graphs()[:3]
    search = gi.NearestGraphs(kernel=gi.GraphFeatures("wl").fit(_graphs()), n_neighbors=1).fit(graphs, ids=ids)
    search.partial_fit([], ids=[])
    assert search.ids_.tolist() == ids
    assert [type(i) for i in search.ids_.tolist()] == [type(i) for i in ids]
    search.partial_fit([nx.path_graph(3)], ids=["new"])
    assert search.ids_.tolist() == ids + ["new"]
    assert type(search.ids_[0]) is type(ids[0])
    _, _, found = search.kneighbors(graphs[:1], return_ids=True)
    assert found[0, 0] == ids[0] and type(found[0, 0]) is type(ids[0])


def test_ids_that_are_not_one_per_graph_are_refused():
    graphs = _graphs()
    with pytest.raises(ValueError, match="one identifier per graph"):
        gi.NearestGraphs(kernel="wl").fit(graphs, ids=np.arange(20).reshape(10, 2))
    with pytest.raises(TypeError, match="ids must be"):
        gi.NearestGraphs(kernel="wl").fit(graphs, ids="abcdefghij")


def test_random_state_is_spelled_seed():
    # issue 38, friction 13
    with pytest.raises(TypeError, match="spelled seed="):
        gi.NearestGraphs(random_state=0)
    assert gi.NearestGraphs("wl").kernel == "wl"  # the kernel first, as GraphFeatures("wl")
    assert "random_state" not in gi.NearestGraphs().get_params()


def test_approximate_module_compiles_without_warnings():
    # issue 38, friction 17: an invalid escape sequence ("\@")
    source = Path(gi.__file__).parent / "search" / "approximate.py"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compile(source.read_text(), str(source), "exec")


def test_the_search_page_first_example_runs_without_warnings():
    # issue 38, friction 16: it warned "1 of the 1 graphs transformed have mostly labels
    # that no graph given to fit has" for graphs that have no labels
    import re

    page = (Path(__file__).resolve().parents[2] / "docs" / "search.rst").read_text()
    code = re.search(r"\.\. code-block:: python\n\n(.*?)\n\n(?=\S)", page, flags=re.S).group(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        namespace = {}
        exec(compile("\n".join(line[3:] for line in code.splitlines()), "search.rst", "exec"), namespace)
    assert namespace["indices"].shape == (40, 3)


def _page():
    return (Path(__file__).resolve().parents[2] / "docs" / "search.rst").read_text()


def test_saving_says_that_loading_a_pickle_runs_code():
    # issue 38, defect 7: saving was pickle only, in one sentence, with no word of the risk
    page = " ".join(_page().split())
    assert "Loading a pickle runs code" in page and "allow_pickle=False" in page
    assert "Loading a pickle runs code" in " ".join(gi.NearestGraphs.__doc__.split())


def test_the_search_page_explains_engines_by_graph_features():
    # issue 38, friction 21: the engines were explained by LearnedFeatures,
    # NystroemGraphKernel and MeanMapFeatures, all deprecated
    import re

    page = _page()
    section = page[page.index("Which kernel, which engine"):page.index("Speed against FPSim2")]
    assert "GraphFeatures" in section
    for sentence in re.split(r"(?<=[.)])\s+(?=[A-Z(])", " ".join(section.split())):
        if re.search(r"LearnedFeatures|NystroemGraphKernel|MeanMapFeatures", sentence):
            assert "deprecated" in sentence, sentence


@pytest.mark.parametrize("kernel", [None, "learned_kernel", "learned_features"])
def test_learned_default_without_y_suggests_a_named_search(kernel):
    """Issue 52, item 16: fit without y names the search that applies,
    NearestGraphs("wl"), not GraphFeatures("wl"); nothing is embedded first."""
    kernel = {None: None, "learned_kernel": gi.GraphKernel(), "learned_features": gi.GraphFeatures()}[kernel]
    with pytest.raises(ValueError, match=r'NearestGraphs\("wl"\)') as caught:
        gi.NearestGraphs(kernel).fit(_graphs())
    assert "GraphFeatures(" not in str(caught.value)


def test_learned_default_on_smiles_without_y_suggests_a_named_search():
    pytest.importorskip("rdkit")
    with pytest.raises(ValueError, match=r'NearestGraphs\("wl"\)'):
        gi.NearestGraphs().fit(["CCO", "c1ccccc1", "CC(=O)O"])
    assert gi.NearestGraphs("wl").fit(["CCO", "c1ccccc1", "CC(=O)O"]).n_samples_fit_ == 3  # the hint works


def test_fit_streams_a_path_a_file_or_an_iterator(tmp_path):
    """A kernel name's fit reads a path or an open file of SMILES, or any iterator, a
    block at a time: the answers of the fit over the list, bit for bit."""
    smiles = ["CCO", "c1ccccc1O", "CC(=O)Nc1ccc(O)cc1", "CN1C=NC2=C1C(=O)N(C(=O)N2C)C", "CC(C)Cc1ccc(cc1)C(C)C(=O)O",
              "O=C(O)c1ccccc1OC(C)=O", "C1CCCCC1", "c1ccncc1", "ClC(Cl)Cl", "CC#N", "c1ccc2ccccc2c1", "CCO"]
    path = tmp_path / "corpus.smi"
    path.write_text("# a comment\n" + "".join(f"{s} name{i}\n" for i, s in enumerate(smiles)))
    queries = ["CCN", "c1ccccc1", "CC(=O)O"]
    reference = gi.NearestGraphs("wl").fit(smiles)
    expected = reference.kneighbors(queries, 5)
    with open(path) as f:
        sources = [path, f, iter(smiles)]
        for source in sources:
            search = gi.NearestGraphs("wl", working_memory=1).fit(source)
            distances, indices = search.kneighbors(queries, 5)
            np.testing.assert_array_equal(indices, expected[1])
            np.testing.assert_array_equal(distances.view(np.int64), expected[0].view(np.int64))
            assert search.n_samples_fit_ == len(smiles)
    with pytest.raises(TypeError, match="one string"):
        gi.NearestGraphs("wl").fit(str(path))  # a string is a SMILES, never a path


FIRST_QUERY = """
import networkx as nx, graphinvariants as gi
from graphinvariants.search import _bounds_numba as loops
graphs = [nx.gnp_random_graph(12 + i % 9, 0.2, seed=i) for i in range(300)]
for i, G in enumerate(graphs):
    nx.set_node_attributes(G, {v: (v * 7 + i) % 5 for v in G}, "label")
search = gi.NearestGraphs("wl", n_neighbors=3).fit(graphs[:250])
def loaded():
    return {name: len(f.signatures) for name, f in vars(loops).items() if hasattr(f, "signatures")}
after_fit = loaded()
assert not hasattr(search.index_, "scored_")  # (it describes the last query)
for G in graphs[250:]:
    search.kneighbors([G])
assert sum(after_fit.values()) > 0 and loaded() == after_fit, (after_fit, loaded())
"""


def test_fit_loads_what_the_first_query_needs():
    # issue 52 item 17: the first query after fit paid numba's import and the loading of
    # the compiled loops (1.1 s against 4-15 ms a query); fit now does, once per process
    pytest.importorskip("numba")
    subprocess.run([sys.executable, "-c", FIRST_QUERY], check=True, cwd=Path(__file__).resolve().parents[2])
