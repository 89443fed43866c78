"""The compiled BLAKE2b is hashlib's, byte for byte."""

import hashlib

import numpy as np
import pytest

pytest.importorskip("numba")

from graphinvariants.networkx_backend._blake2b_numba import hash_concatenations, hash_messages  # noqa: E402


@pytest.mark.parametrize("digest_size", [1, 7, 8, 16, 31, 32, 63, 64])
def test_digests_equal_hashlib_around_the_block_size(digest_size):
    rng = np.random.default_rng(digest_size)
    lengths = np.array([0, 1, 7, 8, 9, 64, 127, 128, 129, 255, 256, 257, 300, 1000])
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    buffer = rng.integers(0, 256, int(lengths.sum()), dtype=np.uint8)
    raw = buffer.tobytes()
    expected = [hashlib.blake2b(raw[s:s + n], digest_size=digest_size).digest() for s, n in zip(starts, lengths)]
    assert [row.tobytes() for row in hash_messages(buffer, starts, lengths, digest_size)] == expected


def test_the_threaded_loop_gives_the_same_digests():
    # enough messages for blake2b_many's thread blocks, messages out of buffer order
    rng = np.random.default_rng(0)
    lengths = rng.integers(0, 300, 5000)
    buffer = rng.integers(0, 256, int(lengths.sum()), dtype=np.uint8)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    order = rng.permutation(len(lengths))
    raw = buffer.tobytes()
    out = hash_messages(buffer, starts[order], lengths[order], 16)
    assert [row.tobytes() for row in out] == [hashlib.blake2b(raw[starts[i]:starts[i] + lengths[i]],
                                                              digest_size=16).digest() for i in order]


@pytest.mark.parametrize("width", [8, 13, 32])
@pytest.mark.parametrize("n_strings", [3, 5000])  # the one-thread loop and the threaded one
def test_concatenations_equal_hashlib_of_the_joined_strings(width, n_strings):
    # table rows of whole 8-byte words (width 8, 32: copied by words where a string's
    # length and place in the block allow, else by bytes) and not (width 13: by bytes)
    rng = np.random.default_rng(width + n_strings)
    rows = rng.integers(0, 256, (40, width), dtype=np.uint8)
    lengths = rng.choice([0, 3, 8, width], 40)
    counts = rng.integers(1, 40, n_strings)
    parts = rng.integers(0, 40, int(counts.sum()))
    part_ptr = np.concatenate(([0], np.cumsum(counts)))
    table = [rows[r, :lengths[r]].tobytes() for r in range(40)]
    expected = [hashlib.blake2b(b"".join(table[r] for r in parts[a:b]), digest_size=16).digest()
                for a, b in zip(part_ptr[:-1], part_ptr[1:])]
    out = hash_concatenations(rows, lengths, parts, part_ptr, 16)
    assert [row.tobytes() for row in out] == expected
