"""One seed name: ``seed`` everywhere; ``random_state=`` refused at construction with a hint."""

import networkx as nx
import numpy as np
import pytest
from sklearn.base import clone

import graphinvariants as gi
from graphinvariants.search._kernel_index import kernel_neighbors as _kneighbors  # the kernel index (gi.kneighbors is deprecated)
from graphinvariants.embeddings import MeanMap, PropagatedAttributes

GRAPHS = [nx.path_graph(5), nx.cycle_graph(6), nx.star_graph(4), nx.complete_graph(4)]

#: the 0.2 names warn (deprecated); what is tested here is their seed
pytestmark = pytest.mark.filterwarnings("ignore:.*is deprecated since 0.3.0:FutureWarning")

ESTIMATORS = [
    lambda **kw: gi.GraphFeatures("wl", **kw),
    lambda **kw: gi.NystroemGraphKernel(n_components=3, **kw),
    lambda **kw: gi.MeanMapFeatures(n_features=8, **kw),
    lambda **kw: gi.LearnedFeatures(n_components=3, **kw),
]


@pytest.mark.parametrize("make", ESTIMATORS + [
    lambda **kw: MeanMap(k=3, n_features=8, **kw),
    lambda **kw: PropagatedAttributes(k=2, n_features=8, **kw),
    lambda **kw: gi.GraphKernel(**kw),
    lambda **kw: gi.GraphKernel(kernel="meanmap", **kw),
])
def test_random_state_is_refused_at_construction_with_a_hint(make):
    with pytest.raises(TypeError, match=r"random_state= is spelled seed="):
        make(random_state=0)
    make(seed=0)  # the name that is taken


def test_a_member_random_state_is_refused_too():
    with pytest.raises(TypeError, match=r"GraphKernel: random_state= is spelled seed="):
        gi.GraphKernel(kernel="power*meanmap", meanmap__random_state=0)
    with pytest.raises(TypeError, match=r"GraphKernel: random_state= is spelled seed="):
        gi.GraphKernel(kernel="wl").set_params(random_state=0)


@pytest.mark.parametrize("params", [{"random_state": 0}, {"meanmap__random_state": 0}])
def test_kernel_functions_refuse_random_state(params):
    with pytest.raises(TypeError, match=r"kernel 'power\*meanmap': random_state= is spelled seed="):
        gi.kernel_matrix(GRAPHS, kernel="power*meanmap", n_features=8, **params)
    with pytest.raises(TypeError, match="random_state= is spelled seed="):
        _kneighbors(GRAPHS, GRAPHS, kernel="power*meanmap", n_neighbors=2, n_features=8, **params)


@pytest.mark.parametrize("make", ESTIMATORS)
def test_seed_is_an_estimator_parameter_that_clone_and_set_params_keep(make):
    model = make(seed=3)
    assert model.get_params()["seed"] == 3
    assert "random_state" not in model.get_params()
    twin = clone(model)
    assert twin.get_params() == model.get_params()
    assert twin.set_params(seed=4).seed == 4
    with pytest.raises(ValueError, match="random_state"):  # scikit-learn's own refusal of unknown names
        twin.set_params(random_state=4)


def test_kernel_matrix_meanmap_takes_seed():
    a = gi.kernel_matrix(GRAPHS, kernel="meanmap", n_features=16, seed=5)
    b = gi.kernel_matrix(GRAPHS, kernel="meanmap", n_features=16, seed=5)
    c = gi.kernel_matrix(GRAPHS, kernel="meanmap", n_features=16, seed=6)
    np.testing.assert_array_equal(a, b)  # same seed, same random map: the same arithmetic
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("spec", ["learned:random_state=0", "meanmap:random_state=0"])
def test_the_cli_refuses_random_state_when_parsing_kernel(spec):
    import argparse

    from graphinvariants.cli._kernels import kernel_list

    with pytest.raises(argparse.ArgumentTypeError, match="random_state= is spelled seed="):
        kernel_list(spec)
