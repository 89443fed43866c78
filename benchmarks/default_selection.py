"""Ways of choosing the learned default's combination, under the paper's protocol.

An experiment, kept to reproduce the table of the ways of choosing tried in
``docs/kernels.rst``: :class:`~graphinvariants.GraphKernel` weights its shaped candidate
kernels by ALIGNF (centred kernel alignment); this script compares that choice with other
ways of choosing the combination, all on the same splits. Run from the project root::

    python benchmarks/default_selection.py --datasets MUTAG BZR --reps 1 --c-grid short --anchors
    python benchmarks/default_selection.py --datasets MUTAG --reps 3 --strategies alignf alignf_K ridge_1 cv_P1

Every strategy is a transformer over graph indices fitted per fold, exactly as
``bench_default.py``'s :class:`FoldSlicedDefault`: each candidate member's matrix over the
whole data set is computed once (``member_grams`` of ``bench_default.py``; no label is
involved), ``fit(indices, y)`` learns from the training graphs only (subsampled to at most
1000 with ``numpy.random.default_rng(seed)``, as :meth:`LearnedCombination.fit` does) and
``transform`` slices the members' matrices against them. Accuracies come from
:func:`graphinvariants.evaluate_estimator` (C-SVM, ``--folds``-fold outer CV, C chosen on
an inner split where the strategy is fitted again, ``--reps`` repetitions); ``loo``
gives the numbers of ``bench_default.py``'s ``GraphKernel()`` row. ``--anchors`` adds its
WL label / WL degree / WL-OA rows.

Strategies (``--strategies``; "shapes" are K itself and the Gaussians
``exp(-(2 - 2K) / (s * median))``, s in 0.25, 1, 4, of every member and product):

* ``loo``: the library's default: ``alignf`` and ``alignf_K``, the one whose sum has the smaller
  leave-one-out error of kernel ridge regression on the training labels
  (``LearnedCombination(selection="loo")``).
* ``alignf``: ALIGNF over every shape of every member and product (the default before
  ``loo``; ``selection=None``).
* ``alignf_K``: ALIGNF over the kernels themselves only (no Gaussians).
* ``alignf_K_noprod``: as ``alignf_K`` without the products of :data:`PRODUCTS`.
* ``alignf_g1``, ``alignf_g4``: K and one Gaussian shape (s = 1, s = 4).
* ``align``, ``align_K``: weights proportional to each candidate's own alignment (every shape; K only).
* ``alignf_noattr``: ``alignf`` without the ``attributes`` member (and its product).
* ``ridge_<r>`` (e.g. ``ridge_0.1``): ALIGNF whose quadratic program has a ridge ``r`` (relative
  to the mean diagonal of M) instead of the library's 1e-10; ``ridge_1e-10`` is ``alignf``.
* ``offdiag``, ``offdiag_K``: ALIGNF with the diagonals of the centred matrices (candidates and
  target) set to 0, so alignment counts pairs of distinct graphs only.
* ``mix``, ``mix_K``: half the ALIGNF combination (every shape; K only), half the uniform mean.
* ``uniform``: the mean of the members (no weights learned).
* ``easymkl_<lam>``, ``easymklK_<lam>`` (e.g. ``easymkl_0.1``): EasyMKL (Aiolli and Donini,
  Neurocomputing 2015), a margin-based weighting: the distribution ``g`` over the training
  graphs of ``min (1 - lam) g' Y Kmean Y g + lam |g|^2`` (``g`` sums to 1 over each class;
  one class against the rest for more than two) weights each candidate by ``g' Y K Y g``
  (every shape; K only).
* ``Kattr``: ALIGNF over K of every candidate and Gaussians only for those involving ``attributes``.
* ``loo_easymkl``: as ``loo``, among ``alignf``, ``alignf_K`` and ``easymkl_0.1``.
* ``mix_easymkl``: half the default's combination (``loo``), half ``easymkl_0.1``.
* ``cv_P1``: 3-fold stratified SVM cross-validation on the (at most 1000) training sample
  choosing among ``alignf``, ``alignf_K`` and ``uniform`` (score: correct predictions pooled
  over the folds at the best C of the grid; ties to the first).
* ``fallback_<m>`` (e.g. ``fallback_1``): 5-fold cross-validation of the ALIGNF combination
  against each member alone; a member replaces it only when its mean fold gain exceeds ``m``
  standard errors of the paired fold differences (the largest such gain wins).

Results are printed (mean accuracy and standard error, as ``bench_default.py``) and appended
as JSON lines to ``--out``. ``--cache DIR`` keeps the member matrices between runs. BLAS runs
on one thread unless ``--blas-threads`` says otherwise: the alignment's products of small
matrices gain nothing from more, and on a loaded machine the extra threads made one fit of
the default 10 to 100 times slower.
"""

