"""Bhattacharyya coefficients of many pairs of Gaussians at once (private).

Shared by the Gaussian functional (tiles of the pair engine) and nothing else. The
Cholesky factor of ``(Sigma_A + Sigma_B) / 2`` is written out entry by entry as numpy
operations on whole tiles, so there is no Python call per pair and memory stays
``O(tile * k^2)``.
"""

import numpy as np

__all__ = []


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
    # Cholesky factor L of the pair covariance, stored as inverse diagonal + lower part
    lower = [[None] * k for _ in range(k)]
    inv_diag = [None] * k
    det = None
    for j in range(k):
        for i in range(j, k):
            s = pair(half_a[:, i, j], half_b[:, i, j])
            for m in range(j):
                s -= lower[i][m] * lower[j][m]
            if i == j:
                np.maximum(s, 0.0, out=s)
                det = s.copy() if det is None else det * s
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
    with np.errstate(divide="ignore"):
        return np.log(det), maha


def combine(logdet_a, logdet_b, logdet_pair, maha):
    """K from its log-determinant and Mahalanobis parts; refuses to return NaN."""
    log_k = 0.25 * (logdet_a + logdet_b) - 0.5 * logdet_pair - 0.125 * maha
    out = np.exp(np.minimum(log_k, 0.0))
    if not np.all(np.isfinite(out)):
        raise ValueError("the kernel is not finite for some pairs: their covariances are numerically singular; increase ridge")
    return out
