"""The batches built from NetworkX and igraph graphs are those of 0.2, bit for bit.

0.3 builds a batch from a list of graphs in one pass (edges appended to flat arrays,
one CSR for the whole block diagonal). batch_digests.json holds the SHA-256 of every
array of the batches that 0.2's per-graph builder (one CSR per graph, then stacked;
commit 19df182) gave for graphs made from each shared TU data set: the graphs as the
data set gives them (labels, bond types, attributes), their igraph copies, renamed
nodes stored in a shuffled order, weighted multigraphs (parallel edges, zero
weights, self-loops) and directed graphs. The digests hash the values (index arrays
as int64), so that a scipy that picks other index types does not change them; the
types are checked apart.

``python tests/graphs/test_batch_digests.py`` prints the digests of the code at hand
(how the file was written, with 0.2's builder).
"""

import hashlib
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import graphinvariants as gi
from graphinvariants.graphs.csr import index_dtype

DIGESTS = Path(__file__).with_name("batch_digests.json")
#: read in seconds each: their digests run with the slow set
LARGEST = ("DD", "REDDIT-BINARY")
SETS = ("MUTAG", "ENZYMES", "NCI1", "NCI109", "Mutagenicity", "AIDS", "BZR", "COX2", "DD", "IMDB-BINARY",
        "REDDIT-BINARY")
MAX_GRAPHS, MAX_NODES = 150, 20_000  # taken from each set (every k-th graph): the test stays fast


def digest(batch):
    """SHA-256 of every array of a batch, index arrays as int64."""
    h = hashlib.sha256()
    A = batch.matrix
    for array in (A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data, batch.offsets.astype(np.int64)):
        h.update(array.tobytes())
    h.update(str(batch.weighted).encode())
    for array in (batch.node_labels, batch.edge_labels, batch.node_attributes):
        if array is None:
            h.update(b"none")
        else:
            h.update(f"{array.dtype.str}{array.shape}".encode())
            h.update(np.ascontiguousarray(array).tobytes())
    return h.hexdigest()


def _options(ds, *, weight=None):
    options = {"weight": weight}
    if ds.node_labels is not None:
        options["node_label"] = "label"
    if ds.edge_labels is not None:
        options["edge_label"] = "label"
    if ds.node_attributes is not None:
        options["node_attributes"] = "attributes"
    return options


def _renamed(G, rng):
    """Nodes renamed to strings, stored in a shuffled order; edges inserted shuffled,
    some with their ends swapped."""
    import networkx as nx

    H = nx.Graph()
    nodes = list(G.nodes(data=True))
    for i in rng.permutation(len(nodes)).tolist():
        H.add_node(f"v{nodes[i][0]}", **nodes[i][1])
    edges = list(G.edges(data=True))
    for i in rng.permutation(len(edges)).tolist():
        u, v, data = edges[i]
        u, v = (v, u) if rng.random() < 0.5 else (u, v)
        H.add_edge(f"v{u}", f"v{v}", **data)
    return H


def _weighted(G, g, *, directed):
    """A weighted multigraph (parallel edges with their own weights, some weights 0, a
    self-loop on every third graph), or a directed graph with arcs both ways and one
    way."""
    import networkx as nx

    H = nx.MultiDiGraph() if directed else nx.MultiGraph()
    H.add_nodes_from(G.nodes(data=True))
    for e, (u, v, data) in enumerate(G.edges(data=True)):
        w = ((u * 7 + v * 3 + g) % 5) * 0.3  # 0 for one edge in five: stored as nothing
        if directed and e % 3 == 1:
            u, v = v, u
        H.add_edge(u, v, w=w, **data)
        if e % 4 == 0:  # a parallel edge (or the arc back), summed with the first
            H.add_edge(v, u, w=1.0 / (e + 3), **data)
    if g % 3 == 0:
        H.add_edge(0, 0, w=2.5, **({"label": 1} if "label" in next(iter(G.edges(data=True)), (0, 0, {}))[2] else {}))
    return H if directed else nx.Graph(H) if g % 2 else H


def _part(ds):
    """Every k-th graph of a data set: at most MAX_GRAPHS graphs and about MAX_NODES nodes."""
    return ds[:: max(math.ceil(len(ds) / MAX_GRAPHS), math.ceil(ds.n_nodes / MAX_NODES))]


def variants(ds):
    """``(name, graphs, options)`` of every variant built from a data set."""
    import igraph as ig

    part = _part(ds)
    graphs = part.graphs
    rng = np.random.default_rng(7)
    renamed = [_renamed(G, rng) for G in graphs]
    multi = [_weighted(G, g, directed=False) for g, G in enumerate(graphs)]
    directed = [_weighted(G, g, directed=True) for g, G in enumerate(graphs)]
    yield "networkx", graphs, _options(ds)
    yield "igraph", [ig.Graph.from_networkx(G) for G in graphs], _options(ds)
    yield "renamed", renamed, _options(ds)
    yield "igraph renamed", [ig.Graph.from_networkx(G) for G in renamed], _options(ds)
    yield "weighted multigraph", multi, _options(ds, weight="w")
    yield "directed", directed, _options(ds, weight="w")
    yield "directed unweighted", directed, _options(ds)
    yield "igraph directed", [ig.Graph.from_networkx(G) for G in directed], _options(ds, weight="w")


def digests_of(ds):
    return {name: digest(gi.as_graph_batch(graphs, **options)) for name, graphs, options in variants(ds)}


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow) if name in LARGEST else name for name in SETS])
def test_batches_from_graphs_are_those_of_the_per_graph_builder(tu_load, name):
    expected = json.loads(DIGESTS.read_text())[name]
    ds = tu_load(name)
    for variant, graphs, options in variants(ds):
        batch = gi.as_graph_batch(graphs, **options)
        assert digest(batch) == expected[variant], variant
        assert batch.matrix.dtype == np.float64 and batch.matrix.indices.dtype == index_dtype(batch.n_nodes)
        assert batch.matrix.has_canonical_format
    # the graphs as the data set gives them are the data set's own batch, too
    part = _part(ds)
    assert digest(gi.as_graph_batch(part.graphs, **_options(ds))) == digest(part.batch)


if __name__ == "__main__":
    from graphinvariants.datasets import load_tu

    home = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[3] / "shared" / "data" / "TU"
    print(json.dumps({name: digests_of(load_tu(name, data_home=home, download=False)) for name in SETS}, indent=1))
