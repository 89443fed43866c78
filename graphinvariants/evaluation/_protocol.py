"""The paper's SVM evaluation protocol for any precomputed kernel matrix.

Protocol (Table 1 of the paper, following Kondor and Borgwardt 2008):

1. Split the data into ``n_folds`` (10) folds. For each fold in turn:
2. split the other 9 folds again into ``n_folds`` parts; train a C-SVM
   (``sklearn.svm.SVC(kernel="precomputed")``, i.e. libsvm) on 9 parts for each ``C``
   in ``C_grid`` (``1e-7 .. 1e7``) and measure accuracy on the 10th part;
3. retrain on all 9 folds with the best ``C`` and measure accuracy on the held-out fold.
4. Repeat everything ``n_repeats`` (10) times with new random partitions; report the
   mean accuracy and the standard error over the repetitions.

Choices the paper leaves open, fixed here:

* Folds are stratified by class (outer and inner splits), shuffled.
* Ties in validation accuracy go to the **smallest** tied C (the most regularised
  model) whose fit has a free dual coefficient (``|alpha_i| < C``); if no tied C has
  one, to the largest tied C. A C so small that every dual coefficient sits at its
  bound has no support vector on the margin, so its intercept is not fixed by the
  data: it can validate as well as any C on a balanced validation part and then
  predict the training part's majority class for every test graph (two classes of
  identical graphs, perfectly separable, scored 61.9 % that way on three folds when
  ties went to the smallest C outright).
* The standard error is the standard deviation (ddof=1) of the per-repetition mean
  accuracies divided by ``sqrt(n_repeats)``.
* Seeds: ``numpy.random.SeedSequence(seed).spawn(n_repeats)`` gives one independent
  stream per repetition, so repetition ``r`` is the same whatever ``n_jobs`` is and
  whether or not the run was resumed from a checkpoint.

Exact shortcut: if a fit leaves every dual coefficient strictly inside the box
(``|alpha_i| < C``), the same solution is optimal for every larger C, so those fits are
not run and their validation accuracy is copied. Nothing else is skipped, and
``shortcut=False`` runs every fit (the results are the same).
"""

import functools
import hashlib
import json
import numbers
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._utils.validation import check_int, check_n_jobs, check_seed_sequence, python_scalar
from ..graphs.batch import subset

__all__ = ["DEFAULT_ALPHA_GRID", "DEFAULT_C_GRID", "EvaluationResult", "RegressionResult", "evaluate_estimator",
           "evaluate_kernel"]

#: The paper's grid: 1e-7, 1e-6, ..., 1e7.
DEFAULT_C_GRID = tuple(10.0**e for e in range(-7, 8))

#: A dual coefficient counts as at the bound when it is within this fraction of C.
_BOUND_RTOL = 1e-8


class _OverRepetitions:
    """``mean`` and ``stderr`` of a result whose ``repetition_means`` are one figure per
    repetition (accuracy or RMSE)."""

    @property
    def mean(self):
        """Mean over all folds and repetitions (Python float)."""
        return float(self.repetition_means.mean())

    @property
    def stderr(self):
        """Standard error over repetitions (Python float; 0 for one repetition)."""
        reps = self.repetition_means
        return float(reps.std(ddof=1) / np.sqrt(reps.size)) if reps.size > 1 else 0.0


@dataclass
class EvaluationResult(_OverRepetitions):
    """Outcome of :func:`evaluate_kernel`.

    Attributes
    ----------
    accuracies : numpy.ndarray of shape (n_repeats, n_folds)
        Test accuracy of each outer fold.
    chosen_C : numpy.ndarray of shape (n_repeats, n_folds)
        C picked on the validation part.
    validation_accuracies : numpy.ndarray of shape (n_repeats, n_folds, len(C_grid))
    n_fits : int
        libsvm fits actually run (the shortcut avoids some).
    elapsed : float
        Wall-clock seconds spent on fits in this call (resumed tasks count 0).
    params : dict
        The protocol's parameters.
    n_resumed : int
        Outer folds taken from the checkpoint instead of being run.
    resumed_seconds : float
        Seconds the resumed folds took when they ran (recorded in the checkpoint; 0
        for a record written before seconds were recorded), so that
        ``elapsed + resumed_seconds`` is the time of the whole run.
    resumed_fits : int
        libsvm fits of the resumed folds (``n_fits + resumed_fits``: the whole run's).

    Examples
    --------
    >>> import numpy as np
    >>> import graphinvariants as gi
    >>> result = gi.EvaluationResult(np.array([[0.8, 0.9], [0.7, 0.8]]), np.ones((2, 2)),
    ...                              np.zeros((2, 2, 1)), n_fits=8, elapsed=0.1)
    >>> result.mean, round(result.stderr, 4)
    (0.8, 0.05)
    """

    accuracies: np.ndarray
    chosen_C: np.ndarray
    validation_accuracies: np.ndarray
    n_fits: int
    elapsed: float
    params: dict = field(default_factory=dict)
    n_resumed: int = 0
    resumed_seconds: float = 0.0
    resumed_fits: int = 0

    def __post_init__(self):
        for name in ("accuracies", "chosen_C", "validation_accuracies"):
            setattr(self, name, np.asarray(getattr(self, name), dtype=np.float64))

    def __eq__(self, other):
        if not isinstance(other, EvaluationResult):
            return NotImplemented
        arrays = ("accuracies", "chosen_C", "validation_accuracies")
        return all(np.array_equal(getattr(self, a), getattr(other, a)) for a in arrays) and (
            (self.n_fits, self.elapsed, self.params, self.n_resumed, self.resumed_seconds, self.resumed_fits)
            == (other.n_fits, other.elapsed, other.params, other.n_resumed, other.resumed_seconds,
                other.resumed_fits)
        )

    __hash__ = None

    @property
    def repetition_means(self):
        """Mean test accuracy of each repetition, shape (n_repeats,)."""
        return self.accuracies.mean(axis=1)

    def to_dict(self):
        """JSON-serialisable summary and per-fold details."""
        return {
            "mean_accuracy": self.mean,
            "stderr": self.stderr,
            "accuracies": self.accuracies.tolist(),
            "chosen_C": self.chosen_C.tolist(),
            "validation_accuracies": self.validation_accuracies.tolist(),
            "n_fits": self.n_fits,
            "n_resumed": self.n_resumed,
            "elapsed_seconds": self.elapsed,
            "resumed_seconds": self.resumed_seconds,
            "resumed_fits": self.resumed_fits,
            "params": self.params,
        }

    def __repr__(self):
        return (
            f"<EvaluationResult: accuracy {100 * self.mean:.2f} ({100 * self.stderr:.2f}) % over "
            f"{self.accuracies.shape[0]} x {self.accuracies.shape[1]} folds, {self.n_fits} fits>"
        )