import argparse
import copy
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

# run as `python benchmarks/default_selection.py` from a checkout: that checkout's package,
# and bench_default.py next to this file
HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

import graphinvariants as gi  # noqa: E402
from bench_default import GRIDS, FoldSlicedDefault, _Shared, member_grams  # noqa: E402
from graphinvariants.kernels.alignment import (  # noqa: E402
    alignment_weights, center_gram, loo_ridge_error, target_gram)
from graphinvariants.kernels.learned import CANDIDATES, PRODUCTS, LearnedCombination  # noqa: E402

DEFAULT_BANDWIDTHS = (0.25, 1.0, 4.0)

#: Strategies with a fixed name (``ridge_<r>``, ``fallback_<m>``, ``easymkl_<lam>`` and
#: ``easymklK_<lam>`` take a number).
NAMED = ("loo", "alignf", "alignf_K", "alignf_K_noprod", "alignf_g1", "alignf_g4", "align", "align_K", "alignf_noattr",
         "offdiag", "offdiag_K", "mix", "mix_K", "uniform", "Kattr", "cv_P1", "loo_easymkl", "mix_easymkl")
DEFAULT_STRATEGIES = NAMED + ("ridge_0.01", "ridge_0.1", "ridge_1", "fallback_1")

#: The strategies that are options of LearnedCombination: name -> (options, offer PRODUCTS).
LEARNED_OPTIONS = {
    "loo": ({}, True),
    "alignf": ({"selection": None}, True),
    "alignf_K": ({"bandwidths": ()}, True),
    "alignf_K_noprod": ({"bandwidths": ()}, False),
    "alignf_g1": ({"bandwidths": (1.0,), "selection": None}, True),
    "alignf_g4": ({"bandwidths": (4.0,), "selection": None}, True),
    "align": ({"combination": "align", "selection": None}, True),
    "align_K": ({"combination": "align", "bandwidths": ()}, True),
}


# -- the weight solve ---------------------------------------------------------------------
def alignf_weights(shaped, y, *, ridge=1e-10, off_diagonal=False):
    """ALIGNF weights of the shaped candidate matrices, with a chosen ridge.

    The library's solve (``graphinvariants.kernels.alignment``), operation for operation,
    with two knobs: ``ridge`` (relative to the mean diagonal of ``M``; the library uses
    1e-10) and ``off_diagonal`` (zero the diagonal of every centred matrix, the target's
    too, before the inner products).

    Returns
    -------
    numpy.ndarray
        Non-negative weights summing to 1 (all on the best aligned candidate when none
        gets a positive weight, as the library does).
    """
    from scipy.linalg import cholesky, solve_triangular
    from scipy.optimize import nnls

    def centred(K):
        Kc = center_gram(K)
        if off_diagonal:
            np.fill_diagonal(Kc, 0.0)
        return Kc

    target = centred(target_gram(y))
    matrices = [centred(np.asarray(K, dtype=np.float64)) for K in shaped]
    p = len(matrices)
    M = np.empty((p, p))
    for k in range(p):
        for l in range(k + 1):
            M[k, l] = M[l, k] = np.vdot(matrices[k], matrices[l])
    norms = np.sqrt(np.diag(M))
    a = np.array([np.vdot(Kc, target) for Kc in matrices])
    alignments = np.divide(a, norms * np.linalg.norm(target), out=np.zeros_like(a), where=norms > 0)
    scale = float(np.mean(np.diag(M)))
    if scale > 0:
        R = cholesky(M / scale + ridge * np.eye(p), lower=False)
        v, _ = nnls(R, solve_triangular(R, a / scale, trans="T", lower=False), maxiter=50 * p)
    else:
        v = np.zeros(p)
    if not np.any(v > 0):
        v = np.zeros(p)
        v[int(np.argmax(alignments))] = 1.0
    return v / v.sum()


