"""graphinvariants.kernels.learned: the alignment step, the fit, and the memory of the training matrix."""

import contextlib

import numpy as np

import graphinvariants as gi
from graphinvariants.kernels import RECOMMENDED, pairwise_kernels
from graphinvariants.kernels.learned import _combination  # CANDIDATES, extended by NEW_CANDIDATES
from graphinvariants.kernels.learned import alignment

from .common import one_thread, tu

#: Candidates proposed for the learned default, measured against it (``Fit``'s new members,
#: ``accuracy.py default --new-members``); the form of CANDIDATES, those the library lacks skipped.
NEW_CANDIDATES = {"shortest_path": ("shortest_path", {}, ()),
                  "shortest_path_label": ("shortest_path", {}, ("node_label",)),
                  "rooted_subgraph": ("rooted_subgraph", {"radius": 2}, ()),
                  "rooted_subgraph_label": ("rooted_subgraph", {"radius": 2}, ("node_label",))}


@contextlib.contextmanager
def candidates(extended=True):
    """The learned default's CANDIDATES extended by NEW_CANDIDATES inside the block (if ``extended``)."""
    saved = _combination.CANDIDATES
    if extended:
        _combination.CANDIDATES = {**saved, **{n: c for n, c in NEW_CANDIDATES.items() if c[0] in gi.KERNELS}}
    try:
        yield
    finally:
        _combination.CANDIDATES = saved


def _pair_by_pair(grams, target):
    """Centre every matrix, then one ``np.vdot`` per pair (the straightforward ALIGNF inputs)."""
    centred = [alignment.center_gram(K) for K in grams]
    M = np.empty((len(centred), len(centred)))
    for k in range(len(centred)):
        for m in range(k + 1):
            M[k, m] = M[m, k] = np.vdot(centred[k], centred[m])
    return M, np.array([np.vdot(Kc, target) for Kc in centred])


class Alignment:
    """``M_kl = <K_k^c, K_l^c>_F`` for 64 candidate matrices of 1,000 graphs, one thread: row slices centred on the fly
    and stacked against pair by pair."""

    params, param_names = ["sliced", "pair by pair"], ["method"]

    def setup(self, method):
        rng = np.random.default_rng(0)
        features = rng.random((1000, 20))
        self.grams = []
        for _ in range(64):
            F = features[:, rng.permutation(20)[:5]]
            F /= np.linalg.norm(F, axis=1, keepdims=True)
            self.grams.append(F @ F.T)
        self.target = alignment.center_gram(alignment.target_gram(rng.integers(2, size=1000)))
        self.call = alignment._centred_inner_products if method == "sliced" else _pair_by_pair

    def time_inner_products(self, method):
        with one_thread():
            self.call(self.grams, self.target)

    def track_relative_difference(self, method):
        M = alignment._centred_inner_products(self.grams, self.target)[0]
        plain = _pair_by_pair(self.grams, self.target)[0]
        return float(np.max(np.abs(M - plain)) / np.max(np.abs(plain)))


class Fit:
    """``GraphKernel().fit`` and fit + training matrix against the matrix of ``RECOMMENDED`` (the fixed default before),
    same data; with the new members: the candidates NEW_CANDIDATES added."""

    params = (["MUTAG", "NCI1"], ["RECOMMENDED matrix", "GraphKernel().fit", "GraphKernel().fit_transform"],
              [False, True])
    param_names = ["data set", "call", "new members"]
    timeout = 600

    def setup(self, name, call, new_members):
        if new_members and call == "RECOMMENDED matrix":
            raise NotImplementedError("RECOMMENDED has no candidates")
        ds = tu(name)
        self.call = {"RECOMMENDED matrix": lambda: gi.kernel_matrix(ds, kernel=RECOMMENDED),
                     "GraphKernel().fit": lambda: gi.GraphKernel(seed=0).fit(ds, ds.y),
                     "GraphKernel().fit_transform": lambda: gi.GraphKernel(seed=0).fit_transform(ds, ds.y)}[call]

    def time_fit(self, name, call, new_members):
        with candidates(new_members):
            self.call()


def _whole_gram(combination):
    """The previous LearnedCombination.gram: whole member matrices, summed whole."""
    needed = {p for _, parts, _, _ in combination._chosen for p in parts}
    grams = {name: pairwise_kernels(combination.embeddings[name], functional=combination.functionals[name],
                                    n_jobs=combination.n_jobs) for name in needed}
    K = combination.combine(grams)
    del grams
    K = (K + K.T) / 2
    np.fill_diagonal(K, 1.0)
    return K


class TrainingMatrix:
    """Peak memory of the learned default's training matrix: NCI1 repeated to ``n`` graphs; built block by block within
    ``working_memory`` (the package) against every member's whole matrix summed whole (the previous path). Compare with
    the ``8 n^2`` bytes of the output; ``track_equal`` says whether both give the same bits."""

    params, param_names = ([4110, 12000, 20000], ["blockwise", "whole"]), ["graphs", "path"]
    timeout = 3600

    def setup(self, n, path):
        nci1 = tu("NCI1")
        index = np.arange(n) % len(nci1)
        self.graphs, self.y = nci1[index], nci1.y[index]

    def call(self, n, path):
        if path == "blockwise":
            return gi.GraphKernel(seed=0).fit_transform(self.graphs, self.y)
        return _whole_gram(gi.GraphKernel(seed=0).fit(self.graphs, self.y).combination_)

    def peakmem_training_matrix(self, n, path):
        self.call(n, path)

    def time_training_matrix(self, n, path):
        self.call(n, path)

    def track_equal(self, n, path):
        return int(np.array_equal(self.call(n, "blockwise"), self.call(n, "whole")))
