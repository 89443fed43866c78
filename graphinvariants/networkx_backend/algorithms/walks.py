"""``number_of_walks``: NetworkX's dict of dicts of exact Python ints, from one matrix power.

NetworkX computes ``A ** walk_length`` with ``scipy.sparse.linalg.matrix_power`` in
int64 (``A`` counts parallel edges, a self-loop once) and reads the n^2 entries one
by one. Its answer is exact as long as every entry of the power is below 2^63; it is
that answer, bit for bit, which the backend gives, so it runs only where that holds
(:func:`walk_overflow_reason`) and leaves the rest to NetworkX.

The entries are bounded by the row sums ``A^t 1``, which one sparse product per step
gives: when every row sum up to ``walk_length`` stays below 2^52 the power is computed
in float64 (every partial sum is an integer below 2^53, so exact), otherwise in int64.
The power itself is ``walk_length - 1`` sparse-times-dense products, or repeated
squaring when that is cheaper, and the dicts are built from the rows as lists.
"""

import math
import numbers

import networkx as nx
import numpy as np

from ..graph import BackendGraph, from_networkx
from ..rules import backend_function

__all__ = ["counts_exactly", "number_of_walks", "walk_overflow_reason"]

#: The float row sums above which the int64 answer is not certain (2^62: the float
#: estimate of a count below 2^63 may be off by far less than a factor 2).
_INT64_BOUND = 2.0**62
#: Float row sums below which the float64 power is exact (2^52, half of 2^53 for margin).
_FLOAT_BOUND = 2.0**52
#: Walk lengths above which the overflow check (one product per step) is not tried.
MAX_CHECKED_LENGTH = 10_000


def _row_sum_bounds(A, walk_length):
    """``(max over t <= walk_length of max(A^t 1), max(A^walk_length 1))`` in float64,
    stopping early once it passes :data:`_INT64_BOUND` (``inf`` then) or reaches 0."""
    v = np.ones(A.shape[0])
    largest = 1.0 if A.shape[0] else 0.0
    Af = A.astype(np.float64)
    for _ in range(walk_length):
        v = Af @ v
        top = float(v.max(initial=0.0))
        if top >= _INT64_BOUND:
            return math.inf, math.inf
        largest = max(largest, top)
        if top == 0.0:
            return largest, 0.0
    return largest, float(v.max(initial=0.0))


def walk_overflow_reason(G, walk_length):
    """Why the backend leaves ``number_of_walks(G, walk_length)`` to NetworkX, or None.

    ``G`` is a NetworkX graph or a
    :class:`~graphinvariants.networkx_backend.graph.BackendGraph`. The backend declines a walk length that is not an int (NetworkX says what it means),
    one above :data:`MAX_CHECKED_LENGTH` on a graph with a node of out-degree above 1,
    and any walk length for which a count may reach 2^63 (NetworkX's int64 result
    then wraps around).
    """
    if isinstance(walk_length, bool) or not isinstance(walk_length, numbers.Integral):
        return f"walk_length={walk_length!r} is not an int"
    walk_length = int(walk_length)
    if walk_length < 0:
        return None  # the backend raises NetworkX's ValueError
    if isinstance(G, BackendGraph):
        top = int(G.row_sums().max(initial=0))
    elif G.is_multigraph():
        top = max((sum(map(len, nbrs.values())) for nbrs in G._adj.values()), default=0)
    else:
        top = max(map(len, G._adj.values()), default=0)
    if top <= 1 or walk_length * math.log2(top) < 62:
        return None  # every count is at most (max out-degree) ** walk_length < 2^62
    if walk_length > MAX_CHECKED_LENGTH:
        return (f"walk_length={walk_length} is above {MAX_CHECKED_LENGTH} and the graph has out-degrees up to "
                f"{top}: the int64 overflow check is left to NetworkX")
    A = G.adjacency if isinstance(G, BackendGraph) else from_networkx(G).adjacency
    if _row_sum_bounds(A, walk_length)[1] >= _INT64_BOUND:
        return (f"some count of walks of length {walk_length} may reach 2**63: NetworkX's int64 matrix power "
                "would wrap around, so NetworkX gives its own answer")
    return None


def counts_exactly(G, walk_length):
    """``can_run`` of :func:`number_of_walks`: True, or :func:`walk_overflow_reason`."""
    return walk_overflow_reason(G, walk_length) or True


def _power(A, k, dtype):
    """``A ** k`` as a dense array of ``dtype`` (k >= 1)."""
    n = A.shape[0]
    A = A.astype(dtype)
    X = A.toarray()
    # sparse-times-dense products run at about a fifth of BLAS's speed per
    # multiply-add, numpy's int64 matmul (no BLAS) at about a twentieth
    sequential = 5 * (k - 1) * A.nnz * n
    squaring = 2 * math.log2(k) * n**3 * (1 if dtype is np.float64 else 20)
    if sequential <= squaring:
        for _ in range(k - 1):
            X = A @ X
        return X
    result, base, e = None, X, k
    while e:
        if e & 1:
            result = base if result is None else result @ base
        e >>= 1
        if e:
            base = base @ base
    return result


@backend_function(can_run=counts_exactly)  # faster from 8 nodes on: no should_run
def number_of_walks(G, walk_length):
    """NetworkX's ``number_of_walks``: the same dict of dicts of Python ints.

    The same dict of dicts of exact Python ints as NetworkX's (floats for a graph without
    edges, as NetworkX's), from one matrix power (float64 while every count is below
    2^52, int64 above) read row by row. Declines
    (NetworkX runs the call) a ``walk_length`` that is not an int, and one for which a
    count may reach 2^63, where NetworkX's int64 result wraps around.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.networkx_backend.graph import from_networkx
    >>> number_of_walks(from_networkx(nx.Graph([(0, 1), (1, 2)])), 2)
    {0: {0: 1, 1: 0, 2: 1}, 1: {0: 0, 1: 2, 2: 0}, 2: {0: 1, 1: 0, 2: 1}}
    """
    if walk_length < 0:
        raise ValueError(f"`walk_length` cannot be negative: {walk_length}")
    n = len(G)
    if n == 0:
        raise nx.NetworkXError("Graph has no nodes or edges")
    walk_length = int(walk_length)
    A = G.adjacency
    if A.nnz == 0:  # NetworkX's adjacency matrix without entries is float64, and so is its answer
        X = np.eye(n) if walk_length == 0 else np.zeros((n, n))
    elif walk_length == 0:
        X = np.eye(n, dtype=np.int64)
    elif walk_length == 1:
        X = A.toarray().astype(np.int64, copy=False)
    else:
        top = int(G.row_sums().max(initial=0))
        exact_in_float = top <= 1 or walk_length * math.log2(top) < 52 or (
            _row_sum_bounds(A, walk_length)[0] < _FLOAT_BOUND)
        X = _power(A, walk_length, np.float64 if exact_in_float else np.int64)
        X = X.astype(np.int64, copy=False)
    nodes = G.nodes
    return {u: dict(zip(nodes, row)) for u, row in zip(nodes, X.tolist())}