# -- combinations: learn_weights(grams, y) on the training sample, combine(grams) on any block
class ShapedAlignf:
    """ALIGNF over shaped candidates built here, with the knobs the library does not offer.

    The candidates are those of :class:`LearnedCombination`, in its order: every member,
    then every product of :data:`PRODUCTS` whose members are there, each as K and as the
    Gaussians ``exp(-(2 - 2K) / (s * median))`` with the median of the off-diagonal
    ``2 - 2K`` over the alignment sample.

    Parameters
    ----------
    bandwidths : tuple of float
        The Gaussian shapes ``s``.
    gauss_members : tuple of str or None
        Offer the Gaussian shapes only to candidates involving one of these members
        (None: to every candidate).
    ridge : float or None
        Ridge of the quadratic program (:func:`alignf_weights`); None: the library's
        :func:`~graphinvariants.kernels.alignment.alignment_weights`.
    off_diagonal : bool
        Align on the off-diagonal entries only (:func:`alignf_weights`).
    """

    def __init__(self, *, bandwidths=DEFAULT_BANDWIDTHS, gauss_members=None, ridge=None, off_diagonal=False):
        self.bandwidths = bandwidths
        self.gauss_members = gauss_members
        self.ridge = ridge
        self.off_diagonal = off_diagonal

    def _candidates(self, names):
        bases = [(name, (name,)) for name in names]
        bases += [(name, parts) for name, parts in PRODUCTS.items() if all(p in names for p in parts)]
        candidates = []
        for name, parts in bases:
            candidates.append((parts, None))
            if self.gauss_members is None or any(p in self.gauss_members for p in parts):
                candidates += [(parts, s) for s in self.bandwidths]
        return candidates

    def _shaped(self, grams, parts, bandwidth):
        K = grams[parts[0]]
        for part in parts[1:]:
            K = K * grams[part]
        if bandwidth is None:
            return K
        return np.exp(-np.clip(2.0 - 2.0 * K, 0.0, None) / (bandwidth * self.medians_[parts]))

    def shaped_candidates(self, grams):
        """``(candidates, matrices)``: every (parts, bandwidth) and its matrix over the
        training sample, the Gaussians' medians taken there (kept in ``medians_``)."""
        candidates = self._candidates(list(grams))
        self.medians_ = {}
        for parts in {parts for parts, bandwidth in candidates if bandwidth is not None}:
            K = self._shaped(grams, parts, None)
            d2 = np.clip(2.0 - 2.0 * K[~np.eye(K.shape[0], dtype=bool)], 0.0, None)
            median = float(np.median(d2)) if d2.size else 0.0
            self.medians_[parts] = median if median > 0 else 1.0
        return candidates, [self._shaped(grams, parts, bandwidth) for parts, bandwidth in candidates]

    def learn_weights(self, grams, y):
        """Learn the weights from the members' matrices of the training sample; returns self."""
        candidates, shaped = self.shaped_candidates(grams)
        if self.ridge is None and not self.off_diagonal:
            weights, _ = alignment_weights(shaped, y)
        else:
            weights = alignf_weights(shaped, y, ridge=1e-10 if self.ridge is None else self.ridge,
                                     off_diagonal=self.off_diagonal)
        self.chosen_ = [(parts, bandwidth, float(w)) for (parts, bandwidth), w in zip(candidates, weights) if w > 0]
        return self

    def combine(self, grams):
        """The weighted sum from the members' matrices (any block of rows and columns)."""
        out = None
        for parts, bandwidth, w in self.chosen_:
            term = w * self._shaped(grams, parts, bandwidth)
            out = term if out is None else out + term
        return out


