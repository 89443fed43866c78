"""Centred kernel alignment: how well a kernel matrix agrees with the training labels.

Cortes, Mohri and Rostamizadeh, "Algorithms for Learning Kernels Based on Centered
Alignment", JMLR 13 (2012). With the centring matrix ``H = I - 11^T / n``, the centred
alignment of two Gram matrices is

    A(K, L) = <H K H, H L H>_F / (||H K H||_F ||H L H||_F),

a cosine between matrices in ``[-1, 1]``. The *target* Gram matrix of the labels is
``Y Y^T`` with ``Y`` the one-hot class indicators (classification, binary and
multiclass alike) or the standardised values (regression).

Two ways to weight candidate kernels ``K_1 .. K_p`` by it, both giving non-negative
weights that sum to 1 (so a weighted sum of unit-diagonal kernels keeps its unit
diagonal and stays positive semidefinite):

* ``"align"``: each weight proportional to the candidate's own alignment (negative
  alignments get weight 0);
* ``"alignf"``: the weights that maximise the alignment of the weighted sum, the
  non-negative quadratic program ``min_{v >= 0} v^T M v - 2 v^T a`` with
  ``M_kl = <K_k^c, K_l^c>_F`` and ``a_k = <K_k^c, Y Y^T>_F`` (Proposition 9 of the
  paper), solved as a non-negative least-squares problem through the Cholesky factor
  of ``M`` (:func:`scipy.optimize.nnls`); the weights are ``v / sum(v)``, which has
  the same alignment.
"""

import numbers

import numpy as np

from ..._utils.validation import check_choice, python_scalar

__all__ = ["alignment_weights", "centered_alignment", "loo_ridge_error", "read_targets", "target_gram"]

#: Ways of turning alignments into weights.
COMBINATIONS = ("align", "alignf")
#: Ridge penalties of :func:`loo_ridge_error`, multiples of the mean diagonal of K.
LOO_RIDGES = (1e-3, 1e-2, 1e-1, 1.0, 10.0)
TASKS = ("auto", "classification", "regression")


def center_gram(K):
    """``H K H`` for ``H = I - 11^T / n``: the Gram matrix of the centred features."""
    K = np.asarray(K, dtype=np.float64)
    row_means = K.mean(axis=0)
    return K - row_means[None, :] - row_means[:, None] + row_means.mean()


def read_targets(y, *, task="auto"):
    """``(task, y)``: how labels are read, and the labels as an array (float64 for
    regression), checked once for everything that reads them.

    ``"auto"`` takes non-integer real values as regression targets (scikit-learn's
    ``type_of_target`` says "continuous"), anything else as class labels.

    Raises
    ------
    ValueError
        If ``y`` holds NaN or infinite values, or regression targets are not numbers
        or are constant (equal to within :data:`CONSTANT_TOLERANCE` of their
        magnitude), or class labels are a single class: the one check of every
        entry point, before any graph is embedded.
    TypeError
        If class labels mix numbers and strings (they cannot be sorted).

    Examples
    --------
    >>> from graphinvariants.kernels.learned.alignment import read_targets
    >>> read_targets([0, 1, 1])[0], read_targets([0.5, 1.25, 3.0])[0]
    ('classification', 'regression')
    """
    check_choice(task, "task", TASKS)
    y = np.asarray(y)
    if y.dtype.kind in "fc" and not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinite values")
    if task != "regression" and y.dtype.kind == "O":
        try:  # class labels are sorted (np.unique) by whatever reads them
            np.unique(y)
        except TypeError:
            kinds = sorted({type(v).__name__ for v in y.ravel()})
            raise TypeError(f"class labels y must be all numbers or all strings (they cannot be sorted), got a mix "
                            f"of {', '.join(kinds)}") from None
    if task == "auto":
        from sklearn.utils.multiclass import type_of_target

        with np.errstate(invalid="ignore"):  # its cast of values beyond int64 to int, to spot non-integers
            task = "regression" if type_of_target(y) == "continuous" else "classification"
    if task == "regression":
        try:
            y = y.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError("regression targets y must be numbers") from None
        if not np.all(np.isfinite(y)):
            raise ValueError("regression targets y contain NaN or infinite values")
        _refuse_constant(y)
    elif y.size:
        classes = np.unique(y)
        if len(classes) < 2:
            raise ValueError(f"y holds a single class ({python_scalar(classes[0])!r}): there is nothing to align "
                             "with or to predict")
    return task, y


#: Regression targets whose range is at most this fraction of their largest magnitude
#: are constant: standardising them would divide rounding noise by rounding noise
#: (``np.std([0.3] * 20)`` is 5.6e-17, not 0).
CONSTANT_TOLERANCE = 1e-12


