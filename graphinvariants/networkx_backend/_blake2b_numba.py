"""BLAKE2b (RFC 7693, unkeyed) compiled over many messages at once (private; needs numba).

``hashlib.blake2b(message, digest_size=d).digest()`` for every message, each the
concatenation of strings of a table (:func:`hash_concatenations`), in one compiled
loop, the messages shared among threads by ``numba.prange``: each message is hashed on
its own, so the digests do not depend on the number of threads.
tests/networkx_backend/test_blake2b.py checks every digest size and message lengths
around the 128-byte block against :mod:`hashlib`.

Every call passes arrays of one type each (C-contiguous, writable), so that each
compiled function has one signature: numba's cache holds one entry for it, and an
installation compiles it once.
"""

import numba
import numpy as np

_IV = np.array([
    0x6A09E667F3BCC908, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B, 0xA54FF53A5F1D36F1,
    0x510E527FADE682D1, 0x9B05688C2B3E6C1F, 0x1F83D9ABFB41BD6B, 0x5BE0CD19137E2179,
], dtype=np.uint64)

_SIGMA = np.array([
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
], dtype=np.int64)


#: Messages per unit of work a thread takes.
_CHUNK = 1024


@numba.njit(cache=True)
def _rotr(x, n):  # pragma: no cover - compiled
    return (x >> np.uint64(n)) | (x << np.uint64(64 - n))


@numba.njit(cache=True)
def _mix(a, b, c, d, x, y):  # pragma: no cover - compiled
    a = a + b + x
    d = _rotr(d ^ a, 32)
    c = c + d
    b = _rotr(b ^ c, 24)
    a = a + b + y
    d = _rotr(d ^ a, 16)
    c = c + d
    b = _rotr(b ^ c, 63)
    return a, b, c, d


@numba.njit(cache=True, nogil=True)
def _compress(h, m, counter, last, iv, sigma):  # pragma: no cover - compiled
    v0, v1, v2, v3, v4, v5, v6, v7 = h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
    v8, v9, v10, v11 = iv[0], iv[1], iv[2], iv[3]
    v12 = iv[4] ^ np.uint64(counter)
    v13 = iv[5]
    v14 = ~iv[6] if last else iv[6]
    v15 = iv[7]
    # the 12 rounds unrolled, message words by SIGMA (kept in _SIGMA for reference)
    m0, m1, m2, m3, m4, m5, m6, m7 = m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7]
    m8, m9, m10, m11, m12, m13, m14, m15 = m[8], m[9], m[10], m[11], m[12], m[13], m[14], m[15]
    # round 0: SIGMA[0]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m0, m1)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m2, m3)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m4, m5)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m6, m7)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m8, m9)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m10, m11)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m12, m13)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m14, m15)
    # round 1: SIGMA[1]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m14, m10)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m4, m8)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m9, m15)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m13, m6)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m1, m12)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m0, m2)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m11, m7)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m5, m3)
    # round 2: SIGMA[2]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m11, m8)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m12, m0)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m5, m2)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m15, m13)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m10, m14)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m3, m6)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m7, m1)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m9, m4)
    # round 3: SIGMA[3]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m7, m9)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m3, m1)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m13, m12)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m11, m14)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m2, m6)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m5, m10)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m4, m0)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m15, m8)
    # round 4: SIGMA[4]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m9, m0)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m5, m7)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m2, m4)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m10, m15)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m14, m1)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m11, m12)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m6, m8)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m3, m13)
    # round 5: SIGMA[5]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m2, m12)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m6, m10)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m0, m11)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m8, m3)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m4, m13)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m7, m5)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m15, m14)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m1, m9)
    # round 6: SIGMA[6]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m12, m5)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m1, m15)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m14, m13)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m4, m10)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m0, m7)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m6, m3)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m9, m2)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m8, m11)
    # round 7: SIGMA[7]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m13, m11)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m7, m14)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m12, m1)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m3, m9)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m5, m0)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m15, m4)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m8, m6)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m2, m10)
    # round 8: SIGMA[8]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m6, m15)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m14, m9)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m11, m3)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m0, m8)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m12, m2)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m13, m7)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m1, m4)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m10, m5)
    # round 9: SIGMA[9]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m10, m2)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m8, m4)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m7, m6)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m1, m5)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m15, m11)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m9, m14)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m3, m12)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m13, m0)
    # round 10: SIGMA[0]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m0, m1)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m2, m3)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m4, m5)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m6, m7)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m8, m9)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m10, m11)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m12, m13)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m14, m15)
    # round 11: SIGMA[1]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m14, m10)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m4, m8)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m9, m15)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m13, m6)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m1, m12)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m0, m2)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m11, m7)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m5, m3)
    h[0] ^= v0 ^ v8
    h[1] ^= v1 ^ v9
    h[2] ^= v2 ^ v10
    h[3] ^= v3 ^ v11
    h[4] ^= v4 ^ v12
    h[5] ^= v5 ^ v13
    h[6] ^= v6 ^ v14
    h[7] ^= v7 ^ v15


