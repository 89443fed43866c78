import os
from pathlib import Path

import numpy as np
import pytest

#: The shared TU data: beside the clone, or where $GRAPHINVARIANTS_DATA says (a git
#: worktree elsewhere points there).
TU_DIR = Path(os.environ.get("GRAPHINVARIANTS_DATA") or Path(__file__).resolve().parents[1].parent / "shared" / "data" / "TU")

#: Table of ../shared/data/README.md: graphs, classes, nodes, directed edge lines
#: (lines of NAME_A.txt; counted from the files, and the means they give checked against
#: the published TU statistics in tests/datasets/test_tu.py).
TU_COUNTS = {
    "MUTAG": (188, 2, 3371, 7442),
    "ENZYMES": (600, 6, 19580, 74564),
    "NCI1": (4110, 2, 122747, 265506),
    "NCI109": (4127, 2, 122494, 265208),
    "Mutagenicity": (4337, 2, 131488, 266894),
    "AIDS": (2000, 2, 31385, 64780),
    "BZR": (405, 2, 14479, 31070),
    "COX2": (467, 2, 19252, 40578),
    "DD": (1178, 2, 334925, 1686092),
    "IMDB-BINARY": (1000, 2, 19773, 386124),
    "REDDIT-BINARY": (2000, 2, 859254, 1991016),
}

#: The four data sets of the paper's Table 1 (what ``tu_datasets`` holds).
TU_PAPER = ("MUTAG", "ENZYMES", "NCI1", "NCI109")


def in_ci(environ=os.environ):
    """Whether the run is a CI run: ``CI`` set to anything but empty, ``0``, ``false`` or
    ``no`` (GitHub Actions, GitLab and ``.ci/run`` set ``CI=true``)."""
    return environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.fixture(scope="session")
def tu_dir():
    """The TU data folder. Missing: the test is skipped on a developer's machine, and
    fails (an error, not a skip) under ``CI=true``, where a lost ``../shared`` must not
    pass with a fraction of the suite."""
    if not TU_DIR.is_dir():
        message = f"TU data not found at {TU_DIR}"
        if in_ci():
            pytest.fail(
                f"{message}: CI needs it (put the shared data beside the clone, ../shared/data/TU, "
                "or point GRAPHINVARIANTS_DATA to it; outside CI these tests are skipped)",
                pytrace=False,
            )
        pytest.skip(message)
    return TU_DIR


@pytest.fixture(scope="session")
def tu_load(tu_dir):
    """``tu_load(name)``: a shared data set, read at most once per session (DD and
    REDDIT-BINARY take seconds)."""
    from graphinvariants.datasets import load_tu

    cache = {}

    def load(name):
        if name not in cache:
            cache[name] = load_tu(name, data_home=tu_dir, download=False)
        return cache[name]

    return load


@pytest.fixture(scope="session")
def tu_datasets(tu_load):
    """The four data sets of the paper, by name (others: ``tu_load``)."""
    return {name: tu_load(name) for name in TU_PAPER}


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def renumbered(G, rng):
    """The same graph with new node numbers, its nodes stored in a new order and its
    edges inserted in a new order (node and edge attributes kept)."""
    import networkx as nx

    perm = rng.permutation(G.number_of_nodes())
    index = {v: i for i, v in enumerate(G)}
    edges = list(G.edges(data=True))
    rng.shuffle(edges)
    nodes = [(int(perm[index[v]]), data) for v, data in G.nodes(data=True)]
    H = nx.Graph()
    H.add_nodes_from(sorted(nodes, key=lambda item: rng.random()))  # node attributes kept
    H.add_edges_from((int(perm[index[u]]), int(perm[index[v]]), d) for u, v, d in edges)
    return H


def labelled(G, seed):
    """``G`` with random atom-like node labels and bond-like integer edge labels."""
    rng = np.random.default_rng(seed)
    for v in G:
        G.nodes[v]["label"] = str(rng.choice(["C", "N", "O"], p=[0.6, 0.25, 0.15]))
    for u, v in G.edges:
        G.edges[u, v]["label"] = int(rng.integers(1, 3))
    return G


