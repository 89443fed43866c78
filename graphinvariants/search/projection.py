"""Rows on their first singular directions, and a proven bound on their inner products.

For an orthonormal basis ``V`` of ``d`` directions, a row splits as ``x = V p_x + r_x``
with ``p_x = V^T x`` and the residual ``r_x`` orthogonal to the basis, so by
Cauchy-Schwarz

``<q, x> = <p_q, p_x> + <r_q, r_x> <= <p_q, p_x> + |r_q| |r_x|``,

and the squared distance ``|q|^2 + |x|^2 - 2 <q, x>`` is at least
``|p_q - p_x|^2 + (|r_q| - |r_x|)^2``: the distance of the ``(d + 1)``-vectors
``[p, |r|]``. A search that scores exactly only the rows whose bound beats the current
``k``-th distance skips the others with proof (:class:`~.exact.ExactIndex`); an
approximate one ranks candidates by the same vectors (:class:`~.approximate.ApproximateIndex`).

:class:`Projection` fits ``V`` on a sample of rows (the singular directions of the
sample, on the columns it holds) and maps rows to ``p`` (stored as float32) and an
upper bound on ``|r|`` that holds despite rounding (see :meth:`Projection.transform`);
:func:`rounding_margin` is what the float32 storage and the sums may move a bound by.
"""

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from .._utils.blas import one_blas_thread
from .._utils.validation import check_int

__all__ = ["DENSE_SVD_ENTRIES", "Projection", "rounding_margin"]

#: Entries of the sample (rows x columns it holds) up to which the basis is LAPACK's
#: full SVD of the dense sample (32 MiB); above, scikit-learn's randomised SVD.
DENSE_SVD_ENTRIES = 2**22

_EPS = np.finfo(np.float64).eps / 2  # float64's unit roundoff
_EPS32 = np.finfo(np.float32).eps / 2  # float32's


def rounding_margin(n_dims):
    """Relative error of a bound ``<p_q, p_x>`` computed from float32 projections.

    Each stored coordinate is within float32's unit roundoff ``u`` of its float64
    value, and a float32 product accumulates at most ``gamma_d = d u / (1 - d u)``
    relative to ``|p_q| |p_x|`` (at most ``|q| |x|``); doubled for safety. The caller
    subtracts ``2 * rounding_margin(d) * |q| |x|`` from a squared distance's bound.

    Examples
    --------
    >>> from graphinvariants.search.projection import rounding_margin
    >>> f"{rounding_margin(32):.1e}"
    '4.3e-06'
    """
    d = n_dims + 4
    return 2.0 * d * _EPS32 / (1 - d * _EPS32)


