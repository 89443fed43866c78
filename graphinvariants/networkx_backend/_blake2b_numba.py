"""BLAKE2b (RFC 7693, unkeyed) compiled over many messages at once (private; needs numba).

``hashlib.blake2b(message, digest_size=d).digest()`` for every message of a byte
buffer in one compiled loop, the messages shared among threads by ``numba.prange``:
each message is hashed on its own, so the digests do not depend on the number of
threads. tests/networkx_backend/test_blake2b.py checks every digest size and message
lengths around the 128-byte block against :mod:`hashlib`.
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


@numba.njit(inline="always")
def _rotr(x, n):  # pragma: no cover - compiled
    return (x >> np.uint64(n)) | (x << np.uint64(64 - n))


@numba.njit(inline="always")
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


@numba.njit(inline="always")
def _compress(h, m, counter, last, iv, sigma):  # pragma: no cover - compiled
    v0, v1, v2, v3, v4, v5, v6, v7 = h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
    v8, v9, v10, v11 = iv[0], iv[1], iv[2], iv[3]
    v12 = iv[4] ^ np.uint64(counter)
    v13 = iv[5]
    v14 = ~iv[6] if last else iv[6]
    v15 = iv[7]
    for r in range(12):
        s = sigma[r]
        v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m[s[0]], m[s[1]])
        v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m[s[2]], m[s[3]])
        v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m[s[4]], m[s[5]])
        v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m[s[6]], m[s[7]])
        v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m[s[8]], m[s[9]])
        v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m[s[10]], m[s[11]])
        v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m[s[12]], m[s[13]])
        v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m[s[14]], m[s[15]])
    h[0] ^= v0 ^ v8
    h[1] ^= v1 ^ v9
    h[2] ^= v2 ^ v10
    h[3] ^= v3 ^ v11
    h[4] ^= v4 ^ v12
    h[5] ^= v5 ^ v13
    h[6] ^= v6 ^ v14
    h[7] ^= v7 ^ v15


@numba.njit(inline="always")
def _hash_range(buffer, starts, lengths, digest_size, out, iv, sigma, lo, hi):  # pragma: no cover - compiled
    """Messages ``lo:hi`` of :func:`blake2b_many`."""
    h = np.empty(8, dtype=np.uint64)
    m = np.empty(16, dtype=np.uint64)
    for i in range(lo, hi):
        for w in range(8):
            h[w] = iv[w]
        h[0] ^= np.uint64(0x01010000) ^ np.uint64(digest_size)
        start = starts[i]
        remaining = lengths[i]
        counter = 0
        while True:
            take = min(remaining, 128)
            last = remaining <= 128
            if take == 128:
                for w in range(16):
                    word = np.uint64(0)
                    for b in range(8):
                        word |= np.uint64(buffer[start + w * 8 + b]) << np.uint64(8 * b)
                    m[w] = word
            else:
                for w in range(16):
                    word = np.uint64(0)
                    for b in range(8):
                        p = w * 8 + b
                        if p < take:
                            word |= np.uint64(buffer[start + p]) << np.uint64(8 * b)
                    m[w] = word
            counter += take
            _compress(h, m, counter, last, iv, sigma)
            if last:
                break
            start += 128
            remaining -= 128
        for b in range(digest_size):
            out[i, b] = np.uint8((h[b // 8] >> np.uint64(8 * (b % 8))) & np.uint64(0xFF))


@numba.njit(parallel=True, cache=True, nogil=True)
def blake2b_many(buffer, starts, lengths, digest_size, out, iv, sigma):  # pragma: no cover - compiled
    """``out[i] = blake2b(buffer[starts[i]:starts[i] + lengths[i]], digest_size).digest()``.

    ``buffer`` is uint8; ``out`` is a ``(len(starts), digest_size)`` uint8 array.
    Messages shorter than 2**64 bytes (the counter's high word stays 0). The messages
    are shared among threads by blocks of :data:`_CHUNK`.
    """
    n = starts.shape[0]
    for chunk in numba.prange((n + _CHUNK - 1) // _CHUNK):
        _hash_range(buffer, starts, lengths, digest_size, out, iv, sigma, chunk * _CHUNK, min(n, (chunk + 1) * _CHUNK))


@numba.njit(cache=True, nogil=True)
def blake2b_few(buffer, starts, lengths, digest_size, out, iv, sigma):  # pragma: no cover - compiled
    """:func:`blake2b_many` on one thread (no thread pool to wake for a few messages)."""
    _hash_range(buffer, starts, lengths, digest_size, out, iv, sigma, 0, starts.shape[0])


def hash_messages(buffer, starts, lengths, digest_size):
    """BLAKE2b digests of the messages ``buffer[starts[i]:starts[i] + lengths[i]]``,
    a ``(len(starts), digest_size)`` uint8 array."""
    out = np.empty((len(starts), digest_size), dtype=np.uint8)
    run = blake2b_many if len(starts) >= 4 * _CHUNK else blake2b_few
    run(np.ascontiguousarray(buffer, dtype=np.uint8), np.asarray(starts, dtype=np.int64),
                 np.asarray(lengths, dtype=np.int64), int(digest_size), out, _IV, _SIGMA)
    return out
