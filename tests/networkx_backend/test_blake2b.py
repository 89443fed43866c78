"""The compiled BLAKE2b is hashlib's, byte for byte."""

import hashlib

import numpy as np
import pytest

pytest.importorskip("numba")

from graphinvariants.networkx_backend._blake2b_numba import hash_concatenations  # noqa: E402


def messages_as_table(messages):
    """Messages as a table of zero-padded rows and their lengths."""
    lengths = np.array([len(m) for m in messages], dtype=np.int64)
    rows = np.zeros((len(messages), int(lengths.max(initial=0))), dtype=np.uint8)
    for row, message in zip(rows, messages):
        row[:len(message)] = np.frombuffer(message, dtype=np.uint8)
    return rows, lengths


@pytest.mark.parametrize("digest_size", [1, 7, 8, 16, 31, 32, 63, 64])
def test_digests_equal_hashlib_around_the_block_size(digest_size):
    rng = np.random.default_rng(digest_size)
    messages = [rng.integers(0, 256, n, dtype=np.uint8).tobytes()
                for n in [0, 1, 7, 8, 9, 64, 127, 128, 129, 255, 256, 257, 300, 1000]]
    rows, lengths = messages_as_table(messages)
    one_each = np.arange(len(messages))
    out = hash_concatenations(rows, lengths, one_each, np.arange(len(messages) + 1), digest_size)
    assert [row.tobytes() for row in out] == [hashlib.blake2b(m, digest_size=digest_size).digest() for m in messages]


def test_the_threaded_loop_gives_the_same_digests():
    # enough messages for blake2b_parts' thread blocks, messages out of table order
    rng = np.random.default_rng(0)
    messages = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in rng.integers(0, 300, 5000)]
    rows, lengths = messages_as_table(messages)
    order = rng.permutation(len(messages))
    out = hash_concatenations(rows, lengths, order, np.arange(len(messages) + 1), 16)
    assert [row.tobytes() for row in out] == [hashlib.blake2b(messages[i], digest_size=16).digest() for i in order]


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


def test_a_read_only_table_gives_the_same_digests_through_one_signature():
    # the loop the call used (another test may have imported the module anew since)
    few = hash_concatenations.__globals__["blake2b_parts_few"]
    rows = np.frombuffer(b"abcdefgh" * 4, dtype=np.uint8).reshape(4, 8)  # read-only
    out = hash_concatenations(rows, np.array([8, 3, 0, 8]), np.array([0, 1, 3]), np.array([0, 2, 3]), 16)
    assert [row.tobytes() for row in out] == [hashlib.blake2b(b"abcdefghabc", digest_size=16).digest(),
                                              hashlib.blake2b(b"abcdefgh", digest_size=16).digest()]
    assert len(few.signatures) == 1