def _project_simplex(v):
    """Euclidean projection of ``v`` onto the probability simplex (sort-based)."""
    u = np.sort(v)[::-1]
    cumulative = np.cumsum(u) - 1.0
    rho = np.flatnonzero(u - cumulative / np.arange(1, v.size + 1) > 0)[-1]
    return np.maximum(v - cumulative[rho] / (rho + 1), 0.0)


def easymkl_gamma(K, labels, *, lam, n_iter=2000, tol=1e-10):
    """EasyMKL's distribution over the examples of one binary task (Aiolli and Donini,
    Neurocomputing 2015): ``argmin (1 - lam) g' Y K Y g + lam |g|^2`` with ``g >= 0``
    summing to 1 over each class (``labels`` in {-1, +1}); accelerated projected gradient."""
    Q = (1.0 - lam) * (labels[:, None] * K * labels[None, :]) + lam * np.eye(len(labels))
    step = 1.0 / (2.0 * float(np.linalg.eigvalsh(Q)[-1]))
    positive, negative = labels > 0, labels < 0

    def project(g):
        out = np.empty_like(g)
        out[positive] = _project_simplex(g[positive])
        out[negative] = _project_simplex(g[negative])
        return out

    g = project(np.ones(len(labels)))
    z, t = g.copy(), 1.0
    for _ in range(n_iter):
        g_next = project(z - step * 2.0 * (Q @ z))
        t_next = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
        z = g_next + ((t - 1.0) / t_next) * (g_next - g)
        change = float(np.max(np.abs(g_next - g)))
        g, t = g_next, t_next
        if change < tol:
            break
    return g


class EasyMKL(ShapedAlignf):
    """EasyMKL weights of the shaped candidates (every shape, or K only with no bandwidths).

    Each candidate ``K_r`` gets ``d_r = g' Y K_r Y g``, ``g`` from :func:`easymkl_gamma` on
    the mean of the candidates; the weights are ``d / sum(d)``. More than two classes:
    one class against the rest, the normalised weights averaged over the classes.

    Parameters
    ----------
    lam : float
        EasyMKL's regularisation in [0, 1].
    bandwidths : tuple of float
    """

    def __init__(self, *, lam=0.1, bandwidths=DEFAULT_BANDWIDTHS):
        super().__init__(bandwidths=bandwidths)
        self.lam = lam

    def learn_weights(self, grams, y):
        """Learn the weights from the members' matrices of the training sample; returns self."""
        y = np.asarray(y)
        candidates, shaped = self.shaped_candidates(grams)
        mean = sum(shaped) / len(shaped)
        classes = np.unique(y)
        tasks = [classes[1]] if len(classes) == 2 else list(classes)
        weights = np.zeros(len(shaped))
        for positive in tasks:
            labels = np.where(y == positive, 1.0, -1.0)
            g = easymkl_gamma(mean, labels, lam=self.lam) * labels
            d = np.array([max(float(g @ K @ g), 0.0) for K in shaped])
            weights += d / d.sum()
        weights /= weights.sum()
        self.chosen_ = [(parts, bandwidth, float(w)) for (parts, bandwidth), w in zip(candidates, weights) if w > 0]
        return self


class Uniform:
    """The mean of the members' matrices (nothing learned from the labels)."""

    def learn_weights(self, grams, y):
        self.names_ = list(grams)
        return self

    def combine(self, grams):
        return sum(grams[name] for name in self.names_) / len(self.names_)