@numba.njit(inline="always")
def _hash_parts_range(rows, words, lengths, parts, part_ptr, digest_size, out, iv, sigma, lo, hi):  # pragma: no cover
    """Messages ``lo:hi`` of :func:`blake2b_parts` (little-endian: a block's bytes are its
    words). A part whose length and place in the block are multiples of 8 is copied by
    8-byte words from ``words`` (``rows`` seen as uint64, or an empty array if its rows
    are not a whole number of words), any other byte by byte."""
    h = np.empty(8, dtype=np.uint64)
    m = np.zeros(16, dtype=np.uint64)
    block = m.view(np.uint8)
    by_words = words.shape[1] > 0
    for i in range(lo, hi):
        for w in range(8):
            h[w] = iv[w]
        h[0] ^= np.uint64(0x01010000) ^ np.uint64(digest_size)
        fill = 0
        counter = 0
        for q in range(part_ptr[i], part_ptr[i + 1]):
            r = parts[q]
            size = lengths[r]
            if by_words and (size & 7) == 0 and (fill & 7) == 0:
                for c in range(0, size, 8):
                    if fill == 128:  # a full block with more to come: not the last
                        counter += 128
                        _compress(h, m, counter, False, iv, sigma)
                        fill = 0
                    m[fill >> 3] = words[r, c >> 3]
                    fill += 8
            else:
                for c in range(size):
                    if fill == 128:
                        counter += 128
                        _compress(h, m, counter, False, iv, sigma)
                        fill = 0
                    block[fill] = rows[r, c]
                    fill += 1
        block[fill:] = 0
        _compress(h, m, counter + fill, True, iv, sigma)
        for b in range(digest_size):
            out[i, b] = np.uint8((h[b // 8] >> np.uint64(8 * (b % 8))) & np.uint64(0xFF))


@numba.njit(parallel=True, cache=True, nogil=True)
def blake2b_parts(rows, words, lengths, parts, part_ptr, digest_size, out, iv, sigma):  # pragma: no cover - compiled
    """``out[i]``: the BLAKE2b digest of the concatenation of strings
    ``parts[part_ptr[i]:part_ptr[i + 1]]`` of a table whose string ``r`` is
    ``rows[r, :lengths[r]]`` (``words``: see :func:`_hash_parts_range`), without writing
    the concatenations anywhere."""
    n = part_ptr.shape[0] - 1
    for chunk in numba.prange((n + _CHUNK - 1) // _CHUNK):
        _hash_parts_range(rows, words, lengths, parts, part_ptr, digest_size, out, iv, sigma, chunk * _CHUNK,
                          min(n, (chunk + 1) * _CHUNK))


@numba.njit(cache=True, nogil=True)
def blake2b_parts_few(rows, words, lengths, parts, part_ptr, digest_size, out, iv, sigma):  # pragma: no cover
    """:func:`blake2b_parts` on one thread."""
    _hash_parts_range(rows, words, lengths, parts, part_ptr, digest_size, out, iv, sigma, 0, part_ptr.shape[0] - 1)


def _array(a, dtype):
    return np.require(a, dtype, ["C", "W"])  # one numba signature: a copy only if need be


def hash_concatenations(rows, lengths, parts, part_ptr, digest_size):
    """BLAKE2b digests of concatenated table strings (see :func:`blake2b_parts`), a
    ``(len(part_ptr) - 1, digest_size)`` uint8 array (little-endian machines only:
    ``sys.byteorder == "little"``)."""
    out = np.empty((len(part_ptr) - 1, digest_size), dtype=np.uint8)
    run = blake2b_parts if len(out) >= 4 * _CHUNK else blake2b_parts_few
    rows = _array(rows, np.uint8)
    words = rows.view(np.uint64) if rows.shape[1] % 8 == 0 else np.zeros((0, 0), dtype=np.uint64)
    run(rows, words, _array(lengths, np.int64), _array(parts, np.int64), _array(part_ptr, np.int64),
        int(digest_size), out, _IV, _SIGMA)
    return out

