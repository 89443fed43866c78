from pathlib import Path

import numpy as np
import pytest

TU_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "TU"

#: Table of ../shared/data/README.md: graphs, classes, nodes, directed edge lines.
TU_COUNTS = {
    "MUTAG": (188, 2, 3371, 7442),
    "ENZYMES": (600, 6, 19580, 74564),
    "NCI1": (4110, 2, 122747, 265506),
    "NCI109": (4127, 2, 122494, 265208),
}


@pytest.fixture(scope="session")
def tu_dir():
    if not TU_DIR.is_dir():
        pytest.skip(f"TU data not found at {TU_DIR}")
    return TU_DIR


@pytest.fixture(scope="session")
def tu_datasets(tu_dir):
    from graphinvariants.datasets import load_tu

    return {name: load_tu(name, data_home=tu_dir, download=False) for name in TU_COUNTS}


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
