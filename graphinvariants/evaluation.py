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
* Ties in validation accuracy go to the **smallest** C (the most regularised model).
* The standard error is the standard deviation (ddof=1) of the per-repetition mean
  accuracies divided by ``sqrt(n_repeats)``.
* Seeds: ``numpy.random.SeedSequence(seed).spawn(n_repeats)`` gives one independent
  stream per repetition, so repetition ``r`` is the same whatever ``n_jobs`` is and
  whether or not the run was resumed from a checkpoint.

Exact shortcut: if a fit leaves every dual coefficient strictly inside the box
(``|alpha_i| < C``), the same solution is optimal for every larger C, so those fits are
not run and their validation accuracy is copied. Nothing else is skipped.
"""

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._validation import check_n_jobs

__all__ = ["DEFAULT_C_GRID", "EvaluationResult", "evaluate_kernel"]

#: The paper's grid: 1e-7, 1e-6, ..., 1e7.
DEFAULT_C_GRID = tuple(10.0**e for e in range(-7, 8))

#: A dual coefficient counts as at the bound when it is within this fraction of C.
_BOUND_RTOL = 1e-8
#: Tests switch the shortcut off to show that it changes no result.
_USE_SHORTCUT = True


@dataclass
class EvaluationResult:
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

    @property
    def repetition_means(self):
        """Mean test accuracy of each repetition, shape (n_repeats,)."""
        return self.accuracies.mean(axis=1)

    @property
    def mean(self):
        """Mean accuracy over all repetitions (Python float, a fraction in [0, 1])."""
        return float(self.repetition_means.mean())

    @property
    def stderr(self):
        """Standard error over repetitions (Python float; 0 for one repetition)."""
        reps = self.repetition_means
        return float(reps.std(ddof=1) / np.sqrt(reps.size)) if reps.size > 1 else 0.0

    def to_dict(self):
        """JSON-serialisable summary and per-fold details."""
        return {
            "mean_accuracy": self.mean,
            "stderr": self.stderr,
            "accuracies": self.accuracies.tolist(),
            "chosen_C": self.chosen_C.tolist(),
            "validation_accuracies": self.validation_accuracies.tolist(),
            "n_fits": self.n_fits,
            "elapsed_seconds": self.elapsed,
            "params": self.params,
        }

    def __repr__(self):
        return (
            f"<EvaluationResult: accuracy {100 * self.mean:.2f} ({100 * self.stderr:.2f}) % over "
            f"{self.accuracies.shape[0]} x {self.accuracies.shape[1]} folds, {self.n_fits} fits>"
        )


def _splits(y, n_folds, stratify, seed):
    from sklearn.model_selection import KFold, StratifiedKFold

    splitter = StratifiedKFold if stratify else KFold
    return splitter(n_splits=n_folds, shuffle=True, random_state=seed)


def _task_seeds(seed, n_repeats, n_folds):
    """Integer seeds: (outer seed per repetition, inner seed per repetition and fold)."""
    out = []
    for child in np.random.SeedSequence(seed).spawn(n_repeats):
        words = child.generate_state(1 + n_folds, dtype=np.uint32)
        out.append((int(words[0]), [int(w) for w in words[1:]]))
    return out


def _fit(K_train, y_train, C):
    from sklearn.svm import SVC

    return SVC(C=C, kernel="precomputed").fit(K_train, y_train)


def _run_task(K, y, train, test, inner_seed, C_grid, n_folds, stratify):
    """One outer fold: validate every C on an inner split, refit, test."""
    inner_train_pos, val_pos = next(_splits(y[train], n_folds, stratify, inner_seed).split(train, y[train]))
    inner_train, val = train[inner_train_pos], train[val_pos]
    K_inner, K_val = K[np.ix_(inner_train, inner_train)], K[np.ix_(val, inner_train)]  # sliced once for all C
    val_acc = np.empty(len(C_grid))
    n_fits = 0
    done = 0
    while done < len(C_grid):
        C = C_grid[done]
        model = _fit(K_inner, y[inner_train], C)
        n_fits += 1
        val_acc[done] = np.mean(model.predict(K_val) == y[val])
        done += 1
        if _USE_SHORTCUT and np.all(np.abs(model.dual_coef_) < C * (1 - _BOUND_RTOL)):
            val_acc[done:] = val_acc[done - 1]  # the same solution for every larger C
            done = len(C_grid)
    best = int(np.flatnonzero(val_acc == val_acc.max())[0])  # ties: smallest C
    model = _fit(K[np.ix_(train, train)], y[train], C_grid[best])
    n_fits += 1
    test_acc = float(np.mean(model.predict(K[np.ix_(test, train)]) == y[test]))
    return {"C": float(C_grid[best]), "val_acc": val_acc.tolist(), "test_acc": test_acc, "n_fits": n_fits}


def _fingerprint(K, y, params):
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(K).tobytes())
    h.update(np.asarray(y).astype(str).astype("U").tobytes())
    h.update(json.dumps(params, sort_keys=True).encode())
    return h.hexdigest()


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
        Candidate C values, tried in increasing order (default ``1e-7 .. 1e7``).
    stratify : bool, keyword-only
        Stratify outer and inner folds by class (default True).
    seed : int, keyword-only
        Seed of the partitions; the same seed gives the same result.
    n_jobs : int or None, keyword-only
        Parallel outer folds with joblib (``-1``: all cores).
    checkpoint : str or path-like, optional
        JSON-lines file; each finished fold is appended, and a rerun with the same
        kernel, labels and parameters resumes where it stopped.
    progress : bool, keyword-only
        Show a tqdm progress bar.

    Returns
    -------
    EvaluationResult

    Raises
    ------
    ValueError
        If ``K`` is not square, contains NaN/inf, or does not match ``y``, or the
        checkpoint belongs to another run.

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
    from joblib import Parallel, delayed

    K = np.asarray(K, dtype=np.float64)
    y = np.asarray(y)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square matrix, got shape {K.shape}")
    if y.shape != (K.shape[0],):
        raise ValueError(f"y must have shape ({K.shape[0]},), got {y.shape}")
    if not np.all(np.isfinite(K)):
        raise ValueError("K contains NaN or infinite values")
    C_grid = tuple(sorted(float(c) for c in C_grid))
    if not C_grid or C_grid[0] <= 0:
        raise ValueError("C_grid must hold positive values")
    n_jobs = check_n_jobs(n_jobs)
    params = {
        "n_repeats": int(n_repeats), "n_folds": int(n_folds), "C_grid": list(C_grid),
        "stratify": bool(stratify), "seed": int(seed),
    }
    fingerprint = _fingerprint(K, y, params)
    done = _read_checkpoint(checkpoint, fingerprint) if checkpoint else {}

    tasks = []
    for r, (outer_seed, inner_seeds) in enumerate(_task_seeds(seed, n_repeats, n_folds)):
        for f, (train, test) in enumerate(_splits(y, n_folds, stratify, outer_seed).split(K, y)):
            if (r, f) not in done:
                tasks.append((r, f, train, test, inner_seeds[f]))

    start = time.perf_counter()
    results = dict(done)
    if tasks:
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=n_repeats * n_folds, initial=len(done), desc="outer folds", unit="fold")
        parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
        jobs = (
            delayed(_tagged)(r, f, K, y, train, test, inner_seed, C_grid, n_folds, stratify)
            for r, f, train, test, inner_seed in tasks
        )
        with _CheckpointWriter(checkpoint, fingerprint) as writer:
            for r, f, outcome in parallel(jobs):
                results[(r, f)] = outcome
                writer.write(r, f, outcome)
                if bar is not None:
                    bar.update(1)
        if bar is not None:
            bar.close()
    elapsed = time.perf_counter() - start

    acc = np.empty((n_repeats, n_folds))
    chosen = np.empty((n_repeats, n_folds))
    val = np.empty((n_repeats, n_folds, len(C_grid)))
    n_fits = 0
    for (r, f), outcome in results.items():
        acc[r, f], chosen[r, f] = outcome["test_acc"], outcome["C"]
        val[r, f] = outcome["val_acc"]
        n_fits += outcome["n_fits"] if (r, f) not in done else 0
    return EvaluationResult(acc, chosen, val, n_fits, elapsed, params)


def _tagged(r, f, *args):
    return r, f, _run_task(*args)


def _read_checkpoint(path, fingerprint):
    path = Path(path)
    if not path.exists():
        return {}
    done = {}
    with path.open() as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by an interruption: that fold is redone
            if record.get("fingerprint") != fingerprint:
                raise ValueError(
                    f"{path}, line {number}: checkpoint of another run (kernel, labels or "
                    "parameters differ); use another file or delete it"
                )
            done[(record["repeat"], record["fold"])] = record["outcome"]
    return done


class _CheckpointWriter:
    def __init__(self, path, fingerprint):
        self.path = Path(path) if path else None
        self.fingerprint = fingerprint
        self.fh = None

    def __enter__(self):
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            cut_mid_line = False
            if self.path.exists() and self.path.stat().st_size:
                with self.path.open("rb") as fh:
                    fh.seek(-1, 2)
                    cut_mid_line = fh.read(1) != b"\n"
            self.fh = self.path.open("a")
            if cut_mid_line:  # an interrupted write: start the next record on its own line
                self.fh.write("\n")
        return self

    def write(self, r, f, outcome):
        if self.fh is not None:
            record = {"fingerprint": self.fingerprint, "repeat": r, "fold": f, "outcome": outcome}
            self.fh.write(json.dumps(record) + "\n")
            self.fh.flush()

    def __exit__(self, *exc):
        if self.fh is not None:
            self.fh.close()