def explanation_data(*, cycle_anchor, n=24):
    """The explanation tests' set: ``graphs, y, target, new``. Graph ``i`` is a cycle
    (odd ``i``, with a pendant node at ``cycle_anchor``) or a path (a pendant node at
    1) of ``6 + i % 4`` nodes, labelled; ``y`` is ``i % 2``, ``target`` a regression
    target; ``new`` three graphs to explain."""
    import networkx as nx

    graphs, y = [], []
    for i in range(n):
        G = nx.cycle_graph(6 + i % 4) if i % 2 else nx.path_graph(6 + i % 4)
        G.add_edge(cycle_anchor if i % 2 else 1, len(G))
        graphs.append(labelled(G, i))
        y.append(i % 2)
    target = np.array([G.number_of_edges() / G.number_of_nodes() + 0.1 * i for i, G in enumerate(graphs)])
    new = [labelled(nx.cycle_graph(7), 100), labelled(nx.path_graph(8), 101), labelled(nx.star_graph(5), 102)]
    return graphs, np.array(y), target, new


def brute_force_shapley(n, value):
    """Shapley values of the players ``0 .. n-1`` of the game ``value(S)`` (S a tuple of
    players), by the definition: every coalition without the player, weighted."""
    import itertools
    import math

    shapley = np.zeros(n)
    for u in range(n):
        others = [x for x in range(n) if x != u]
        for size in range(n):
            for S in itertools.combinations(others, size):
                weight = math.factorial(size) * math.factorial(n - size - 1) / math.factorial(n)
                shapley[u] += weight * (value(S + (u,)) - value(S))
    return shapley


def assert_gram_theorems(graphs, functional, rng, *, psd_tolerance=1e-12):
    """The theorems every normalised kernel meets on ``graphs``: unit diagonal,
    symmetry, positive semidefinite, 1 between each graph and a renumbered copy (nodes
    stored in a new order), the same matrix from igraph copies. Returns the matrix and
    the renumbered graphs."""
    import igraph as ig

    from graphinvariants.kernels import paired_kernels, pairwise_kernels

    K = pairwise_kernels(graphs, functional=functional)
    # exact by construction: the engine writes the diagonal as 1.0 and mirrors the tiles
    # below it; a renumbered copy or an igraph copy gives the same batch (the same counts
    # or rows), so the same operations in the same order
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_array_equal(K, K.T)
    assert np.linalg.eigvalsh(K).min() > -psd_tolerance
    copies = [renumbered(G, rng) for G in graphs]
    np.testing.assert_array_equal(paired_kernels(graphs, copies, functional=functional), 1.0)
    np.testing.assert_array_equal(pairwise_kernels([ig.Graph.from_networkx(G) for G in graphs], functional=functional), K)
    return K, copies


def cosine_of_counts(counts):
    """Brute-force cosine Gram matrix of per-graph label counts (a dict per graph)."""
    keys = sorted({key for c in counts for key in c}, key=repr)
    F = np.array([[c.get(key, 0) for key in keys] for c in counts], dtype=float)
    norms = np.sqrt((F * F).sum(axis=1))
    return F @ F.T / np.outer(norms, norms)


#: Two bodies of one ``def kern(a, b)``, as two scripts would define it (unit diagonal, PSD).
KERN_A = "def kern(a, b):\n    return np.eye(len(a), len(b))\n"
KERN_B = "def kern(a, b):\n    return 0.5 + 0.5 * np.eye(len(a), len(b))\n"


@pytest.fixture
def define():
    """``define(source, name="kern", **globals)``: what ``source`` defines as a script
    would, in a fresh module registered in ``sys.modules`` (as ``__main__`` is, so that
    pickle finds it by module and name, all that it stores of a function) until the
    next ``define``."""
    import sys
    import types

    name = "graphinvariants_test_script"

    def define(source, what="kern", **namespace):
        module = types.ModuleType(name)
        module.__dict__.update(np=np, **namespace)
        sys.modules[name] = module
        exec(compile(source, f"<script {id(module)}>", "exec"), module.__dict__)
        return getattr(module, what)

    yield define
    sys.modules.pop(name, None)


@pytest.fixture(scope="module")
def dask_client():
    """A ``distributed.Client`` of an in-process ``LocalCluster`` (two workers, one thread
    each), for the tests of one module. Module scope, not session: a cluster left open
    past its module outlives it into modules whose tests start and close clusters of
    their own (the command line's ``--scheduler``, the walk-through of
    docs/large_collections.rst), and its client then prints Dask's shutdown tracebacks
    (``ConnectionPool is closed``, ``CommClosedError``) at exit though every test passes.
    The client is closed before its cluster."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(processes=False, n_workers=2, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            yield client