class Single:
    """One member's matrix.

    Parameters
    ----------
    name : str
        A member of :data:`CANDIDATES`.
    """

    def __init__(self, name):
        self.name = name

    def learn_weights(self, grams, y):
        return self

    def combine(self, grams):
        return grams[self.name]


class Mixture:
    """``weight * first + (1 - weight) * second``, both learned on the same sample.

    Parameters
    ----------
    first, second : combination
        Objects with ``learn_weights(grams, y)`` and ``combine(grams)``
        (:class:`LearnedCombination` is one).
    weight : float
    """

    def __init__(self, first, second, weight=0.5):
        self.first = first
        self.second = second
        self.weight = weight

    def learn_weights(self, grams, y):
        self.first_ = copy.deepcopy(self.first).learn_weights(grams, y)
        self.second_ = copy.deepcopy(self.second).learn_weights(grams, y)
        return self

    def combine(self, grams):
        return self.weight * self.first_.combine(grams) + (1 - self.weight) * self.second_.combine(grams)


class LooChoice:
    """The pool entry whose combination has the smallest leave-one-out error of kernel
    ridge regression on the training labels (the library's ``loo_ridge_error``), as
    ``selection="loo"`` does for its two weightings.

    Parameters
    ----------
    pool : tuple of (str, combination)
    log : ChoiceLog or None
    """

    def __init__(self, pool, *, log=None):
        self.pool = pool
        self.log = log

    def learn_weights(self, grams, y):
        fitted = [(name, copy.deepcopy(combination).learn_weights(grams, y)) for name, combination in self.pool]
        errors = [loo_ridge_error(combination.combine(grams), y) for _, combination in fitted]
        self.name_, self.chosen_ = fitted[int(np.argmin(errors))]
        if self.log is not None:
            self.log.record(self.name_)
        return self

    def combine(self, grams):
        return self.chosen_.combine(grams)


def fold_hits(combination, grams, y, *, n_folds, C_grid, seed):
    """Correct SVM predictions of ``combination`` learned per fold.

    Stratified ``n_folds``-fold split (shuffled with ``seed``) of the graphs of ``grams``
    (member name -> square matrix); the combination is learned on each training part.

    Returns
    -------
    hits : numpy.ndarray of int, shape (n_folds, len(C_grid))
        Correct predictions on each test part, for each C.
    sizes : numpy.ndarray of int, shape (n_folds,)
        Graphs in each test part.
    """
    folds = list(StratifiedKFold(n_folds, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))
    hits = np.zeros((n_folds, len(C_grid)), dtype=np.int64)
    for i, (train, test) in enumerate(folds):
        learned = copy.deepcopy(combination).learn_weights({n: K[np.ix_(train, train)] for n, K in grams.items()},
                                                           y[train])
        K_train = learned.combine({n: K[np.ix_(train, train)] for n, K in grams.items()})
        K_test = learned.combine({n: K[np.ix_(test, train)] for n, K in grams.items()})
        for j, C in enumerate(C_grid):
            model = SVC(C=C, kernel="precomputed").fit(K_train, y[train])
            hits[i, j] = int(np.sum(model.predict(K_test) == y[test]))
    return hits, np.array([len(test) for _, test in folds])


class _CrossValidated:
    """What the two cross-validated choices share: their folds, C grid, seed and log,
    and the combination they keep."""

    def __init__(self, *, n_folds, C_grid=GRIDS["short"], seed=0, log=None):
        self.n_folds = n_folds
        self.C_grid = C_grid
        self.seed = seed
        self.log = log

    def keep(self, name, combination, grams, y):
        self.name_ = name
        self.chosen_ = combination.learn_weights(grams, y)
        if self.log is not None:
            self.log.record(name)
        return self

    def combine(self, grams):
        return self.chosen_.combine(grams)


