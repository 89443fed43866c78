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

import numpy as np

from .._utils.validation import check_int, check_n_jobs, check_seed_sequence, python_scalar
from ._runs import FoldError, aggregate, classification_record_problem, read_checkpoint, run_folds

__all__ = ["DEFAULT_C_GRID", "evaluate_kernel"]


#: The paper's grid: 1e-7, 1e-6, ..., 1e7.
DEFAULT_C_GRID = tuple(10.0**e for e in range(-7, 8))


#: A dual coefficient counts as at the bound when it is within this fraction of C.
_BOUND_RTOL = 1e-8


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
    check_class_labels(y)
    return K, y


def check_class_labels(y):
    """Class labels: finite, comparable (all numbers or all strings), at least two classes."""
    if y.dtype.kind in "fc" and not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinite values")
    try:
        classes = np.unique(y)
    except TypeError:
        raise TypeError("class labels y must be all numbers or all strings (they cannot be sorted)") from None
    if len(classes) < 2:
        raise ValueError("y must hold at least two classes")


def check_folds(y, n_folds, stratify):
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
            raise FoldError(f"its training part's largest class has {largest} graphs, fewer than "
                             f"n_folds={n_folds} for the inner split that chooses the hyperparameter: "
                             f"use fewer folds{_regression_hint(y_train, 'that part')}")


def check_grid(C_grid, name="C"):
    values = []
    for c in C_grid:
        if isinstance(c, bool) or not isinstance(c, numbers.Real) or not np.isfinite(c) or not 0 < c <= 1e10:
            raise ValueError(f"every {name} must be a finite number in (0, 1e10], got {c!r}")
        values.append(float(c))
    if not values:
        raise ValueError(f"{name}_grid must hold at least one value")
    return tuple(sorted(values))


# -- seeds and splits ------------------------------------------------------------------
def splits(y, n_folds, stratify, seed):
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


def outer_folds(y, n_repeats, n_folds, stratify, root):
    """Every outer fold as ``(repeat, fold, train, test, inner_seed)``."""
    for r, (outer_seed, inner_seeds) in enumerate(_task_seeds(root, n_repeats, n_folds)):
        for f, (train, test) in enumerate(splits(y, n_folds, stratify, outer_seed).split(np.zeros(len(y)), y)):
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

    return classification_outcome(matrices, y, train, test, inner_seed, C_grid, n_folds, stratify, shortcut)


def classification_outcome(matrices, y, train, test, inner_seed, C_grid, n_folds, stratify, shortcut):
    """One outer fold of the C-SVM protocol; ``matrices(rows, columns)`` gives
    ``(K[rows, rows], K[columns, rows])``, once for the inner split (C is chosen
    without the fold's labels) and once for the fold."""
    _check_inner_split(y[train], n_folds, stratify)
    inner_train_pos, val_pos = next(splits(y[train], n_folds, stratify, inner_seed).split(train, y[train]))
    inner_train, val = train[inner_train_pos], train[val_pos]
    for part, name in ((train, "training part"), (inner_train, "inner training part")):
        if len(np.unique(y[part])) < 2:
            raise FoldError(f"its {name} holds only class {python_scalar(y[part][0])!r}; the other class is "
                             "too small for n_folds folds: use fewer")
    K_inner, K_val = matrices(inner_train, val)  # sliced once for all C
    val_acc, free, n_fits = _validate_C(K_inner, y[inner_train], K_val, y[val], C_grid, shortcut)
    best = _best_C_index(val_acc, free)
    K_train, K_test = matrices(train, test)
    model = _fit(K_train, y[train], C_grid[best])
    test_acc = float(np.mean(model.predict(K_test) == y[test]))
    return {"C": float(C_grid[best]), "val_acc": val_acc.tolist(), "test_acc": test_acc, "n_fits": n_fits + 1}


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
    n_folds = check_folds(y, n_folds, stratify)
    C_grid = check_grid(C_grid)
    n_jobs = check_n_jobs(n_jobs)
    root = check_seed_sequence(seed)
    params = {
        "n_repeats": n_repeats, "n_folds": n_folds, "C_grid": list(C_grid),
        "stratify": bool(stratify), "seed": int(seed) if isinstance(seed, numbers.Integral) else None,
    }
    if params["seed"] is None:
        params["seed_entropy"] = str(root.entropy)
    fingerprint = _fingerprint(K, y, params)
    record_problem = functools.partial(classification_record_problem, n_repeats=n_repeats, n_folds=n_folds, C_grid=C_grid)
    done = read_checkpoint(checkpoint, fingerprint, record_problem) if checkpoint else {}
    start = time.perf_counter()
    results = dict(done)
    with warnings.catch_warnings():  # said once above, not once per split
        warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
        tasks = [task for task in outer_folds(y, n_repeats, n_folds, stratify, root) if task[:2] not in done]
        results.update(run_folds(_run_task, (K, y), (C_grid, n_folds, stratify, shortcut), tasks, n_jobs,
                                  checkpoint, fingerprint, progress, n_repeats * n_folds, len(done)))
    elapsed = time.perf_counter() - start
    return aggregate(results, done, n_repeats, n_folds, len(C_grid), elapsed, params)


def _fingerprint(K, y, params):
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(K).tobytes())
    h.update(np.asarray(y).astype(str).astype("U").tobytes())
    h.update(json.dumps(params, sort_keys=True).encode())
    return h.hexdigest()
