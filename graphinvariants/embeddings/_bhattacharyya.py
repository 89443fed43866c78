"""Bhattacharyya coefficients of many pairs of Gaussians at once (private).

Shared by the Gaussian functional (tiles of the pair engine) and nothing else.

For ``k <= UNROLL_MAX_K`` the Cholesky factor of ``(Sigma_A + Sigma_B) / 2`` is written
out entry by entry as numpy operations on whole tiles, so there is no Python call per
pair and memory stays ``O(tile * k^2)``. For larger ``k`` (where the unrolled form
would issue ``k^3 / 6`` numpy calls per tile) the factor comes from LAPACK on a stack
of matrices.

Log-determinants never over- or underflow: the pivots of each pair are divided by the
power of two nearest the pair's mean variance (an exact operation), multiplied in
groups of at most ``GROUP`` and the group products' logarithms added. A scaled pivot
lies between ``ridge / k`` and ``2 k`` (the ridge bounds the smallest eigenvalue), so a
product of eight of them stays far inside the float64 range for every ``k`` accepted;
a group that still leaves the range (possible only with ``ridge=0``) is redone with
one logarithm per pivot.
"""

import numpy as np

__all__ = []

#: Largest k for the unrolled Cholesky; above it, batched LAPACK.
UNROLL_MAX_K = 16
#: Pivots multiplied together before one logarithm is taken.
GROUP = 8
_LN2 = float(np.log(2.0))
_TINY, _HUGE = 1e-290, 1e290


def pair_terms(mean_a, half_a, mean_b, half_b, diagonal_only=False):
    """log|(Sa + Sb)/2| and the Mahalanobis term for all pairs of a tile.

    ``half_*`` are the halved covariances. With ``diagonal_only`` the pairs are
    ``(a_i, b_i)`` instead of the full tile.
    """
    k = mean_a.shape[1]
    if diagonal_only:
        def pair(x, y):
            return x + y
    else:
        def pair(x, y):
            return x[:, None] + y[None, :]
    # exponent of the power of two nearest trace(S) / k, per pair
    trace_a = np.trace(half_a, axis1=1, axis2=2)
    trace_b = np.trace(half_b, axis1=1, axis2=2)
    exponent = np.frexp(pair(trace_a, trace_b) / k)[1]
    scale = np.ldexp(1.0, -exponent)
    if k > UNROLL_MAX_K:
        pivots, maha = _lapack_terms(pair(half_a, half_b), pair(mean_a, -mean_b))
    else:
        pivots, maha = _unrolled_terms(mean_a, half_a, mean_b, half_b, pair, k)
    logdet = exponent * (k * _LN2)
    for start in range(0, k, GROUP):
        group = pivots[start : start + GROUP]
        product = group[0] * scale
        for p in group[1:]:
            product *= p * scale
        bad = ~((product > _TINY) & (product < _HUGE))
        with np.errstate(divide="ignore"):
            logs = np.log(product)
            if bad.any():  # only with ridge=0 and nearly singular pairs
                logs = np.where(bad, sum(np.log(p * scale) for p in group), logs)
        logdet = logdet + logs
    return logdet, maha


def _unrolled_terms(mean_a, half_a, mean_b, half_b, pair, k):
    """Cholesky pivots (list of k arrays) and Mahalanobis term, entry by entry."""
    lower = [[None] * k for _ in range(k)]
    inv_diag = [None] * k
    pivots = [None] * k
    for j in range(k):
        for i in range(j, k):
            s = pair(half_a[:, i, j], half_b[:, i, j])
            for m in range(j):
                s -= lower[i][m] * lower[j][m]
            if i == j:
                np.maximum(s, 0.0, out=s)
                pivots[j] = s
                with np.errstate(divide="ignore"):
                    inv_diag[j] = 1.0 / np.sqrt(s)
            else:
                s *= inv_diag[j]
                lower[i][j] = s
    maha = None
    solved = []
    for i in range(k):
        r = pair(mean_a[:, i], -mean_b[:, i])
        for m in range(i):
            r -= lower[i][m] * solved[m]
        r *= inv_diag[i]
        solved.append(r)
        maha = r * r if maha is None else maha + r * r
    return pivots, maha


def _lapack_terms(cov, diff):
    """Cholesky pivots and Mahalanobis term from LAPACK on a stack of matrices."""
    shape = cov.shape[:-2]
    k = cov.shape[-1]
    cov = cov.reshape(-1, k, k)
    diff = diff.reshape(-1, k)
    try:
        chol = np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        raise ValueError(
            "a pair covariance is not positive definite: the covariances are numerically "
            "singular; increase ridge"
        ) from None
    z = np.linalg.solve(chol, diff[..., None])[..., 0]
    diagonal = np.diagonal(chol, axis1=1, axis2=2)
    pivots = [(diagonal[:, j] ** 2).reshape(shape) for j in range(k)]
    return pivots, (z * z).sum(axis=1).reshape(shape)


def combine(logdet_a, logdet_b, logdet_pair, maha):
    """K from its log-determinant and Mahalanobis parts; refuses to return NaN."""
    log_k = 0.25 * (logdet_a + logdet_b) - 0.5 * logdet_pair - 0.125 * maha
    out = np.exp(np.minimum(log_k, 0.0))
    if not np.all(np.isfinite(out)):
        raise ValueError("the kernel is not finite for some pairs: their covariances are numerically singular; increase ridge")
    return out