class CrossValidatedChoice(_CrossValidated):
    """The pool entry with the best cross-validated SVM accuracy, learned on the whole sample.

    Parameters
    ----------
    pool : tuple of (str, combination)
    n_folds : int
    C_grid : tuple of float
        Score: the best over C of the accuracy pooled over the folds; ties go to the
        first entry.
    seed : int
        Shuffles the folds.
    log : ChoiceLog or None
        Records the name chosen at every fit.
    """

    def __init__(self, pool, *, n_folds=3, C_grid=GRIDS["short"], seed=0, log=None):
        super().__init__(n_folds=n_folds, C_grid=C_grid, seed=seed, log=log)
        self.pool = pool

    def learn_weights(self, grams, y):
        y = np.asarray(y)
        scores = []
        for _, combination in self.pool:
            hits, _ = fold_hits(combination, grams, y, n_folds=self.n_folds, C_grid=self.C_grid, seed=self.seed)
            scores.append(int(hits.sum(axis=0).max()))  # correct predictions at the best C: exact ties
        best = int(np.argmax(scores))
        return self.keep(self.pool[best][0], copy.deepcopy(self.pool[best][1]), grams, y)


class FallbackChoice(_CrossValidated):
    """The ALIGNF combination, or a member alone when cross-validation clearly prefers it.

    Parameters
    ----------
    margin : float
        A member replaces the combination when its mean gain over the folds exceeds
        ``margin`` standard errors of the paired fold differences (each side at its best
        C); among such members the largest mean gain wins.
    n_folds, C_grid, seed, log
        As in :class:`CrossValidatedChoice`.
    """

    def __init__(self, margin=1.0, *, n_folds=5, C_grid=GRIDS["short"], seed=0, log=None):
        super().__init__(n_folds=n_folds, C_grid=C_grid, seed=seed, log=log)
        self.margin = margin

    def learn_weights(self, grams, y):
        y = np.asarray(y)
        protocol = dict(n_folds=self.n_folds, C_grid=self.C_grid, seed=self.seed)
        hits, sizes = fold_hits(LearnedCombination(selection=None), grams, y, **protocol)
        combined = hits / sizes[:, None]
        reference = combined[:, combined.mean(axis=0).argmax()]
        name_kept, chosen, best_gain = "alignf", LearnedCombination(selection=None), 0.0
        for name in grams:
            hits, _ = fold_hits(Single(name), grams, y, **protocol)
            accuracies = hits / sizes[:, None]
            difference = accuracies[:, accuracies.mean(axis=0).argmax()] - reference
            stderr = difference.std(ddof=1) / np.sqrt(len(difference)) if difference.std() > 0 else 0.0
            gain = float(difference.mean())
            if gain > self.margin * stderr and gain > best_gain:
                name_kept, chosen, best_gain = name, Single(name), gain
        return self.keep(name_kept, chosen, grams, y)


class ChoiceLog:
    """What the choosing strategies chose, over every fit (outer and inner training parts);
    shared by every clone, as ``bench_default.py``'s ``_Shared``."""

    def __init__(self):
        self.choices = Counter()

    def record(self, name):
        self.choices[name] += 1

    def __deepcopy__(self, memo):
        return self


class FoldSlicedCombination(FoldSlicedDefault):
    """A combination over precomputed member matrices; X are graph indices.

    :class:`FoldSlicedDefault` (whose ``transform`` it keeps) for any object with
    ``learn_weights(grams, y)`` and ``combine(grams)``.

    Parameters
    ----------
    shared : _Shared
        The members' matrices over the whole data set (``shared.grams``).
    combination : object
        Copied at every fit (the parameter itself is never changed).
    max_samples : int
        Learn on at most this many training graphs, drawn with ``seed``.
    seed : int
    """

    def __init__(self, shared=None, combination=None, max_samples=1000, seed=0):
        self.shared = shared
        self.combination = combination
        self.max_samples = max_samples
        self.seed = seed

    def fit(self, X, y):
        idx, y = np.asarray(X), np.asarray(y)
        if len(idx) > self.max_samples:
            rng = np.random.default_rng(self.seed)  # as LearnedCombination.fit (check_seed of an int)
            sample = np.sort(rng.choice(len(idx), size=self.max_samples, replace=False))
            align_idx, y_align = idx[sample], y[sample]
        else:
            align_idx, y_align = idx, y
        grams = {n: K[np.ix_(align_idx, align_idx)] for n, K in self.shared.grams.items()}
        self.combination_ = copy.deepcopy(self.combination).learn_weights(grams, y_align)
        self.train_ = idx
        return self