def _refuse_constant(y):
    """Refuse float64 regression targets equal to within :data:`CONSTANT_TOLERANCE`."""
    if y.size == 0:
        return
    with np.errstate(over="ignore"):
        spread = float(np.ptp(y))
    if spread <= CONSTANT_TOLERANCE * float(np.max(np.abs(y))):
        raise ValueError(f"regression targets y are constant ({python_scalar(y[0])!r}, equal to within "
                         f"{CONSTANT_TOLERANCE:g} of their magnitude): there is nothing to align with or "
                         "to predict")


def _target_columns(y, task):
    """``Y`` with ``Y Y^T`` the target of :func:`target_gram` (same checks)."""
    y = np.asarray(y)
    if y.ndim != 1 or y.size < 2:
        raise ValueError(f"y must be a 1-d array of at least two labels, got shape {y.shape}")
    task, y = read_targets(y, task=task)
    if task == "regression":
        with np.errstate(over="ignore"):
            spread = y.std()
        if not np.isfinite(spread):
            raise ValueError("regression targets y are too large to standardise (their spread overflows float64): "
                             "divide them by a common factor")
        if spread == 0:
            raise ValueError("regression targets y are constant: there is nothing to align with")
        return ((y - y.mean()) / spread)[:, None]
    try:
        classes, ids = np.unique(y, return_inverse=True)
    except TypeError:
        raise TypeError("class labels y must be all numbers or all strings (they cannot be sorted)") from None
    if len(classes) < 2:
        raise ValueError(f"y holds a single class ({python_scalar(classes[0])!r}): there is nothing to align with")
    onehot = np.zeros((y.size, len(classes)))
    onehot[np.arange(y.size), ids] = 1.0
    return onehot


