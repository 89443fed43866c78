"""Exact big integers as rows of int64 digits: the number format of walk counts.

A walk count may outgrow int64 (``119**9`` walks of length 9 start at a node of the
complete graph on 120 nodes). Such counts are held as digits ("limbs") in base
``2**31``, least significant first, one row per count: every digit is in ``[0, 2**31)``,
so a sparse product of a 0/1 adjacency with the digits is exact in int64, and one
carry pass (:func:`carry_limbs`) normalises the result. Equal counts have equal digit
rows, and digit rows compare (most significant digit first) as the counts do.

:mod:`graphinvariants.walks.counts` makes the digits; the embeddings that hash or
compare counts read them with the functions here.

Examples
--------
>>> import numpy as np
>>> from graphinvariants.walks._limbs import carry_limbs, limbs_to_float, limbs_to_ints, to_limbs
>>> digits = to_limbs(np.array([3, 2**40]))
>>> digits.tolist()
[[3, 0], [0, 512]]
>>> limbs_to_ints(digits).tolist()
[3, 1099511627776]
>>> big = carry_limbs(np.array([[2**61, 2**61]]))  # 2**61 + 2**61 * 2**31
>>> limbs_to_ints(big).tolist() == [2**61 + 2**92], limbs_to_float(big).tolist() == [float(2**61 + 2**92)]
(True, True)
"""

import numpy as np

__all__ = [
    "LIMB_BITS",
    "LIMB_MASK",
    "carry_limbs",
    "limbs_log1p",
    "limbs_to_float",
    "limbs_to_ints",
    "pad_limbs",
    "to_limbs",
    "trim_limbs",
]

#: Walk counts that may leave the int64 range are held as digits ("limbs") in base
#: ``2**LIMB_BITS``: a product of a digit and a row sum below ``2**31`` stays below
#: ``2**62``, so ``A @ digits`` is exact in int64 and one carry pass normalises it.
LIMB_BITS = 31
LIMB_MASK = (1 << LIMB_BITS) - 1


def to_limbs(values, n_limbs=None):
    """Base-``2**31`` digits (least significant first) of non-negative int64 values;
    ``n_limbs`` pads with leading zero digits (default: as few as the largest needs)."""
    values = np.asarray(values, dtype=np.int64)
    limbs = [values & LIMB_MASK, (values >> LIMB_BITS) & LIMB_MASK, values >> (2 * LIMB_BITS)]
    out = trim_limbs(np.stack(limbs, axis=-1))
    return out if n_limbs is None else pad_limbs(out, n_limbs)


def pad_limbs(limbs, n_limbs):
    """The digits with leading zero digits up to ``n_limbs`` (last axis)."""
    extra = n_limbs - limbs.shape[-1]
    if extra < 0:
        raise ValueError(f"cannot hold {limbs.shape[-1]} digits in {n_limbs}")
    if extra == 0:
        return limbs
    return np.concatenate((limbs, np.zeros(limbs.shape[:-1] + (extra,), np.int64)), axis=-1)


def limbs_to_ints(limbs):
    """Python ints (object array) of base-``2**31`` digit rows."""
    out = np.zeros(limbs.shape[0], dtype=object)
    for j in reversed(range(limbs.shape[1])):
        out = out * (1 << LIMB_BITS) + limbs[:, j].astype(object)
    return out


def _head(limbs):
    """``(head, shift)`` with ``float(head) * 2**shift`` the correctly rounded value.

    ``head`` holds the top 62 bits of each count (all of it below ``2**62``) with a
    sticky bit for any non-zero bit below them, so that the one rounding of the int64
    ``head`` to a double is the rounding of the count itself.
    """
    n, L = limbs.shape
    rows = np.arange(n)
    nonzero = limbs != 0
    top = np.where(nonzero.any(axis=1), L - 1 - np.argmax(nonzero[:, ::-1], axis=1), 0)
    bits = np.frexp(limbs[rows, top].astype(np.float64))[1].astype(np.int64)  # exact below 2**31
    shift = np.maximum(LIMB_BITS * top + bits - 62, 0)
    q, r = np.divmod(shift, LIMB_BITS)
    padded = pad_limbs(limbs, L + 2)
    head = (
        (padded[rows, q + 2] << (62 - r))
        | (padded[rows, q + 1] << (LIMB_BITS - r))
        | (padded[rows, q] >> r)
    )
    below = np.concatenate((np.zeros((n, 1), np.int64), np.cumsum(nonzero, axis=1)), axis=1)[rows, q] > 0
    sticky = ((padded[rows, q] & ((1 << r) - 1)) != 0) | below
    return head | sticky.astype(np.int64), shift


def limbs_to_float(limbs):
    """Each count of base-``2**31`` digit rows rounded once to the nearest double
    (``inf`` beyond the double range), as ``float(int)`` rounds."""
    head, shift = _head(limbs)
    with np.errstate(over="ignore"):
        return np.ldexp(head.astype(np.float64), shift)


def limbs_log1p(limbs):
    """``log(1 + count)`` of base-``2**31`` digit rows: :func:`numpy.log1p` of the
    correctly rounded double where that is finite; beyond the double range
    ``log(head) + shift * log(2)``, within a few units in the last place (the ``1 +``
    is below the last place there)."""
    head, shift = _head(limbs)
    with np.errstate(over="ignore"):
        values = np.ldexp(head.astype(np.float64), shift)
    out = np.log1p(values)
    huge = ~np.isfinite(values)
    if huge.any():
        out[huge] = np.log(head[huge].astype(np.float64)) + shift[huge] * np.log(2.0)
    return out


def trim_limbs(limbs):
    """Digits (last axis) without the leading digits that are zero everywhere (one kept)."""
    used = np.flatnonzero(limbs.reshape(-1, limbs.shape[-1]).any(axis=0))
    return limbs[..., : int(used[-1]) + 1 if used.size else 1]


def carry_limbs(sums):
    """Normalised base-``2**31`` digits (least significant first, leading zero digits
    dropped) of the values ``sum_j sums[:, j] * 2**(31 j)``, each entry of ``sums``
    non-negative and below ``2**62``."""
    n, L = sums.shape
    out = np.empty((n, L + 2), dtype=np.int64)
    carry = np.zeros(n, dtype=np.int64)
    for j in range(L + 2):
        value = sums[:, j] + carry if j < L else carry
        out[:, j] = value & LIMB_MASK
        carry = value >> LIMB_BITS
    return trim_limbs(out)