def make_kernel(strategy, grams, *, C_grid, seed, log):
    """The transformer over graph indices for ``strategy`` (see the module notes)."""
    shared = _Shared(grams)
    if strategy in LEARNED_OPTIONS:
        options, products = LEARNED_OPTIONS[strategy]
        return FoldSlicedDefault(shared, {**options, "seed": seed}, products)
    if strategy == "alignf_noattr":  # the default with the attributes matrix dropped
        return FoldSlicedDefault(_Shared({n: K for n, K in grams.items() if n != "attributes"}),
                                 {"seed": seed, "selection": None})
    if strategy.startswith("ridge_"):
        combination = ShapedAlignf(ridge=float(strategy.split("_", 1)[1]))
    elif strategy == "offdiag":
        combination = ShapedAlignf(off_diagonal=True)
    elif strategy == "offdiag_K":
        combination = ShapedAlignf(bandwidths=(), off_diagonal=True)
    elif strategy == "mix":
        combination = Mixture(LearnedCombination(selection=None), Uniform())
    elif strategy == "mix_K":
        combination = Mixture(LearnedCombination(bandwidths=()), Uniform())
    elif strategy == "uniform":
        combination = Uniform()
    elif strategy.startswith("easymkl"):
        lam = float(strategy.rsplit("_", 1)[1])
        combination = EasyMKL(lam=lam, bandwidths=() if strategy.startswith("easymklK") else DEFAULT_BANDWIDTHS)
    elif strategy == "Kattr":
        combination = ShapedAlignf(gauss_members=("attributes",))
    elif strategy == "cv_P1":
        pool = (("alignf", LearnedCombination(selection=None)), ("alignf_K", LearnedCombination(bandwidths=())),
                ("uniform", Uniform()))
        combination = CrossValidatedChoice(pool, n_folds=3, C_grid=C_grid, seed=seed, log=log)
    elif strategy == "mix_easymkl":
        combination = Mixture(LearnedCombination(), EasyMKL(lam=0.1))
    elif strategy == "loo_easymkl":
        pool = (("alignf", LearnedCombination(selection=None)), ("alignf_K", LearnedCombination(bandwidths=())),
                ("easymkl_0.1", EasyMKL(lam=0.1)))
        combination = LooChoice(pool, log=log)
    elif strategy.startswith("fallback_"):
        combination = FallbackChoice(float(strategy.split("_", 1)[1]), n_folds=5, C_grid=C_grid, seed=seed, log=log)
    else:
        raise ValueError(f"unknown strategy {strategy!r}; choose among {list(NAMED)}, ridge_<r>, fallback_<m>, "
                         "easymkl_<lam> or easymklK_<lam>")
    return FoldSlicedCombination(shared, combination, seed=seed)


def check_strategy(name):
    """argparse type: a known strategy name."""
    for prefix in ("ridge_", "fallback_", "easymkl_", "easymklK_"):
        if name.startswith(prefix):
            try:
                value = float(name[len(prefix):])
            except ValueError:
                raise argparse.ArgumentTypeError(f"{name!r}: {prefix}<number>, e.g. {prefix}1") from None
            if not np.isfinite(value) or value < 0:
                raise argparse.ArgumentTypeError(f"{name!r}: the number must be finite and >= 0")
            if prefix.startswith("easymkl") and value > 1:
                raise argparse.ArgumentTypeError(f"{name!r}: EasyMKL's lam must be in [0, 1]")
            return name
    if name not in NAMED:
        raise argparse.ArgumentTypeError(f"unknown strategy {name!r}; choose among {list(NAMED)}, ridge_<r>, "
                                         f"fallback_<m>, easymkl_<lam> or easymklK_<lam>")
    return name


