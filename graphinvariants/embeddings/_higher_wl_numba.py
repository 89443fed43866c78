"""Compiled inner sum of folklore 2-WL (numba, the ``[fast]`` extra).

:func:`pair_sums` gives, to the last bit, what the numpy path of
:mod:`graphinvariants.embeddings.higher_wl` computes in blocks (the same wrapping
uint64 operations in the same order within each sum; a sum of uint64 values modulo
``2**64`` does not depend on its order), in memory linear in the number of pairs asked
for instead of ``pairs x n``. The code is cached on disk (``cache=True``).
"""

import numpy as np
from numba import njit

__all__ = ["pair_sums"]


@njit(nogil=True, cache=True, inline="always")
def _mix(x):  # pragma: no cover (compiled)
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return x


@njit(nogil=True, cache=True)
def pair_sums(words, mixed, us, vs, odd):  # pragma: no cover (compiled)
    """``out[l, p] = sum_w mix(words[l, us[p], w] * odd[l] + mixed[l, w, vs[p]])``."""
    n_lanes, n, _ = words.shape
    out = np.zeros((n_lanes, len(us)), dtype=np.uint64)
    for lane in range(n_lanes):
        o = odd[lane]
        for p in range(len(us)):
            u, v = us[p], vs[p]
            s = np.uint64(0)
            for w in range(n):
                s += _mix(words[lane, u, w] * o + mixed[lane, w, v])
            out[lane, p] = s
    return out
