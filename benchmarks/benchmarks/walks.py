"""graphinvariants.walks: Algorithm 1 (power summary and invariants) and walk counts, against the floor."""

import networkx as nx
import numpy as np
import scipy.sparse as sp

import graphinvariants as gi
from graphinvariants.embeddings import ClosedWalkHistogram, WalkHistogram
from graphinvariants.kernels import RECOMMENDED
from graphinvariants.walks import closed_walk_counts
from graphinvariants.walks.large import power_columns  # the compiled loop alone (Products)
from graphinvariants.walks.counts import walk_count_columns  # base-2**31 digits (WalkCounts)

from .common import floor_invariants, peer, random_edges, tu

LARGE = {}


def large(n, family):
    """``(u, v, CSR as scipy holds it)`` of a graph of mean degree 10, built once per process."""
    if (n, family) not in LARGE:
        u, v = random_edges(family, n, 10, seed=0)
        built = gi.from_edge_arrays(u, v, n_nodes=n).matrix  # no data array (a broadcast 1.0)
        LARGE[n, family] = u, v, sp.csr_array((np.ones(built.nnz), built.indices, built.indptr), shape=built.shape)
    return LARGE[n, family]


class PowerInvariants:
    """One large graph: ``power_invariants`` on one and two threads against the floor (k = 5 products and the moments,
    plain scipy)."""

    params = ([10**4, 10**5, 10**6, 10**7], ["er", "ba"], ["library", "library, 2 threads", "floor"])
    param_names = ["nodes", "graph", "method"]
    timeout = 600

    def setup(self, n, family, method):
        self.A = large(n, family)[2]
        gi.power_invariants(self.A[:100, :100], n_jobs=1)  # compiled code loaded
        self.call = {"library": lambda: gi.power_invariants(self.A, n_jobs=1),
                     "library, 2 threads": lambda: gi.power_invariants(self.A, n_jobs=2),
                     "floor": lambda: floor_invariants(self.A)}[method]

    def time_invariants(self, n, family, method):
        self.call()

    def peakmem_invariants(self, n, family, method):
        self.call()


class Inputs:
    """``power_invariants`` from each input type against "build the CSR the obvious way + floor"."""

    params = ([10**5, 10**6], ["edge arrays", "edge arrays: scipy coo + floor", "igraph", "igraph: get_edgelist",
                               "networkx", "networkx: to_scipy_sparse_array + floor"])
    param_names = ["nodes", "input"]
    timeout = 600

    def setup(self, n, source):
        u, v, _ = large(n, "er")
        g = peer("igraph").Graph(n=n, edges=np.column_stack((u, v))) if source.startswith("igraph") else None
        G = nx.empty_graph(n) if source.startswith("networkx") else None
        if G is not None:
            G.add_edges_from(zip(u.tolist(), v.tolist()))
        self.call = {"edge arrays": lambda: gi.power_invariants((u, v), n_jobs=1),
                     "edge arrays: scipy coo + floor": lambda: _coo_floor(u, v, n),
                     "igraph": lambda: gi.power_invariants(g, n_jobs=1),
                     "igraph: get_edgelist": lambda: np.array(g.get_edgelist()),
                     "networkx": lambda: gi.power_invariants(G, n_jobs=1),
                     "networkx: to_scipy_sparse_array + floor": lambda: floor_invariants(
                         nx.to_scipy_sparse_array(G, format="csr", dtype=float))}[source]

    def time_invariants(self, n, source):
        self.call()


def _coo_floor(u, v, n):
    """The obvious CSR of edge arrays (scipy's coo and its transpose), then the floor."""
    coo = sp.coo_array((np.ones(u.size), (u, v)), shape=(n, n))
    return floor_invariants(sp.csr_array(coo + coo.T))


class Products:
    """k = 5 products alone: scipy, the compiled loop, SuiteSparse:GraphBLAS (the choice of numba)."""

    params = ([10**5, 10**6, 10**7], ["scipy", "compiled", "compiled, 2 threads", "graphblas", "graphblas, 2 threads"])
    param_names = ["nodes", "engine"]
    timeout = 600

    def setup(self, n, engine):
        A = large(n, "er")[2]
        if engine == "scipy":
            self.call = lambda: [A @ np.ones(n) for _ in range(5)]
        elif engine.startswith("compiled"):
            peer("numba")
            jobs = 2 if "2" in engine else 1
            self.call = lambda: power_columns(A, 5, weighted=False, n_jobs=jobs)
        else:
            gb = peer("graphblas")
            gb.ss.config["nthreads"] = 2 if "2" in engine else 1
            M = gb.Matrix.from_csr(A.indptr, A.indices, 1.0, nrows=n, ncols=n)

            def call():
                x = gb.Vector.from_dense(np.ones(n))
                for _ in range(5):
                    total = x.reduce().new().value
                    x = (M.mxv(x, gb.semiring.plus_second).new() / total).new()

            self.call = call
        self.call()

    def time_products(self, n, engine):
        self.call()


