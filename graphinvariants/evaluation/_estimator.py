"""The paper's protocol for kernels that learn (:func:`evaluate_estimator`): a fresh
clone of the kernel fitted on each outer training part only, so that no test label
reaches it; classification by C-SVM (as :func:`~graphinvariants.evaluate_kernel`),
regression by kernel ridge regression around the training mean."""

import functools
import numbers
import time
import warnings

import numpy as np

from .._utils.validation import check_int, check_n_jobs, check_seed_sequence
from ..graphs.batch import subset
from ._protocol import (
    DEFAULT_C_GRID, check_class_labels, check_folds, check_grid, classification_outcome, outer_folds, splits,
)
from ._runs import (
    aggregate, classification_record_problem, read_checkpoint, recorded_seconds, regression_record_problem,
    run_folds,
)
from .results import RegressionResult

__all__ = ["DEFAULT_ALPHA_GRID", "evaluate_estimator"]


#: Ridge penalties tried for KernelRidge on the inner split: 1e-6, 1e-5, ..., 1e2.
DEFAULT_ALPHA_GRID = tuple(10.0**e for e in range(-6, 3))


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

    return classification_outcome(matrices, y, train, test, inner_seed, C_grid, n_folds, stratify, shortcut)


def _ridge_predict(K_train, y_train, K_test, alpha):
    from sklearn.kernel_ridge import KernelRidge

    offset = y_train.mean()  # KernelRidge has no intercept
    model = KernelRidge(alpha=alpha, kernel="precomputed").fit(K_train, y_train - offset)
    return model.predict(K_test) + offset


def _regression_fold(kernel, graphs, y, train, test, inner_seed, alpha_grid, n_folds):
    inner_train_pos, val_pos = next(splits(y[train], n_folds, False, inner_seed).split(train))
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
        check_class_labels(y)
    n_repeats = check_int(n_repeats, "n_repeats", minimum=1)
    n_folds = check_folds(y, n_folds, stratify and task == "classification")
    n_jobs = check_n_jobs(n_jobs)
    root = check_seed_sequence(seed)
    params = {"n_repeats": n_repeats, "n_folds": n_folds, "task": task, "kernel": repr(kernel),
              "seed": int(seed) if isinstance(seed, numbers.Integral) else None}
    if params["seed"] is None:
        params["seed_entropy"] = str(root.entropy)
    if task == "regression":
        alpha_grid = check_grid(alpha_grid, "alpha")
        params["alpha_grid"] = list(alpha_grid)
        record_problem = functools.partial(regression_record_problem, n_repeats=n_repeats, n_folds=n_folds,
                                           alpha_grid=alpha_grid)
        run, options, stratify = _regression_fold, (alpha_grid, n_folds), False
    else:
        C_grid = check_grid(C_grid)
        params.update({"C_grid": list(C_grid), "stratify": bool(stratify)})
        record_problem = functools.partial(classification_record_problem, n_repeats=n_repeats, n_folds=n_folds, C_grid=C_grid)
        run, options = _classification_fold, (C_grid, n_folds, stratify, shortcut)
    fingerprint = done = None
    if checkpoint is not None:
        fingerprint = _estimator_fingerprint(graphs, y, params, kernel)
        done = read_checkpoint(checkpoint, fingerprint, record_problem)
    done = done or {}
    kernel = _reading_labels_as(kernel, task)
    start = time.perf_counter()
    results = dict(done)
    with warnings.catch_warnings():  # said once above, not once per split
        warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
        folds = [fold for fold in outer_folds(y, n_repeats, n_folds, stratify, root) if fold[:2] not in done]
        if folds:
            kernel = _shared_member_grams(kernel, graphs)
        results.update(run_folds(run, (kernel, graphs, y), options, folds, n_jobs, checkpoint, fingerprint,
                                  progress, n_repeats * n_folds, len(done)))
    elapsed = time.perf_counter() - start
    if task == "regression":
        rmse, alpha = np.empty((n_repeats, n_folds)), np.empty((n_repeats, n_folds))
        for (r, f), outcome in results.items():
            rmse[r, f], alpha[r, f] = outcome["rmse"], outcome["alpha"]
        return RegressionResult(rmse, alpha, elapsed, params, n_resumed=len(done),
                                resumed_seconds=recorded_seconds(done))
    return aggregate(results, done, n_repeats, n_folds, len(C_grid), elapsed, params)


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
