"""The one top-k and its merge (kernels/topk.py): a stable sort's prefix, in the block's memory."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from graphinvariants.kernels.topk import merge_top_k, top_k


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.tuples(st.integers(1, 6), st.integers(1, 30)),
    n_levels=st.integers(1, 4),
    data=st.data(),
)
def test_top_k_is_a_stable_sort_prefix(seed, shape, n_levels, data):
    """Few distinct values: many ties everywhere, including at the k-th place."""
    rng = np.random.default_rng(seed)
    block = rng.integers(0, n_levels, size=shape) / n_levels
    k = data.draw(st.integers(1, shape[1]))
    labels, values = top_k(block, k)
    order = np.argsort(-block, axis=1, kind="stable")[:, :k]
    np.testing.assert_array_equal(labels, order)
    np.testing.assert_array_equal(values, np.take_along_axis(block, order, axis=1))
    # a top-k of top-k's over column splits, with global labels, is the same answer
    cuts = sorted(set(rng.integers(0, shape[1], size=3).tolist()) | {0, shape[1]})
    parts = []
    for a, b in zip(cuts[:-1], cuts[1:]):
        cols = np.arange(a, b)
        lab, val = top_k(block[:, a:b], min(k, b - a), columns=cols)
        parts.append((lab, val, lab * 10))
    merged = parts[0]
    for part in parts[1:]:
        merged = merge_top_k([merged, part], k)
    np.testing.assert_array_equal(merged[0], order)
    np.testing.assert_array_equal(merged[1], values)
    np.testing.assert_array_equal(merged[2], order * 10)


def test_top_k_with_ties_everywhere_stays_within_the_block_memory():
    """Rows of equal values (kernel values that underflow to 0, or graphs no kernel
    separates) used to copy every tied value with its label: several times the block."""
    import tracemalloc

    block = np.zeros((100, 20000))
    block[:, 7] = 1.0
    tracemalloc.start()
    labels, values = top_k(block, 3)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1.5 * block.nbytes, f"{peak / block.nbytes:.1f} x the block"
    np.testing.assert_array_equal(labels, np.tile([7, 0, 1], (100, 1)))
    np.testing.assert_array_equal(values, np.tile([1.0, 0.0, 0.0], (100, 1)))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), shape=st.tuples(st.integers(1, 5), st.integers(1, 25)), data=st.data())
def test_smallest_first_is_the_stable_sort_of_distances(seed, shape, data):
    """largest=False (distances): the smallest first, ties by the smaller label, and a
    merge of parts equal to one top-k of the whole row."""
    rng = np.random.default_rng(seed)
    block = rng.integers(0, 3, size=shape) / 2.0
    k = data.draw(st.integers(1, shape[1]))
    order = np.argsort(block, axis=1, kind="stable")[:, :k]
    labels, values = top_k(block, k, largest=False)
    np.testing.assert_array_equal(labels, order)
    np.testing.assert_array_equal(values, np.take_along_axis(block, order, axis=1))
    assert not np.signbit(values).any()  # no negative zeros from the negation
    cut = data.draw(st.integers(0, shape[1]))
    parts = [top_k(block[:, a:b], min(k, b - a), columns=np.arange(a, b), largest=False)
             for a, b in ((0, cut), (cut, shape[1])) if b > a]
    merged = merge_top_k(parts, k, largest=False)
    np.testing.assert_array_equal(merged[0], order)
    np.testing.assert_array_equal(merged[1], values)
