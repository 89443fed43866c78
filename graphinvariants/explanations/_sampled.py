"""Sampled Shapley values over nodes: a node taken away is deleted with its edges.

For the terms of a model whose features are not sums over nodes, :func:`shapley_values`
estimates each node's Shapley value of a function of graphs from random orders of the
nodes (all orders when there are no more than asked for), evaluating the function on
the induced subgraphs of every order's prefixes (:func:`induced_subgraphs`), built for
many prefixes at once. In each order the marginal values telescope to the value on
the whole graph, so their mean is complete exactly, whatever the number of orders.
"""

import itertools
import math

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_int
from ..graphs import GraphBatch

__all__ = ["CELLS", "DEFAULT_PERMUTATIONS", "check_permutations", "induced_subgraphs", "shapley_values"]

#: Orders of the nodes drawn per graph for the sampled part, unless told.
DEFAULT_PERMUTATIONS = 32

#: Largest number of (subgraph, node or stored entry) cells the subgraphs of one call
#: are built from at once (16 Mi booleans, 16 MiB).
CELLS = 2**24


def check_permutations(n_permutations):
    """``n_permutations`` checked: an int of at least 1."""
    return check_int(n_permutations, "n_permutations", minimum=1)


def induced_subgraphs(batch, g, masks):
    """The subgraphs of graph ``g`` of ``batch`` induced by the rows of the boolean
    ``masks`` (``(n_subgraphs, n_g)``), as one GraphBatch with the nodes in the graph's
    order and everything the batch carries (weights, labels, attributes)."""
    start, stop = int(batch.offsets[g]), int(batch.offsets[g + 1])
    A = batch.matrix
    first, last = int(A.indptr[start]), int(A.indptr[stop])
    entry = np.arange(first, last)
    rows = np.repeat(np.arange(stop - start), np.diff(A.indptr[start : stop + 1]))
    cols = A.indices[first:last] - start
    position = np.cumsum(masks, axis=1) - 1  # a kept node's place in its subgraph
    sizes = masks.sum(axis=1)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    which, e = np.nonzero(masks[:, rows] & masks[:, cols])  # by subgraph, then in CSR order: canonical
    new_rows = offsets[which] + position[which, rows[e]]
    new_cols = offsets[which] + position[which, cols[e]]
    n = int(offsets[-1])
    indptr = np.concatenate(([0], np.cumsum(np.bincount(new_rows, minlength=n)))).astype(np.int64)
    matrix = sp.csr_array((A.data[entry[e]], new_cols.astype(np.int64), indptr), shape=(n, n))
    sub, v = np.nonzero(masks)
    node = start + v
    return GraphBatch(
        matrix, offsets, batch.weighted,
        None if batch.node_labels is None else batch.node_labels[node],
        None if batch.edge_labels is None else batch.edge_labels[entry[e]],
        None if batch.node_attributes is None else batch.node_attributes[node],
    )


def shapley_values(batch, value, n_permutations, seeds):
    """Permutation estimates of the Shapley values of ``value`` (a function of a
    GraphBatch -> one float per graph; the empty graph's value is 0) over the nodes of
    every graph: ``(values, errors)``, one float per node each. All orders are used when
    a graph has no more than ``n_permutations`` of them (``errors`` 0)."""
    values, errors = np.zeros(batch.n_nodes), np.zeros(batch.n_nodes)
    for g in range(len(batch)):
        n = int(batch.sizes[g])
        if n == 0:
            continue
        start = int(batch.offsets[g])
        if math.factorial(n) <= n_permutations:
            orders = np.array(list(itertools.permutations(range(n))), dtype=np.int64)
            exhaustive = True
        else:
            rng = np.random.default_rng(seeds[g])
            orders = np.array([rng.permutation(n) for _ in range(n_permutations)], dtype=np.int64)
            exhaustive = False
        nnz = int(batch.matrix.indptr[start + n] - batch.matrix.indptr[start])
        per_call = max(1, CELLS // max(n * max(n, nnz, 1), 1))  # orders per call
        marginals = np.empty((len(orders), n))
        for lo in range(0, len(orders), per_call):
            chunk = orders[lo : lo + per_call]
            rank = np.empty_like(chunk)
            np.put_along_axis(rank, chunk, np.arange(n)[None, :], axis=1)
            # prefix k of order r keeps the nodes of rank < k: n masks per order
            masks = (rank[:, None, :] < np.arange(1, n + 1)[None, :, None]).reshape(-1, n)
            prefix = np.asarray(value(induced_subgraphs(batch, g, masks)), dtype=np.float64).reshape(len(chunk), n)
            gains = np.diff(prefix, axis=1, prepend=0.0)
            np.put_along_axis(marginals[lo : lo + len(chunk)], chunk, gains, axis=1)
        values[start : start + n] = marginals.mean(axis=0)
        if not exhaustive and len(orders) > 1:
            errors[start : start + n] = marginals.std(axis=0, ddof=1) / np.sqrt(len(orders))
    return values, errors
