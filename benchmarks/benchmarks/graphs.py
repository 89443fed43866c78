"""graphinvariants.graphs: reading edge lists and building batches, against pandas + scipy and 0.2's builder."""

import os
import tempfile

import igraph as ig
import numpy as np
import scipy.sparse as sp

import graphinvariants as gi
from graphinvariants.graphs.adjacency import networkx_csr  # 0.2's per-graph builder, written out below
from graphinvariants.graphs.attributes import label_array, read_labels
from graphinvariants.graphs.csr import stack_csr

from .common import floor_invariants, random_edges, tu


def _pandas_csr(path, fmt):
    """The straightforward reading of this very file (ids 0..n-1, its separator known): ``pandas.read_csv`` (C engine)
    or ``read_parquet``, then scipy's coo -> csr, mirrored."""
    import pandas as pd

    df = {"text": lambda: pd.read_csv(path, sep="\t", comment="#", header=None, names=["u", "v"]),
          "csv": lambda: pd.read_csv(path), "parquet": lambda: pd.read_parquet(path)}[fmt]()
    u, v = df["u"].to_numpy(), df["v"].to_numpy()
    n = int(max(u.max(), v.max())) + 1
    keep = u != v
    rows, cols = np.concatenate((u, v[keep])), np.concatenate((v, u[keep]))
    A = sp.coo_array((np.ones(rows.size), (rows, cols)), shape=(n, n)).tocsr()
    A.data[:] = 1.0
    return A


class ReadEdgelist:
    """``gi.read_edgelist`` against pandas + scipy on the same files: SNAP text (tab-separated, ``#`` comments), CSV
    (``u,v`` header) and Parquet of graphs of mean degree 10 with shuffled ids; then ``power_invariants`` of the matrix
    read against the floor on it (the target of issue 36: (read + invariants) / (pandas + floor) <= 1.5)."""

    params = ([10**5, 10**6], ["er", "ba"], ["text", "csv", "parquet"], ["read_edgelist", "pandas"])
    param_names = ["nodes", "graph", "format", "reader"]
    timeout = 600

    def setup_cache(self):
        import pandas as pd
        import pyarrow as pa
        import pyarrow.parquet as pq

        folder = tempfile.mkdtemp(prefix="asv-edgelist-")
        rng = np.random.default_rng(0)
        for n in self.params[0]:
            for family in self.params[1]:
                u, v = random_edges(family, n, 10, seed=0)
                relabel = rng.permutation(int(max(u.max(), v.max())) + 1)
                u, v = relabel[u], relabel[v]
                stem = os.path.join(folder, f"{family}-{n}")
                with open(stem + ".txt", "w") as f:
                    f.write(f"# Undirected graph\n# Nodes: {n} Edges: {u.size}\n# FromNodeId\tToNodeId\n")
                    pd.DataFrame({"u": u, "v": v}).to_csv(f, sep="\t", header=False, index=False)
                pd.DataFrame({"u": u, "v": v}).to_csv(stem + ".csv", index=False)
                pq.write_table(pa.table({"u": u, "v": v}), stem + ".parquet")
        return folder

    def setup(self, folder, n, family, fmt, reader):
        self.path = os.path.join(folder, f"{family}-{n}.{ {'text': 'txt'}.get(fmt, fmt)}")
        self.read = (lambda: gi.read_edgelist(self.path)) if reader == "read_edgelist" else (
            lambda: _pandas_csr(self.path, fmt))
        self.A = self.read()

    def time_read(self, *args):
        self.read()

    def peakmem_read(self, *args):
        self.read()

    def time_read_then_invariants(self, *args):
        A = self.read()
        if hasattr(A, "matrix"):
            gi.power_invariants(A, k=5)
        else:
            floor_invariants(A)


def _per_graph_batch(graphs):
    """0.2's builder for a NetworkX list with node labels: a CSR per graph, stacked."""
    parts, sizes, labels = [], [], []
    for G in graphs:
        A = networkx_csr(G, None)[0]
        labels.extend(read_labels(G, "label"))
        parts.append((A.indptr, A.indices, A.data))
        sizes.append(A.shape[0])
    sizes = np.array(sizes, dtype=np.int64)
    return gi.GraphBatch(stack_csr(parts, sizes), np.concatenate(([0], np.cumsum(sizes))),
                         node_labels=label_array(labels))


class GraphBatch:
    """A batch of NCI1's 4,110 NetworkX graphs with node labels: one pass (``as_graph_batch``), from igraph, and 0.2's
    per-graph builder."""

    params, param_names = ["networkx", "igraph", "0.2 per-graph builder"], ["source"]

    def setup(self, source):
        graphs = tu("NCI1").graphs
        graphs = [ig.Graph.from_networkx(G) for G in graphs] if source == "igraph" else graphs
        self.call = (lambda: _per_graph_batch(graphs)) if source.startswith("0.2") else (
            lambda: gi.as_graph_batch(graphs, node_label="label"))

    def time_batch(self, source):
        self.call()