def _object_path(ds):
    """Before batches were arrays: a validated PowerInvariants per graph, stacked again."""
    batch = gi.batch_power_invariants(ds)
    objects = [gi.PowerInvariants(m, c, int(n)) for m, c, n in zip(batch.means, batch.covariances, batch.n_nodes)]
    return (np.stack([o.mean for o in objects]), np.stack([o.covariance for o in objects]),
            np.array([o.ridge_scale() for o in objects]))


def _block_diag_path(ds):
    """Before: per-graph adjacencies joined again with scipy.sparse.block_diag."""
    matrices = [a.matrix for a in ds.adjacencies]
    offsets = np.concatenate(([0], np.cumsum([m.shape[0] for m in matrices])))
    return gi.batch_power_invariants(gi.GraphBatch(sp.csr_array(sp.block_diag(matrices, format="csr")), offsets))


class Batches:
    """Invariants of NCI1's 4,110 graphs: the batch path against the per-graph object path, ``block_diag`` of per-graph
    adjacencies, and from a list of scipy matrices against the floor graph by graph."""

    params, param_names = ["data set", "objects", "block_diag", "scipy list", "scipy list: floor per graph"], ["path"]

    def setup(self, path):
        ds = tu("NCI1")
        matrices = [a.matrix for a in ds.adjacencies]  # built once, as the old path cached them
        self.call = {"data set": lambda: gi.batch_power_invariants(ds), "objects": lambda: _object_path(ds),
                     "block_diag": lambda: _block_diag_path(ds),
                     "scipy list": lambda: gi.batch_power_invariants(matrices),
                     "scipy list: floor per graph": lambda: [floor_invariants(A) for A in matrices]}[path]

    def time_invariants(self, path):
        self.call()


class ClosedWalks:
    """Closed-walk counts at k = 8 (one thread): the closed and the open walk histogram of every graph, and
    ``closed_walk_counts`` against dense matrix powers (exact) on the five largest graphs and 50 at random."""

    params = (["NCI1", "DD", "REDDIT-BINARY"], ["closed histogram", "open histogram", "counts, largest",
                                                 "dense powers, largest", "counts, sample", "dense powers, sample"])
    param_names = ["data set", "method"]
    timeout = 600

    def setup(self, name, method):
        self.batch = batch = ClosedWalkHistogram(8).graph_batch(tu(name))
        sizes = batch.sizes
        graphs = (np.sort(np.argsort(sizes, kind="stable")[-5:]) if "largest" in method else
                  np.sort(np.random.default_rng(0).choice(len(sizes), size=min(50, len(sizes)), replace=False)))
        sub = batch.take(graphs)
        self.call = {"closed histogram": lambda: ClosedWalkHistogram(8).embed(batch),
                     "open histogram": lambda: WalkHistogram(8).embed(batch),
                     "counts": lambda: closed_walk_counts(sub.matrix, sub.offsets, 8),
                     "dense powers": lambda: self.dense_powers(graphs)}[method.split(",")[0]]

    def dense_powers(self, graphs):
        out = []
        for g in graphs:
            a, b = self.batch.offsets[g], self.batch.offsets[g + 1]
            A = self.batch.matrix[a:b][:, a:b].toarray()
            P, columns = A, [np.diag(A)]
            for _ in range(7):
                P = P @ A
                columns.append(np.diag(P))
            out.append(np.column_stack(columns).astype(np.int64))  # exact: the counts stay below 2**53
        return np.vstack(out)

    def time_counts(self, name, method):
        self.call()


class WalkCounts:
    """Walk counts that leave int64: base-2**31 digits against Python ints (the old object-array fallback), and the
    recommended fixed kernel on dense graphs."""

    params, param_names = ["digits", "python ints"], ["counts"]

    def setup(self, counts):
        self.G = nx.gnp_random_graph(2000, 0.5, seed=1)
        self.A = nx.to_scipy_sparse_array(self.G, format="csr")

    def time_counts_k9(self, counts):
        if counts == "digits":
            list(walk_count_columns(self.A, 9))
        else:
            x = np.ones(self.A.shape[0], dtype=object)
            for _ in range(9):
                products = x[self.A.indices]
                x = np.array([sum(products[a:b], 0) for a, b in zip(self.A.indptr[:-1], self.A.indptr[1:])],
                             dtype=object)

    def peakmem_recommended_dense(self, counts):
        gi.GraphKernel(kernel=RECOMMENDED).fit_transform([self.G, nx.complete_graph(120)])
