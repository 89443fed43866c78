"""graphinvariants.perturbation: the study on the TU sets and one large network, against plain loops and the floor."""

import numpy as np
import scipy.sparse as sp

import graphinvariants as gi

from .common import csr, floor_invariants, random_edges, tu


def _straightforward(graphs, n_graphs, n_flips, seed):
    """NetworkX copies flipped one pair at a time and ``power_kernel`` called per step."""
    rng = np.random.default_rng(seed)
    for i in rng.choice(len(graphs), n_graphs, replace=False):
        G = graphs[i]
        H, nodes = G.copy(), list(G)
        for _ in range(n_flips):
            u, v = (nodes[j] for j in rng.choice(len(nodes), 2, replace=False))
            H.remove_edge(u, v) if H.has_edge(u, v) else H.add_edge(u, v)
            gi.power_kernel(G, H)


class Study:
    """The paper's study (100 graphs x 20 flips, k = 5) on MUTAG, ENZYMES, NCI1 and NCI109: ``perturbation_study``
    against the straightforward loop, data loaded."""

    params, param_names = ["perturbation_study", "straightforward"], ["method"]
    timeout = 600

    def setup(self, method):
        self.sets = [tu(name) for name in ("MUTAG", "ENZYMES", "NCI1", "NCI109")]

    def time_four_sets(self, method):
        for ds in self.sets:
            if method == "straightforward":
                _straightforward(ds.graphs, 100, 20, 0)
            else:
                gi.perturbation_study(ds, n_graphs=100, n_steps=20, seed=0)


class LargeNetwork:
    """The study on one large network: ``perturbation_study(G, n_sequences=3, n_steps=20)`` with each kind of update
    forced (``ball_fraction`` inf: incremental, 1e-9: full products for the balls, 0: from scratch) and the default,
    against one floor summary (target: a flip, a 60th of the study, at most 3x the floor); ``track_updates_*``: how the
    default's updates went."""

    params = ([10**5, 10**6], ["ba", "er", "grid"], ["default", "incremental", "products", "scratch", "floor"])
    param_names = ["nodes", "graph", "method"]
    timeout = 1800
    fractions = {"default": None, "incremental": float("inf"), "products": 1e-9, "scratch": 0.0}

    def setup(self, n, family, method):
        u, v = random_edges(family, n, 10, seed=0)
        self.A = csr(u, v, int(max(u.max(), v.max())) + 1)
        self.A32 = sp.csr_array((self.A.data, self.A.indices.astype(np.int32), self.A.indptr.astype(np.int32)),
                                shape=self.A.shape)
        fraction = self.fractions.get(method)
        self.options = {} if fraction is None else {"ball_fraction": fraction}

    def time_60_flips_or_one_floor(self, n, family, method):
        if method == "floor":
            floor_invariants(self.A32)
        else:
            gi.perturbation_study(self.A, n_sequences=3, n_steps=20, seed=0, **self.options)

    def updates(self, n, family, method, kind):
        if method != "default":
            return float("nan")  # the counts are the default's
        return gi.perturbation_study(self.A, n_sequences=3, n_steps=20, seed=0).params["updates"][kind]

    def track_updates_incremental(self, *args):
        return self.updates(*args, "incremental")

    def track_updates_products(self, *args):
        return self.updates(*args, "products")

    def track_updates_from_scratch(self, *args):
        return self.updates(*args, "from scratch")


class Protocol:
    """The paper's protocol, 100 sequences x 20 flips, on the 10^5-node graphs."""

    params, param_names = ["ba", "er", "grid"], ["graph"]
    timeout = 1800

    def setup(self, family):
        u, v = random_edges(family, 10**5, 10, seed=0)
        self.A = csr(u, v, int(max(u.max(), v.max())) + 1)

    def time_protocol(self, family):
        gi.perturbation_study(self.A, n_sequences=100, n_steps=20, seed=0)