def target_gram(y, *, task="auto"):
    """The Gram matrix of the labels that kernels are aligned with.

    Parameters
    ----------
    y : array_like of shape (n_samples,)
        Class labels (numbers or strings) or real-valued targets.
    task : {"auto", "classification", "regression"}, keyword-only
        ``"auto"`` reads real-valued, non-integer ``y`` as regression and anything
        else as class labels (:func:`sklearn.utils.multiclass.type_of_target`).

    Returns
    -------
    numpy.ndarray of shape (n_samples, n_samples)
        ``Y Y^T`` with one-hot ``Y`` for classes, ``z z^T`` with ``z`` the
        standardised targets for regression.

    Raises
    ------
    ValueError
        If ``y`` has a single class, is constant, or is not finite.

    Examples
    --------
    >>> from graphinvariants.kernels.learned.alignment import target_gram
    >>> target_gram(["a", "b", "a"])
    array([[1., 0., 1.],
           [0., 1., 0.],
           [1., 0., 1.]])
    >>> target_gram([1.0, 3.0], task="regression")
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    check_choice(task, "task", TASKS)
    Y = _target_columns(y, task)
    return Y @ Y.T


def centered_alignment(K, L):
    """Centred alignment of two Gram matrices, a Python float in ``[-1, 1]``.

    0 when either centred matrix is zero (a constant kernel aligns with nothing). The
    scales of ``K`` and ``L`` do not matter (none under- or overflows).

    Raises
    ------
    ValueError
        If ``K`` or ``L`` is not a finite square matrix, or their shapes differ.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.kernels.learned.alignment import centered_alignment, target_gram
    >>> L = target_gram([0, 0, 1, 1])
    >>> centered_alignment(L, L)
    1.0
    >>> centered_alignment(np.ones((4, 4)), L)
    0.0
    """
    K, L = _checked_gram(K, "K"), _checked_gram(L, "L")
    if K.shape != L.shape:
        raise ValueError(f"K and L must have the same shape, got {K.shape} and {L.shape}")
    Kc, Lc = center_gram(K), center_gram(L)
    k_max, l_max = np.abs(Kc).max(initial=0.0), np.abs(Lc).max(initial=0.0)
    if not (k_max > 0 and l_max > 0):
        return 0.0
    Kc, Lc = Kc / k_max, Lc / l_max  # a cosine does not see the scales; without them nothing under- or overflows
    cosine = float(np.sum(Kc * Lc) / (np.linalg.norm(Kc) * np.linalg.norm(Lc)))
    return min(1.0, max(-1.0, cosine))  # a cosine, also where rounding would leave [-1, 1]


def _checked_gram(K, name):
    """``K`` as a finite, square float64 matrix, or raise naming it."""
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {K.shape}")
    if not np.all(np.isfinite(K)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return K


def alignment_weights(grams, y, *, combination="alignf", task="auto"):
    """Non-negative weights summing to 1 for candidate Gram matrices, from the labels.

    Parameters
    ----------
    grams : sequence of array_like, each (n_samples, n_samples)
        The candidates' Gram matrices of the same training graphs.
    y : array_like of shape (n_samples,)
        Training labels or regression targets.
    combination : {"alignf", "align"}, keyword-only
        ``"alignf"`` maximises the alignment of the weighted sum; ``"align"`` weights
        each candidate by its own alignment (see the module notes).
    task : {"auto", "classification", "regression"}, keyword-only
        How ``y`` is read (:func:`target_gram`).

    Returns
    -------
    weights : numpy.ndarray of shape (len(grams),)
        Non-negative, summing to 1. When no candidate aligns positively, all the
        weight goes to the best aligned one.
    alignments : numpy.ndarray of shape (len(grams),)
        Each candidate's centred alignment with the labels.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.kernels.learned.alignment import alignment_weights, target_gram
    >>> y = [0, 0, 1, 1]
    >>> weights, alignments = alignment_weights([target_gram(y), np.eye(4)], y)
    >>> weights.round(6).tolist(), alignments.round(3).tolist()
    ([1.0, 0.0], [1.0, 0.577])
    """
    check_choice(combination, "combination", COMBINATIONS)
    if isinstance(grams, np.ndarray) and grams.ndim == 2:
        raise TypeError("grams must be a sequence of Gram matrices, got a single matrix; wrap it in a list")
    target = center_gram(target_gram(y, task=task))
    n = target.shape[0]
    stacked = isinstance(grams, np.ndarray) and grams.ndim == 3 and grams.dtype == np.float64
    checked = grams if stacked else []
    for i, K in enumerate(grams):
        K = np.asarray(K, dtype=np.float64)
        if K.shape != (n, n):
            raise ValueError(f"grams[{i}] has shape {K.shape}, but y has {n} labels")
        if not np.all(np.isfinite(K)):
            raise ValueError(f"grams[{i}] contains NaN or infinite values")
        if not stacked:
            checked.append(K)
    if not len(checked):
        raise ValueError("alignment_weights needs at least one candidate Gram matrix")
    with np.errstate(over="ignore", invalid="ignore"):  # refused just below, with a message
        M, a = _centred_inner_products(checked, target)
    if not (np.all(np.isfinite(M)) and np.all(np.isfinite(a))):
        raise ValueError("the candidates' centred inner products overflow float64: scale the Gram matrices down")
    norms = np.sqrt(np.diag(M))
    target_norm = np.linalg.norm(target)
    alignments = np.divide(a, norms * target_norm, out=np.zeros_like(a), where=norms > 0)
    if combination == "align":
        v = np.clip(alignments, 0.0, None)
    else:
        v = _alignf(M, a)
    if not np.any(v > 0):
        v = np.zeros(len(checked))
        v[int(np.argmax(alignments))] = 1.0
    return v / v.sum(), alignments


#: Entries of the block that :func:`_centred_inner_products` multiplies at once (32 MiB).
_BLOCK_ENTRIES = 2**22


def _centred_inner_products(grams, target):
    """``M_kl = <K_k^c, K_l^c>_F`` and ``a_k = <K_k^c, Y^c>_F`` (``target`` is ``Y^c``).

    ``grams``: a sequence of matrices, or a ``(p, n, n)`` array (centred with one call
    per operation for all of them, the same values). Row slices of every candidate are
    centred as :func:`center_gram` centres the whole matrix and stacked, as vectors, into one ``(p, m)`` block, whose products with itself
    and with the target's slice are matrix products. Every matrix is read once and no
    centred copy of a whole matrix is kept; inner products pair by pair would read each
    matrix ``p`` times (``benchmarks/benchmarks/learned.py`` (asv ``learned.Alignment``): 5 x faster on 64 of 1,000). The
    sums run in another order than pair by pair, so ``M`` agrees with those to rounding;
    it is made exactly symmetric.
    """
    p, n = len(grams), target.shape[0]
    stacked = isinstance(grams, np.ndarray) and grams.ndim == 3
    if stacked:  # the same sums, one call for every candidate
        col_means = grams.mean(axis=1)
        means = col_means.mean(axis=1)
    else:
        col_means = [K.mean(axis=0) for K in grams]
        means = [float(c.mean()) for c in col_means]
    rows = max(1, _BLOCK_ENTRIES // (p * n))
    block = np.empty((p, rows * n))
    M, a = np.zeros((p, p)), np.zeros(p)
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        width = (stop - start) * n
        if stacked:  # the same elementwise operations, one call for every candidate
            part = block[:, :width].reshape(p, stop - start, n)
            np.subtract(grams[:, start:stop], col_means[:, None, :], out=part)
            part -= col_means[:, start:stop, None]
            part += means[:, None, None]
        for k, K in enumerate(() if stacked else grams):
            part = block[k, :width].reshape(stop - start, n)
            np.subtract(K[start:stop], col_means[k][None, :], out=part)
            part -= col_means[k][start:stop, None]
            part += means[k]
        B = block[:, :width]
        M += B @ B.T
        a += B @ target[start:stop].reshape(-1)
    return (M + M.T) / 2, a


def loo_ridge_error(K, y, *, task="auto", ridges=LOO_RIDGES):
    """Leave-one-out squared error of kernel ridge regression on the labels, in closed form.

    The targets are the columns of ``Y`` (one-hot classes or the standardised values,
    as in :func:`target_gram`), centred on the training mean. For a ridge ``r``, with
    ``H = K (K + r m I)^{-1}`` (``m`` the mean diagonal of ``K``), the leave-one-out
    residual of graph ``i`` is ``(Y - H Y)_i / (1 - H_ii)`` (the hat-matrix identity of
    linear smoothers, which holds exactly for kernel ridge regression), so one
    eigendecomposition of ``K`` gives every graph's held-out prediction for every ridge.
    Unlike centred alignment, this prices a kernel's complexity: a nearly diagonal
    kernel fits each graph through itself and predicts its held-out graphs poorly.

    Parameters
    ----------
    K : array_like of shape (n_samples, n_samples)
        A symmetric positive semidefinite Gram matrix.
    y : array_like of shape (n_samples,)
        Class labels or real-valued targets.
    task : {"auto", "classification", "regression"}, keyword-only
        How ``y`` is read (:func:`target_gram`).
    ridges : sequence of float, keyword-only
        Ridge penalties tried, as multiples of the mean diagonal of ``K``.

    Returns
    -------
    float
        The smallest, over ``ridges``, mean squared leave-one-out residual per graph
        and target column.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.kernels.learned.alignment import loo_ridge_error, target_gram
    >>> y = [0, 0, 0, 1, 1, 1]
    >>> loo_ridge_error(target_gram(y), y) < loo_ridge_error(np.eye(6), y)
    True
    """
    check_choice(task, "task", TASKS)
    Y = _target_columns(y, task)
    K = np.asarray(K, dtype=np.float64)
    n = Y.shape[0]
    if K.shape != (n, n):
        raise ValueError(f"K has shape {K.shape}, but y has {n} labels")
    if not np.all(np.isfinite(K)):
        raise ValueError("K contains NaN or infinite values")
    ridges = tuple(float(r) for r in ridges)
    if not ridges or not all(np.isfinite(r) and r > 0 for r in ridges):
        raise ValueError(f"ridges must be finite positive numbers, got {ridges!r}")
    Y = Y - Y.mean(axis=0)
    values, vectors = np.linalg.eigh((K + K.T) / 2)
    values = np.clip(values, 0.0, None)  # a PSD matrix's rounding below zero
    projected = vectors.T @ Y
    scale = float(np.mean(np.diag(K))) or 1.0
    best = np.inf
    for r in ridges:
        shrink = values / (values + r * scale)
        fitted = vectors @ (shrink[:, None] * projected)
        leverage = np.einsum("ij,j,ij->i", vectors, shrink, vectors)
        residuals = (Y - fitted) / (1.0 - leverage)[:, None]
        best = min(best, float(np.mean(residuals**2)))
    return best


def _alignf(M, a):
    """argmin over v >= 0 of v^T M v - 2 v^T a, as NNLS on the Cholesky factor of M.

    With ``M = R^T R``: ``v^T M v - 2 v^T a = ||R v - R^{-T} a||^2 - const``. A ridge of
    1e-10 of M's mean diagonal makes M positive definite when candidates coincide
    (then the solution is any split between them; the ridge picks the even one).
    """
    from scipy.linalg import cholesky, solve_triangular
    from scipy.optimize import nnls

    scale = float(np.mean(np.diag(M)))
    if scale <= 0:
        return np.zeros(len(a))
    M = M / scale
    a = a / scale
    R = cholesky(M + 1e-10 * np.eye(len(a)), lower=False)
    b = solve_triangular(R, a, trans="T", lower=False)
    v, _ = nnls(R, b, maxiter=50 * len(a))
    return v


def check_max_samples(value):
    """``max_samples``: None or an integer >= 10."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 10:
        raise ValueError(f"max_samples must be None or an integer >= 10, got {value!r}")
    return int(value)