class Projection:
    """An orthonormal basis of ``n_dims`` singular directions of (a sample of) rows.

    Parameters
    ----------
    n_dims : int, keyword-only, default=32
        Directions kept (at most the sample's rows and held columns, less one).
    n_samples : int, keyword-only, default=8192
        Rows the basis is fitted on.

    Attributes
    ----------
    columns_ : numpy.ndarray of int64
        The columns the basis lives on (those two rows of the sample hold at least,
        or the one row's of a sample of one); zero elsewhere.
    components_ : numpy.ndarray of float64, shape (len(columns_), n_dims_)
        The basis, orthonormal columns (QR of the singular vectors).
    n_dims_ : int
        Directions kept (0: rows with nothing to project, every bound is Cauchy-Schwarz
        on the whole row).

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.search.projection import Projection
    >>> X = np.random.default_rng(0).random((200, 10))
    >>> projection = Projection(n_dims=4).fit(X, seed=np.random.default_rng(0))
    >>> own = (X * X).sum(axis=1)
    >>> P, residual = projection.transform(X, own)
    >>> P.shape, P.dtype.name
    ((200, 4), 'float32')
    >>> bool(np.all(residual**2 >= own - (P.astype(float)**2).sum(axis=1) - 1e-6))
    True
    """

    def __init__(self, *, n_dims=32, n_samples=8192):
        self.n_dims = n_dims
        self.n_samples = n_samples

    def fit(self, X, *, seed):
        """Fit the basis on a sample of the rows ``X`` (float64 CSR or 2-D array);
        ``seed``: a ``numpy.random.Generator`` (the caller's checked seed)."""
        n_dims = check_int(self.n_dims, "n_dims", minimum=0)
        n_samples = check_int(self.n_samples, "n_samples", minimum=1)
        n = X.shape[0]
        sample = np.sort(seed.choice(n, size=min(n, n_samples), replace=False)) if n else np.zeros(0, np.int64)
        S = X[sample]
        if sp.issparse(S):
            # the columns that two rows of the sample hold at least (a column one row
            # holds shapes no direction shared by rows; on distinct molecules they are
            # two thirds of the sample's columns, 256 bytes each in the basis)
            held = np.bincount(S.indices, minlength=S.shape[1])
            self.columns_ = np.flatnonzero(held >= min(2, S.shape[0])).astype(np.int64)
            S = sp.csr_array(S[:, self.columns_]) if len(self.columns_) else sp.csr_array((len(sample), 0))
        else:
            self.columns_ = np.arange(X.shape[1], dtype=np.int64)
        self._lookup = np.full(X.shape[1], -1, dtype=np.int32 if X.shape[1] < 2**31 else np.int64)  # 4 B a column
        self._lookup[self.columns_] = np.arange(len(self.columns_))
        dims = max(0, min(n_dims, S.shape[1] - 1, S.shape[0] - 1))
        if dims == 0:
            self.components_ = np.zeros((len(self.columns_), 0))
            self.n_dims_ = 0
            return self
        with one_blas_thread():
            if S.shape[0] * S.shape[1] <= DENSE_SVD_ENTRIES:
                dense = S.toarray() if sp.issparse(S) else S
                _, _, vt = scipy.linalg.svd(dense, full_matrices=False)
            else:
                from sklearn.utils.extmath import randomized_svd

                _, _, vt = randomized_svd(S, dims, n_oversamples=16, n_iter=4,
                                          random_state=int(seed.integers(2**31 - 1)))
            # orthonormal to float64's rounding (the bound assumes V^T V = I)
            basis, _ = np.linalg.qr(vt[:dims].T)
        self.components_ = np.ascontiguousarray(basis)
        self.n_dims_ = dims
        return self

    def transform(self, X, own):
        """``(P, residual)`` of rows ``X`` whose squared norms are ``own``.

        Returns
        -------
        P : numpy.ndarray of float32, shape (n, n_dims_)
            ``V^T x`` (computed in float64, stored as float32).
        residual : numpy.ndarray of float64, shape (n,)
            At least ``|r_x|``: ``sqrt(max(0, |x|^2 - |p_x|^2) + tau |x|^2)``, where
            ``tau = 16 (m + d + 8) d u`` for a row of ``m`` stored entries covers the
            float64 errors of ``|x|^2``, of ``p_x`` and of the basis' orthonormality
            (a few ``m u`` each), so the bound holds for the computed numbers.
        """
        n = X.shape[0]
        d = self.n_dims_
        if d == 0:
            P = np.zeros((n, 0))
        elif sp.issparse(X):
            from .rows import take_columns

            with one_blas_thread():
                P = take_columns(sp.csr_array(X), self._lookup, len(self.columns_)) @ self.components_
        else:
            with one_blas_thread():
                P = np.asarray(X, dtype=np.float64)[:, self.columns_] @ self.components_
        P = np.asarray(P, dtype=np.float64)
        entries = np.diff(X.indptr) if sp.issparse(X) else np.full(n, X.shape[1])
        tau = 16.0 * (entries + d + 8) * max(d, 1) * _EPS
        squares = np.zeros(n)
        for t in range(d):  # one column at a time: no temporary as large as P
            squares += P[:, t] * P[:, t]
        residual = np.sqrt(np.maximum(own - squares, 0.0) + tau * own)
        return np.ascontiguousarray(P, dtype=np.float32), residual