# -- arguments -------------------------------------------------------------------------
def _check_kernel_and_labels(K, y):
    try:
        K = np.asarray(K, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise TypeError(f"K must be a numeric matrix: {err}") from None
    y = np.asarray(y)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square matrix, got shape {K.shape}")
    if y.shape != (K.shape[0],):
        raise ValueError(f"y must have shape ({K.shape[0]},), got {y.shape}")
    if not np.all(np.isfinite(K)):
        raise ValueError("K contains NaN or infinite values")
    scale = max(1.0, float(np.abs(K).max(initial=0.0)))
    asymmetry = float(np.abs(K - K.T).max(initial=0.0))
    if asymmetry > 1e-8 * scale:
        raise ValueError(f"K must be symmetric (a Gram matrix); max |K - K.T| = {asymmetry:.3g}")
    _check_class_labels(y)
    return K, y


def _check_class_labels(y):
    """Class labels: finite, comparable (all numbers or all strings), at least two classes."""
    if y.dtype.kind in "fc" and not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinite values")
    try:
        classes = np.unique(y)
    except TypeError:
        raise TypeError("class labels y must be all numbers or all strings (they cannot be sorted)") from None
    if len(classes) < 2:
        raise ValueError("y must hold at least two classes")


def _check_folds(y, n_folds, stratify):
    """``n_folds`` against the samples and, stratified, against the class sizes (a warning
    when the smallest class cannot be in every fold)."""
    n_folds = check_int(n_folds, "n_folds", minimum=2)
    if n_folds > len(y):
        raise ValueError(f"n_folds={n_folds} is larger than the number of samples, {len(y)}")
    if stratify:
        classes, class_sizes = np.unique(y, return_counts=True)
        if n_folds > class_sizes.max():
            raise ValueError(f"n_folds={n_folds}, but the largest class has {class_sizes.max()} graphs: stratified "
                             f"folds need n_folds at most that{_regression_hint(y)}")
    smallest_training_part = len(y) - -(-len(y) // n_folds)  # beside the largest test fold
    if smallest_training_part < n_folds:
        raise ValueError(f"n_folds={n_folds} leaves training parts of {smallest_training_part} of the {len(y)} samples, "
                         "too few for the inner split into n_folds parts that chooses the hyperparameter: use fewer")
    if stratify and n_folds > class_sizes.min():
        smallest = int(np.argmin(class_sizes))
        warnings.warn(f"class {python_scalar(classes[smallest])!r} has {class_sizes[smallest]} graphs, fewer than "
                      f"n_folds={n_folds}: some folds hold none of it", UserWarning, stacklevel=3)
    return n_folds


def _regression_hint(y, what="y"):
    """For class labels too few per class: a hint to read them as regression targets
    when they are numbers, many of them distinct (counts read as classes), else ''."""
    if y.dtype.kind not in "iuf":
        return ""
    n_classes = len(np.unique(y))
    if n_classes < 10 and n_classes <= len(y) // 2:
        return ""
    return (f"; {what} holds {n_classes} distinct numbers: if they are regression targets, say so with "
            "evaluate_estimator(graphs, y, task=\"regression\")")


def _check_inner_split(y_train, n_folds, stratify):
    """The inner split of an outer training part needs, stratified, a class of at least
    ``n_folds`` graphs there (scikit-learn's StratifiedKFold would refuse it)."""
    if stratify:
        largest = int(np.unique(y_train, return_counts=True)[1].max())
        if largest < n_folds:
            raise _FoldError(f"its training part's largest class has {largest} graphs, fewer than "
                             f"n_folds={n_folds} for the inner split that chooses the hyperparameter: "
                             f"use fewer folds{_regression_hint(y_train, 'that part')}")


def _check_C_grid(C_grid, name="C"):
    values = []
    for c in C_grid:
        if isinstance(c, bool) or not isinstance(c, numbers.Real) or not np.isfinite(c) or not 0 < c <= 1e10:
            raise ValueError(f"every {name} must be a finite number in (0, 1e10], got {c!r}")
        values.append(float(c))
    if not values:
        raise ValueError(f"{name}_grid must hold at least one value")
    return tuple(sorted(values))


# -- seeds and splits ------------------------------------------------------------------
def _splits(y, n_folds, stratify, seed):
    from sklearn.model_selection import KFold, StratifiedKFold

    splitter = StratifiedKFold if stratify else KFold
    return splitter(n_splits=n_folds, shuffle=True, random_state=seed)


def _task_seeds(root, n_repeats, n_folds):
    """Integer seeds: (outer seed per repetition, inner seed per repetition and fold)."""
    out = []
    for child in root.spawn(n_repeats):
        words = child.generate_state(1 + n_folds, dtype=np.uint32)
        out.append((int(words[0]), [int(w) for w in words[1:]]))
    return out


def _outer_folds(y, n_repeats, n_folds, stratify, root):
    """Every outer fold as ``(repeat, fold, train, test, inner_seed)``."""
    for r, (outer_seed, inner_seeds) in enumerate(_task_seeds(root, n_repeats, n_folds)):
        for f, (train, test) in enumerate(_splits(y, n_folds, stratify, outer_seed).split(np.zeros(len(y)), y)):
            yield r, f, train, test, inner_seeds[f]


# -- one outer fold --------------------------------------------------------------------
def _fit(K_train, y_train, C):
    from sklearn.svm import SVC

    return SVC(C=C, kernel="precomputed").fit(K_train, y_train)


def _validate_C(K_inner, y_inner, K_val, y_val, C_grid, shortcut):
    """Validation accuracy of every C, whether its fit has a free dual coefficient (one
    strictly inside its box, ``|alpha_i| < C``), and the number of fits run."""
    val_acc = np.empty(len(C_grid))
    free = np.empty(len(C_grid), dtype=bool)
    n_fits = 0
    done = 0
    while done < len(C_grid):
        C = C_grid[done]
        model = _fit(K_inner, y_inner, C)
        n_fits += 1
        val_acc[done] = np.mean(model.predict(K_val) == y_val)
        inside = np.abs(model.dual_coef_) < C * (1 - _BOUND_RTOL)
        free[done] = bool(inside.any())
        done += 1
        if shortcut and np.all(inside):
            val_acc[done:] = val_acc[done - 1]  # the same solution for every larger C
            free[done:] = True
            done = len(C_grid)
    return val_acc, free, n_fits


def _best_C_index(val_acc, free):
    """Position in the (increasing) C grid of the C chosen on the validation part.

    The best validation accuracy wins. Ties go to the smallest tied C whose fit has a
    free dual coefficient (``free``); when no tied C has one, to the largest tied C. A C
    that leaves every dual coefficient at its bound has no support vector on the
    margin: its intercept is not fixed by the data, and such a C can validate as well
    as any on a balanced validation part, then predict the training part's majority
    class for every test graph.

    Parameters
    ----------
    val_acc : array_like of shape (len(C_grid),)
        Validation accuracy of each C, in the grid's increasing order.
    free : array_like of bool, shape (len(C_grid),)
        Whether the fit at each C has a dual coefficient strictly inside its box.

    Returns
    -------
    int

    Examples
    --------
    >>> _best_C_index([0.5, 1.0, 1.0, 1.0], [False, False, True, True])
    2
    >>> _best_C_index([0.5, 1.0, 1.0, 0.9], [False, False, False, True])
    2
    """
    val_acc, free = np.asarray(val_acc), np.asarray(free, dtype=bool)
    tied = np.flatnonzero(val_acc == val_acc.max())
    with_free = tied[free[tied]]
    return int(with_free[0]) if with_free.size else int(tied[-1])


def _run_task(K, y, train, test, inner_seed, C_grid, n_folds, stratify, shortcut):
    """One outer fold: validate every C on an inner split, refit, test."""
    def matrices(rows, columns):  # the precomputed matrix, sliced
        return K[np.ix_(rows, rows)], K[np.ix_(columns, rows)]

    return _classification_outcome(matrices, y, train, test, inner_seed, C_grid, n_folds, stratify, shortcut)


def _classification_outcome(matrices, y, train, test, inner_seed, C_grid, n_folds, stratify, shortcut):
    """One outer fold of the C-SVM protocol; ``matrices(rows, columns)`` gives
    ``(K[rows, rows], K[columns, rows])``, once for the inner split (C is chosen
    without the fold's labels) and once for the fold."""
    _check_inner_split(y[train], n_folds, stratify)
    inner_train_pos, val_pos = next(_splits(y[train], n_folds, stratify, inner_seed).split(train, y[train]))
    inner_train, val = train[inner_train_pos], train[val_pos]
    for part, name in ((train, "training part"), (inner_train, "inner training part")):
        if len(np.unique(y[part])) < 2:
            raise _FoldError(f"its {name} holds only class {python_scalar(y[part][0])!r}; the other class is "
                             "too small for n_folds folds: use fewer")
    K_inner, K_val = matrices(inner_train, val)  # sliced once for all C
    val_acc, free, n_fits = _validate_C(K_inner, y[inner_train], K_val, y[val], C_grid, shortcut)
    best = _best_C_index(val_acc, free)
    K_train, K_test = matrices(train, test)
    model = _fit(K_train, y[train], C_grid[best])
    test_acc = float(np.mean(model.predict(K_test) == y[test]))
    return {"C": float(C_grid[best]), "val_acc": val_acc.tolist(), "test_acc": test_acc, "n_fits": n_fits + 1}


class _FoldError(ValueError):
    pass


# -- the protocol ----------------------------------------------------------------------
def evaluate_kernel(
    K,
    y,
    *,
    n_repeats=10,
    n_folds=10,
    C_grid=DEFAULT_C_GRID,
    stratify=True,
    seed=0,
    n_jobs=None,
    checkpoint=None,
    progress=False,
    shortcut=True,
):
    """Run the paper's C-SVM protocol on a precomputed kernel matrix.

    Parameters
    ----------
    K : array_like of shape (n_samples, n_samples)
        Symmetric kernel matrix (any kernel, so kernels can be compared on the same
        splits).
    y : array_like of shape (n_samples,)
        Class labels.
    n_repeats, n_folds : int, keyword-only
        Repetitions with new partitions (10) and folds (10).
    C_grid : sequence of float, keyword-only
        Candidate C values, tried in increasing order (default ``1e-7 .. 1e7``); each
        finite, in ``(0, 1e10]``. The best validation accuracy wins; ties go to the
        smallest tied C whose fit leaves some dual coefficient strictly inside its box
        (else to the largest tied C): a C so small that every coefficient is at its
        bound can validate as well as any and still predict the training part's
        majority class for every test graph.
    stratify : bool, keyword-only
        Stratify outer and inner folds by class (default True).
    seed : None, int or numpy.random.Generator, keyword-only
        Seed of the partitions; the same int gives the same result (default 0).
    n_jobs : int or None, keyword-only
        Worker threads over outer folds (libsvm releases the GIL; ``-1``: all cores).
        To spread the folds over processes or a Dask cluster, wrap the call in
        :func:`joblib.parallel_config`.
    checkpoint : str or path-like, optional
        JSON-lines file; each finished fold is appended, and a rerun with the same
        kernel, labels and parameters resumes where it stopped. Invalid records are
        skipped with a warning that names their lines.
    progress : bool, keyword-only
        Show a tqdm progress bar.
    shortcut : bool, keyword-only
        Skip the fits that the exact large-C shortcut makes redundant (default True;
        ``False`` runs all of them and gives the same result).

    Returns
    -------
    EvaluationResult

    Raises
    ------
    TypeError
        If class labels mix numbers and strings.
    ValueError
        If ``K`` is not square, symmetric and finite, does not match ``y``, ``y`` is
        not finite or holds a single class, ``n_folds`` is too large for the samples
        or (stratified) for the largest class, in the whole set or in an outer training
        part (which is split again into ``n_folds`` parts to choose ``C``), a ``C`` is
        not finite and positive, or the checkpoint belongs to another run.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(20)]
    >>> graphs += [nx.barabasi_albert_graph(30, 2, seed=i) for i in range(20)]
    >>> y = [0] * 20 + [1] * 20
    >>> result = gi.evaluate_kernel(gi.power_kernel_matrix(graphs), y, n_repeats=2, n_folds=5)
    >>> result.accuracies.shape
    (2, 5)
    >>> result.mean > 0.9
    True
    """
    K, y = _check_kernel_and_labels(K, y)
    n_repeats = check_int(n_repeats, "n_repeats", minimum=1)
    n_folds = _check_folds(y, n_folds, stratify)
    C_grid = _check_C_grid(C_grid)
    n_jobs = check_n_jobs(n_jobs)
    root = check_seed_sequence(seed)
    params = {
        "n_repeats": n_repeats, "n_folds": n_folds, "C_grid": list(C_grid),
        "stratify": bool(stratify), "seed": int(seed) if isinstance(seed, numbers.Integral) else None,
    }
    if params["seed"] is None:
        params["seed_entropy"] = str(root.entropy)
    fingerprint = _fingerprint(K, y, params)
    record_problem = functools.partial(_record_problem, n_repeats=n_repeats, n_folds=n_folds, C_grid=C_grid)
    done = _read_checkpoint(checkpoint, fingerprint, record_problem) if checkpoint else {}
    start = time.perf_counter()
    results = dict(done)
    with warnings.catch_warnings():  # said once above, not once per split
        warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
        tasks = [task for task in _outer_folds(y, n_repeats, n_folds, stratify, root) if task[:2] not in done]
        results.update(_run_folds(_run_task, (K, y), (C_grid, n_folds, stratify, shortcut), tasks, n_jobs,
                                  checkpoint, fingerprint, progress, n_repeats * n_folds, len(done)))
    elapsed = time.perf_counter() - start
    return _aggregate(results, done, n_repeats, n_folds, len(C_grid), elapsed, params)


def _positioned(r, f, run, *args):
    """``(r, f, outcome)``, ``outcome`` being ``run(*args)`` with the fold's ``seconds``
    added (kept in the checkpoint); a ValueError or TypeError raised there (the
    protocol's, or a kernel's own on that training part) names repetition ``r`` and
    outer fold ``f``."""
    start = time.perf_counter()
    try:
        outcome = run(*args)
    except (ValueError, TypeError) as err:
        if type(err) not in (ValueError, TypeError, _FoldError):  # a subclass may take other arguments
            raise
        kind = ValueError if type(err) is _FoldError else type(err)
        raise kind(f"repetition {r + 1}, outer fold {f + 1}: {err}") from None
    return r, f, {**outcome, "seconds": time.perf_counter() - start}


def _run_folds(run, data, options, tasks, n_jobs, checkpoint, fingerprint, progress, total, initial):
    """Run ``run(*data, train, test, inner_seed, *options)`` for every outer fold of
    ``tasks`` (threads), appending each outcome to the checkpoint as it finishes."""
    if not tasks:
        return {}
    from joblib import Parallel, delayed

    bar = None
    if progress:
        from .._utils.progress import progress_bar

        bar = progress_bar(True, total=total, initial=initial, desc="outer folds", unit="fold")
    parallel = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator_unordered")
    jobs = (delayed(_positioned)(r, f, run, *data, train, test, inner_seed, *options)
            for r, f, train, test, inner_seed in tasks)
    out = {}
    try:
        with _CheckpointWriter(checkpoint, fingerprint) as writer:
            for r, f, outcome in parallel(jobs):
                out[(r, f)] = outcome
                writer.write(r, f, outcome)
                if bar is not None:
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return out


def _aggregate(results, done, n_repeats, n_folds, n_C, elapsed, params):
    acc = np.empty((n_repeats, n_folds))
    chosen = np.empty((n_repeats, n_folds))
    val = np.empty((n_repeats, n_folds, n_C))
    n_fits = 0
    for (r, f), outcome in results.items():
        acc[r, f], chosen[r, f] = outcome["test_acc"], outcome["C"]
        val[r, f] = outcome["val_acc"]
        n_fits += outcome["n_fits"] if (r, f) not in done else 0
    return EvaluationResult(acc, chosen, val, n_fits, elapsed, params, n_resumed=len(done),
                            resumed_seconds=_resumed_seconds(done),
                            resumed_fits=sum(done[key]["n_fits"] for key in sorted(done)))


def _resumed_seconds(done):
    """Seconds recorded by the resumed folds, added in (repeat, fold) order."""
    return float(sum(float(done[key].get("seconds", 0.0)) for key in sorted(done)))


# -- checkpoints -----------------------------------------------------------------------
def _fingerprint(K, y, params):
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(K).tobytes())
    h.update(np.asarray(y).astype(str).astype("U").tobytes())
    h.update(json.dumps(params, sort_keys=True).encode())
    return h.hexdigest()


def _valid_fraction(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0.0 <= value <= 1.0


def _finite_nonnegative(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0.0 <= value < float("inf")


def _outcome_or_problem(record, n_repeats, n_folds, name, grid):
    """``(outcome, None)`` of a checkpoint record in place, or ``(None, why not)``: its
    position, its seconds, and its hyperparameter ``name`` in ``grid``."""
    if not isinstance(record, dict):
        return None, f"a record must be a JSON object, got {type(record).__name__}"
    for key in ("repeat", "fold"):
        value = record.get(key)
        limit = n_repeats if key == "repeat" else n_folds
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < limit:
            return None, f"{key} must be an integer in 0..{limit - 1}, got {value!r}"
    outcome = record.get("outcome")
    if not isinstance(outcome, dict):
        return None, "the record has no outcome"
    seconds = outcome.get("seconds", 0.0)  # absent from records written before it was kept
    if not _finite_nonnegative(seconds):
        return None, f"seconds must be a finite number >= 0, got {seconds!r}"
    if outcome.get(name) not in grid:
        return None, f"{name}={outcome.get(name)!r} is not in the grid"
    return outcome, None


def _record_problem(record, n_repeats, n_folds, C_grid):
    """Why a checkpoint record of a classification run cannot be used (None if it can)."""
    outcome, problem = _outcome_or_problem(record, n_repeats, n_folds, "C", C_grid)
    if problem:
        return problem
    val = outcome.get("val_acc")
    if not isinstance(val, list) or len(val) != len(C_grid) or not all(_valid_fraction(v) for v in val):
        return f"val_acc must be {len(C_grid)} accuracies in [0, 1]"
    if not _valid_fraction(outcome.get("test_acc")):
        return f"test_acc must be an accuracy in [0, 1], got {outcome.get('test_acc')!r}"
    n_fits = outcome.get("n_fits")
    if isinstance(n_fits, bool) or not isinstance(n_fits, int) or n_fits < 1:
        return f"n_fits must be a positive integer, got {n_fits!r}"
    return None


def _regression_record_problem(record, n_repeats, n_folds, alpha_grid):
    """Why a checkpoint record of a regression run cannot be used (None if it can)."""
    outcome, problem = _outcome_or_problem(record, n_repeats, n_folds, "alpha", alpha_grid)
    if problem:
        return problem
    if not _finite_nonnegative(outcome.get("rmse")):
        return f"rmse must be a finite number >= 0, got {outcome.get('rmse')!r}"
    return None


def _read_checkpoint(path, fingerprint, record_problem):
    """The outcomes of a checkpoint file by (repeat, fold); ``record_problem(record)``
    says why a record cannot be used (None if it can)."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"checkpoint {path} is a directory; give a file path, e.g. {path / 'checkpoint.jsonl'}")
    if not path.exists():
        return {}
    done, skipped = {}, []
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ValueError(f"checkpoint {path} cannot be read: {err}") from None
    # line by line: a write cut short may end inside a multi-byte character
    lines = [_decoded(line) for line in data.splitlines()]
    for number, line in enumerate(lines, 1):
        if line is not None and not line.strip():
            continue
        unreadable = "not UTF-8" if line is None else None
        if unreadable is None:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                unreadable = "not JSON"
        if unreadable:
            if number < len(lines):  # the last line may be a write cut short: it is redone
                skipped.append(f"line {number}: {unreadable}")
            continue
        if isinstance(record, dict) and "fingerprint" in record and record["fingerprint"] != fingerprint:
            held = _records_of(lines, record["fingerprint"])
            raise ValueError(
                f"{path}, line {number}: checkpoint of another run (graphs, kernel, labels or parameters "
                f"differ); it holds {held} finished fold{'s' if held != 1 else ''} of that run, kept as they "
                "are: give this run another checkpoint file"
            )
        problem = record_problem(record)
        if problem is None and record.get("fingerprint") != fingerprint:
            problem = "the record has no fingerprint"
        if problem:
            skipped.append(f"line {number}: {problem}")
            continue
        done[(record["repeat"], record["fold"])] = record["outcome"]
    if skipped:
        warnings.warn(
            f"checkpoint {path}: skipped {len(skipped)} invalid record(s), those folds are run again: "
            + "; ".join(skipped[:5]) + (" ..." if len(skipped) > 5 else ""),
            UserWarning,
            stacklevel=3,
        )
    return done


def _decoded(line):
    """A checkpoint line (bytes) as text, or None if it is not UTF-8."""
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _records_of(lines, fingerprint):
    """How many lines of a checkpoint are records of the run ``fingerprint``."""
    count = 0
    for line in lines:
        try:
            record = json.loads(line)
        except (TypeError, json.JSONDecodeError):  # TypeError: a line that is not UTF-8 (None)
            continue
        count += isinstance(record, dict) and record.get("fingerprint") == fingerprint
    return count


class _CheckpointWriter:
    def __init__(self, path, fingerprint):
        self.path = Path(path) if path else None
        self.fingerprint = fingerprint
        self.fh = None

    def __enter__(self):
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists() and self.path.stat().st_size:
                with self.path.open("rb+") as fh:  # drop a record cut short by an interruption
                    data = fh.read()
                    if not data.endswith(b"\n"):
                        fh.truncate(data.rfind(b"\n") + 1)
            self.fh = self.path.open("a")
        return self

    def write(self, r, f, outcome):
        if self.fh is not None:
            record = {"fingerprint": self.fingerprint, "repeat": r, "fold": f, "outcome": outcome}
            self.fh.write(json.dumps(record) + "\n")
            self.fh.flush()

    def __exit__(self, *exc):
        if self.fh is not None:
            self.fh.close()


# -- kernels that learn: fitted on each outer training fold ----------------------------
#: Ridge penalties tried for KernelRidge on the inner split: 1e-6, 1e-5, ..., 1e2.
DEFAULT_ALPHA_GRID = tuple(10.0**e for e in range(-6, 3))


@dataclass
class RegressionResult(_OverRepetitions):
    """Outcome of :func:`evaluate_estimator` for real-valued targets.

    Attributes
    ----------
    rmse : numpy.ndarray of shape (n_repeats, n_folds)
        Root mean squared error on each outer test fold.
    chosen_alpha : numpy.ndarray of shape (n_repeats, n_folds)
        Ridge penalty picked on the inner split.
    elapsed, params, n_resumed, resumed_seconds
        As in :class:`EvaluationResult` (there are no libsvm fits to count).

    Examples
    --------
    >>> import numpy as np
    >>> import graphinvariants as gi
    >>> result = gi.RegressionResult(np.array([[1.0, 2.0], [2.0, 3.0]]), np.ones((2, 2)), elapsed=0.1)
    >>> result.mean, result.stderr
    (2.0, 0.5)
    """

    rmse: np.ndarray
    chosen_alpha: np.ndarray
    elapsed: float
    params: dict = field(default_factory=dict)
    n_resumed: int = 0
    resumed_seconds: float = 0.0

    def __post_init__(self):
        self.rmse = np.asarray(self.rmse, dtype=np.float64)
        self.chosen_alpha = np.asarray(self.chosen_alpha, dtype=np.float64)

    def __eq__(self, other):
        if not isinstance(other, RegressionResult):
            return NotImplemented
        return (np.array_equal(self.rmse, other.rmse) and np.array_equal(self.chosen_alpha, other.chosen_alpha)
                and (self.elapsed, self.params, self.n_resumed, self.resumed_seconds)
                == (other.elapsed, other.params, other.n_resumed, other.resumed_seconds))

    __hash__ = None

    @property
    def repetition_means(self):
        """Mean test RMSE of each repetition, shape (n_repeats,)."""
        return self.rmse.mean(axis=1)

    def to_dict(self):
        """JSON-serialisable summary and per-fold details."""
        return {"mean_rmse": self.mean, "stderr": self.stderr, "rmse": self.rmse.tolist(),
                "chosen_alpha": self.chosen_alpha.tolist(), "n_resumed": self.n_resumed,
                "elapsed_seconds": self.elapsed, "resumed_seconds": self.resumed_seconds, "params": self.params}

    def __repr__(self):
        return (f"<RegressionResult: RMSE {self.mean:.3f} ({self.stderr:.3f}) over "
                f"{self.rmse.shape[0]} x {self.rmse.shape[1]} folds>")


def _reading_labels_as(kernel, task):
    """The learned default reading ``y`` as ``task`` says: left to ``task="auto"``, it
    would decide on each training part alone, and integer regression targets (counts)
    would be aligned as classes, a part of non-integer class labels as regression."""
    from ..estimator import GraphKernel
    from ..kernels.registry import LEARNED

    if isinstance(kernel, GraphKernel) and kernel.kernel == LEARNED and kernel.get_params().get("task", "auto") == "auto":
        from sklearn.base import clone

        return clone(kernel).set_params(task=task)
    return kernel


def _fold_matrices(kernel, graphs, y, train, test):
    """A fresh clone of ``kernel`` fitted on the training part only: (K_train, K_test).
    For the learned default, :class:`~graphinvariants.kernels.learned.folds.LearnedFolds`
    gives the same matrices from member Grams computed once."""
    from sklearn.base import clone

    from ..kernels.learned.folds import LearnedFolds

    if isinstance(kernel, LearnedFolds):
        K_train, K_test, _ = kernel.fit_part(y, train, test)
        return K_train, K_test
    model = clone(kernel)
    K_train = np.asarray(model.fit_transform(subset(graphs, train), y[train]), dtype=np.float64)
    K_test = np.asarray(model.transform(subset(graphs, test)), dtype=np.float64)
    return K_train, K_test


def _fresh_combination(kernel):
    """The combination a fresh clone of the learned default would fit."""
    from sklearn.base import clone

    return clone(kernel).learned_combination()


def _shared_member_grams(kernel, graphs):
    """For the learned default itself (not a subclass, which may fit otherwise), the
    folds fitted from member Grams computed once over all graphs; else ``kernel``."""
    from ..estimator import GraphKernel
    from ..kernels.learned.folds import LearnedFolds
    from ..kernels.registry import LEARNED

    if type(kernel) is GraphKernel and kernel.kernel == LEARNED:
        return LearnedFolds(graphs, functools.partial(_fresh_combination, kernel))
    return kernel




def _classification_fold(kernel, graphs, y, train, test, inner_seed, C_grid, n_folds, stratify, shortcut):
    def matrices(rows, columns):  # the kernel fitted on ``rows`` only
        return _fold_matrices(kernel, graphs, y, rows, columns)

    return _classification_outcome(matrices, y, train, test, inner_seed, C_grid, n_folds, stratify, shortcut)


def _ridge_predict(K_train, y_train, K_test, alpha):
    from sklearn.kernel_ridge import KernelRidge

    offset = y_train.mean()  # KernelRidge has no intercept
    model = KernelRidge(alpha=alpha, kernel="precomputed").fit(K_train, y_train - offset)
    return model.predict(K_test) + offset


def _regression_fold(kernel, graphs, y, train, test, inner_seed, alpha_grid, n_folds):
    inner_train_pos, val_pos = next(_splits(y[train], n_folds, False, inner_seed).split(train))
    inner_train, val = train[inner_train_pos], train[val_pos]
    K_inner, K_val = _fold_matrices(kernel, graphs, y, inner_train, val)
    errors = [float(np.sqrt(np.mean((_ridge_predict(K_inner, y[inner_train], K_val, a) - y[val]) ** 2)))
              for a in alpha_grid]
    best = int(np.argmin(errors))  # ties: smallest alpha
    K_train, K_test = _fold_matrices(kernel, graphs, y, train, test)
    prediction = _ridge_predict(K_train, y[train], K_test, alpha_grid[best])
    return {"alpha": float(alpha_grid[best]), "rmse": float(np.sqrt(np.mean((prediction - y[test]) ** 2)))}


def evaluate_estimator(
    graphs,
    y,
    *,
    kernel=None,
    task="auto",
    n_repeats=10,
    n_folds=10,
    C_grid=DEFAULT_C_GRID,
    alpha_grid=DEFAULT_ALPHA_GRID,
    stratify=True,
    seed=0,
    n_jobs=None,
    checkpoint=None,
    progress=False,
    shortcut=True,
):
    """The paper's protocol for a kernel that learns: fitted on each training part only.

    For every outer fold, a fresh clone of ``kernel`` is fitted on the outer training
    graphs and their labels (``fit_transform``) and gives the test graphs' matrix by
    ``transform``, so no test label reaches it. The hyperparameter is chosen on one
    inner split of the training part, with the kernel fitted again on the inner
    training part only. For :class:`~graphinvariants.GraphKernel` with its learned
    default, the parts share their member matrices: each member's Gram matrix over all
    graphs is computed once and sliced, and only what reads labels (the weights) is
    learned per part, with the matrices a fresh fit would give to the last bit
    (:class:`~graphinvariants.kernels.learned.folds.LearnedFolds`).
    Classification: C-SVM with ``C`` from ``C_grid``, accuracy
    (as :func:`evaluate_kernel`). Regression: KernelRidge (around the training mean)
    with ``alpha`` from ``alpha_grid``, RMSE; folds are not stratified.

    Parameters
    ----------
    graphs : sequence of graphs, TUDataset or GraphBatch
        Indexable: a TUDataset (or an array) is indexed with the fold's indices, a
        GraphBatch sliced with its ``take``, any other sequence read item by item.
    y : array_like of shape (n_graphs,)
        Class labels or real-valued targets.
    kernel : scikit-learn transformer, optional
        ``fit(graphs, y)`` / ``transform(graphs)`` giving kernel matrices; default
        :class:`~graphinvariants.GraphKernel` (the learned default).
    task : {"auto", "classification", "regression"}, keyword-only
        ``"auto"`` takes non-integer real ``y`` as regression, once for all of ``y``;
        the learned default left at ``task="auto"`` is given the same task, so that it
        reads every training part's labels as the protocol does.
    n_repeats, n_folds, C_grid, stratify, seed, shortcut
        As in :func:`evaluate_kernel`: every outer training part is split again into
        ``n_folds`` parts, so it needs at least ``n_folds`` graphs (stratified: a class
        of at least ``n_folds`` graphs).
    alpha_grid : sequence of float, keyword-only
        Ridge penalties for regression.
    n_jobs : int or None, keyword-only
        Worker threads over outer folds.
    checkpoint : str or path-like, optional
        JSON-lines file, as in :func:`evaluate_kernel`: each finished fold is appended,
        and a rerun with the same graphs, labels, kernel and parameters resumes where it
        stopped. The run is identified by what defines it: the graphs' content in a
        canonical form (nodes in stored order with their attributes, edges with theirs;
        a data set by its arrays), the labels, the protocol's parameters and the
        kernel's class and ``get_params`` (a Generator by its bit generator's state;
        a callable by its code, defaults, closure and the globals of its module it
        reads, not by its name), not by the objects' bytes: reading the graphs
        (NetworkX caches its views), indexing a data set again or passing ``list`` of
        it changes nothing (:func:`graphinvariants.graphs.identity.content_digest`).
    progress : bool, keyword-only
        Show a tqdm progress bar.

    Returns
    -------
    EvaluationResult or RegressionResult

    Raises
    ------
    TypeError
        If ``graphs`` is not indexable (a generator), or class labels mix numbers
        and strings.
    ValueError
        If ``y`` does not match ``graphs``, is not finite, holds a single class, or
        ``n_folds`` is too large for the samples or the classes.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(12)]
    >>> graphs += [nx.barabasi_albert_graph(30, 2, seed=i) for i in range(12)]
    >>> y = [0] * 12 + [1] * 12
    >>> result = gi.evaluate_estimator(graphs, y, n_repeats=1, n_folds=3)
    >>> result.accuracies.shape, result.mean > 0.9
    ((1, 3), True)
    """
    from .._utils.validation import check_choice
    from ..kernels.learned.alignment import read_targets

    if kernel is None:
        from ..estimator import GraphKernel

        kernel = GraphKernel()
    if isinstance(kernel, type):
        raise TypeError(f"kernel must be an instance, e.g. {kernel.__name__}(), not the class itself")
    if not (hasattr(kernel, "fit_transform") and hasattr(kernel, "transform") and hasattr(kernel, "get_params")):
        raise TypeError(f"kernel must be a scikit-learn transformer giving kernel matrices, got {kernel!r}")
    check_choice(task, "task", ("auto", "classification", "regression"))
    if not (hasattr(graphs, "__len__") and hasattr(graphs, "__getitem__")):
        raise TypeError(f"graphs must be an indexable sequence (a list, a TUDataset, a GraphBatch), got a "
                        f"{type(graphs).__name__}; wrap it in list(...)")
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != len(graphs):
        raise ValueError(f"y must have one label per graph, shape ({len(graphs)},), got {y.shape}")
    task, y = read_targets(y, task=task)
    if task == "classification":
        _check_class_labels(y)
    n_repeats = check_int(n_repeats, "n_repeats", minimum=1)
    n_folds = _check_folds(y, n_folds, stratify and task == "classification")
    n_jobs = check_n_jobs(n_jobs)
    root = check_seed_sequence(seed)
    params = {"n_repeats": n_repeats, "n_folds": n_folds, "task": task, "kernel": repr(kernel),
              "seed": int(seed) if isinstance(seed, numbers.Integral) else None}
    if params["seed"] is None:
        params["seed_entropy"] = str(root.entropy)
    if task == "regression":
        alpha_grid = _check_C_grid(alpha_grid, "alpha")
        params["alpha_grid"] = list(alpha_grid)
        record_problem = functools.partial(_regression_record_problem, n_repeats=n_repeats, n_folds=n_folds,
                                           alpha_grid=alpha_grid)
        run, options, stratify = _regression_fold, (alpha_grid, n_folds), False
    else:
        C_grid = _check_C_grid(C_grid)
        params.update({"C_grid": list(C_grid), "stratify": bool(stratify)})
        record_problem = functools.partial(_record_problem, n_repeats=n_repeats, n_folds=n_folds, C_grid=C_grid)
        run, options = _classification_fold, (C_grid, n_folds, stratify, shortcut)
    fingerprint = done = None
    if checkpoint is not None:
        fingerprint = _estimator_fingerprint(graphs, y, params, kernel)
        done = _read_checkpoint(checkpoint, fingerprint, record_problem)
    done = done or {}
    kernel = _reading_labels_as(kernel, task)
    start = time.perf_counter()
    results = dict(done)
    with warnings.catch_warnings():  # said once above, not once per split
        warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
        folds = [fold for fold in _outer_folds(y, n_repeats, n_folds, stratify, root) if fold[:2] not in done]
        if folds:
            kernel = _shared_member_grams(kernel, graphs)
        results.update(_run_folds(run, (kernel, graphs, y), options, folds, n_jobs, checkpoint, fingerprint,
                                  progress, n_repeats * n_folds, len(done)))
    elapsed = time.perf_counter() - start
    if task == "regression":
        rmse, alpha = np.empty((n_repeats, n_folds)), np.empty((n_repeats, n_folds))
        for (r, f), outcome in results.items():
            rmse[r, f], alpha[r, f] = outcome["rmse"], outcome["alpha"]
        return RegressionResult(rmse, alpha, elapsed, params, n_resumed=len(done),
                                resumed_seconds=_resumed_seconds(done))
    return _aggregate(results, done, n_repeats, n_folds, len(C_grid), elapsed, params)


def _estimator_fingerprint(graphs, y, params, kernel):
    """What identifies a run of :func:`evaluate_estimator`: the graphs' content, the
    labels, the protocol's parameters and the kernel (class and parameters), each in a
    canonical form (the kernel's repr may hold a memory address: not used)."""
    from ..graphs import GraphBatch
    from ..graphs.identity import content_digest

    protocol = {key: value for key, value in params.items() if key != "kernel"}
    if not (isinstance(getattr(graphs, "batch", None), GraphBatch) or isinstance(graphs, GraphBatch)):
        graphs = list(graphs[i] for i in range(len(graphs)))
    try:
        return content_digest(graphs, np.asarray(y), protocol, kernel, names=("graphs", "y", "parameters", "kernel"))
    except TypeError as err:
        raise TypeError(f"checkpoint= identifies the run by the graphs' content and the kernel's parameters, but "
                        f"{err}; run without a checkpoint") from None
