"""NearestGraphs(index="approximate"): recall against exact, persistence, growth."""

import io

import joblib
import networkx as nx
import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.datasets import perturbed_copies

pytest.importorskip("faiss")


@pytest.fixture(scope="module")
def corpus(tu_load):
    mutag = tu_load("MUTAG")
    copies = perturbed_copies(mutag, 1000, seed=0)
    features = gi.LearnedFeatures(n_components=50, random_state=0).fit(mutag, mutag.y)
    return mutag, copies, features


def _recall(got, want):
    return np.mean([len(set(g) & set(w)) / len(w) for g, w in zip(got, want)])


def test_recall_against_exact_and_leave_one_out(corpus):
    mutag, copies, features = corpus
    exact = gi.NearestGraphs(kernel=features).fit(copies)
    approx = gi.NearestGraphs(kernel=features, index="approximate", seed=0,
                              index_params={"n_dims": 32}).fit(copies)
    queries = perturbed_copies(mutag, 50, seed=1)
    d_e, i_e = exact.kneighbors(queries)
    d_a, i_a = approx.kneighbors(queries)
    assert _recall(i_a, i_e) >= 0.95
    # reranked: every value returned is the exact one of its position
    assert (np.diff(d_a, axis=1) >= 0).all()
    same = i_a == i_e
    np.testing.assert_allclose(d_a[same], d_e[same], atol=1e-7)
    d, i = approx.kneighbors(n_neighbors=3)
    assert not (i == np.arange(len(copies))[:, None]).any()


def test_persist_reload_and_add(corpus):
    mutag, copies, features = corpus
    graphs = copies.batch.take(np.arange(600))
    rest = copies.batch.take(np.arange(600, 800))
    model = gi.NearestGraphs(kernel=features, index="approximate", seed=0, n_neighbors=5,
                             index_params={"n_dims": 32}).fit(graphs, ids=np.arange(600))
    buffer = io.BytesIO()
    joblib.dump(model, buffer)
    buffer.seek(0)
    loaded = joblib.load(buffer)
    queries = mutag.batch.take(np.arange(10))
    for a, b in zip(model.kneighbors(queries), loaded.kneighbors(queries)):
        np.testing.assert_array_equal(a, b)
    loaded.partial_fit(rest, ids=np.arange(600, 800))
    assert loaded.n_samples_fit_ == 800
    d, i, ids = loaded.kneighbors(rest.take(np.arange(5)), n_neighbors=1, return_ids=True)
    exact = gi.NearestGraphs(kernel=features, n_neighbors=1).fit(copies.batch.take(np.arange(800)))
    d_e, i_e = exact.kneighbors(rest.take(np.arange(5)))
    np.testing.assert_array_equal(i, i_e)  # the added graphs are found as the exact search finds them
    np.testing.assert_allclose(d, d_e, atol=1e-7)
    np.testing.assert_array_equal(ids, i)


def test_kernel_name_approximate_uses_nystroem():
    graphs = [nx.cycle_graph(n) for n in range(6, 26)] + [nx.star_graph(n) for n in range(5, 25)]
    model = gi.NearestGraphs(kernel="wl", index="approximate", seed=0, n_neighbors=3).fit(graphs)
    assert type(model.feature_map_).__name__ == "NystroemGraphKernel"
    assert (model.kneighbors([nx.star_graph(40)])[1] >= 20).all()