def cached_member_grams(ds, cache):
    """``member_grams`` of ``bench_default.py``, kept in ``cache/NAME.npz`` when ``cache`` is
    given (recomputed when the members or their parameters differ from the stored ones)."""
    if cache is None:
        return member_grams(ds, {})[0]
    path = Path(cache) / f"{ds.name}.npz"
    spec = json.dumps({name: CANDIDATES[name][:2] for name in CANDIDATES}, sort_keys=True)
    if path.exists():
        with np.load(path) as stored:
            if str(stored["spec"]) == spec:
                return {name: stored[name] for name in stored["names"]}
    grams = member_grams(ds, {})[0]
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, spec=spec, names=np.array(list(grams)), **grams)
    return grams


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=["MUTAG", "BZR"])
    parser.add_argument("--strategies", nargs="+", type=check_strategy, default=list(DEFAULT_STRATEGIES))
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--c-grid", choices=sorted(GRIDS), default="short")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--anchors", action="store_true", help="also the WL label / WL degree / WL-OA rows")
    parser.add_argument("--data", default="/work/shared/data/TU")
    parser.add_argument("--cache", default=None, help="directory keeping the member matrices between runs")
    parser.add_argument("--out", default="results/default_selection/results.jsonl")
    parser.add_argument("--blas-threads", type=int, default=1,
                        help="BLAS threads (default 1: on a busy machine more only slow the small products down)")
    args = parser.parse_args()
    threadpool_limits(args.blas_threads, user_api="blas")
    C_grid = GRIDS[args.c_grid]
    protocol = dict(n_repeats=args.reps, n_folds=args.folds, C_grid=C_grid, seed=args.seed)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    print(f"{args.reps} x {args.folds}-fold C-SVM, C grid {args.c_grid} ({C_grid[0]:g} .. {C_grid[-1]:g}), "
          f"seed {args.seed}")
    for name in args.datasets:
        ds = gi.load_tu(name, data_home=args.data, download=False)
        grams = cached_member_grams(ds, args.cache)
        labelled = ds.batch.node_labels is not None
        print(f"\n{ds.name}: {len(ds)} graphs, members {', '.join(grams)}")
        rows = []

        def report(label, result, seconds, chosen=None):
            note = f"  chose {dict(chosen.most_common())}" if chosen else ""
            print(f"  {label:<28} {100 * result.mean:6.2f} ({100 * result.stderr:.2f})  {seconds:.0f} s{note}",
                  flush=True)
            rows.append({"dataset": ds.name, "strategy": label, "accuracy": round(100 * result.mean, 2),
                         "stderr": round(100 * result.stderr, 2), "reps": args.reps, "folds": args.folds,
                         "c_grid": args.c_grid, "seed": args.seed, "choices": dict(chosen) if chosen else None})

        if args.anchors:  # as bench_default.py
            anchors = ([("WL label", "wl_label")] if labelled else []) + [
                ("WL degree", "wl"), ("WL-OA", "wloa_label" if labelled else "wloa")]
            for label, member in anchors:
                start = time.perf_counter()
                report(label, gi.evaluate_kernel(grams[member], ds.y, **protocol), time.perf_counter() - start)
        index = np.arange(len(ds))
        for strategy in args.strategies:
            log = ChoiceLog()
            start = time.perf_counter()
            kernel = make_kernel(strategy, grams, C_grid=C_grid, seed=args.seed, log=log)
            result = gi.evaluate_estimator(index, ds.y, kernel=kernel, **protocol)
            report(strategy, result, time.perf_counter() - start, log.choices)
        with out.open("a") as fh:
            for row in rows:
                fh.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
