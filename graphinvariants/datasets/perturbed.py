"""Large labelled collections made reproducibly from a small one, without a download.

:func:`perturbed_copies` repeats the graphs of a data set and removes random edges from
every copy (the ``"remove_edge"`` perturbation of
:func:`~graphinvariants.perturbation_sequence`, drawn for a whole block of copies at
once); each copy keeps its source's class label, node labels, node attributes and the
labels of the edges that remain. It is how the scale benchmarks get 10^5 and 10^6
molecules from the shared sets (NCI1 has 4,110): synthetic, but with the sizes, label
alphabets and class structure of the real ones.
"""

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_int
from ..graphs import GraphBatch
from .tu import TUDataset

__all__ = ["GENERATION_BLOCK", "perturbed_copies"]

#: Copies are drawn a block of this many at a time, each block from its own seed
#: ``(seed, block number)``: copy ``i`` is the same whatever ``start`` and ``n_graphs``
#: ask for it.
GENERATION_BLOCK = 4096


def perturbed_copies(data, n_graphs, *, removed_edges=1, seed=0, start=0):
    """``n_graphs`` labelled graphs: copies of ``data``'s graphs, each with random edges removed.

    Copy ``i`` (counting from 0 over the whole, endless collection) is source graph
    ``i % len(data)`` with ``removed_edges`` of its edges, drawn uniformly without
    replacement, removed (all of them if it has fewer; self-loops are never removed),
    and its label ``data.y[i % len(data)]``. Copies ``start .. start + n_graphs - 1``
    are returned, so that a collection too large for one process can be made a part
    at a time (on Dask workers, for example) and every part is the same as in the
    whole.

    Parameters
    ----------
    data : TUDataset
        The source graphs and their labels (undirected, as every TU data set).
    n_graphs : int
        Number of copies.
    removed_edges : int, keyword-only, default=1
        Edges removed from each copy (0: exact copies).
    seed : int, keyword-only, default=0
    start : int, keyword-only, default=0
        Number of the first copy.

    Returns
    -------
    TUDataset
        Named ``"{data.name}~copies[start:stop]"``.

    Examples
    --------
    >>> import graphinvariants as gi
    >>> from graphinvariants.datasets import perturbed_copies
    >>> mutag = gi.load_tu("MUTAG")
    >>> copies = perturbed_copies(mutag, 1000, seed=0)
    >>> len(copies), int(copies.y[188] == mutag.y[0])
    (1000, 1)
    >>> int(mutag.batch[0].matrix.nnz - copies.batch[188].matrix.nnz)  # one edge, both directions
    2
    >>> part = perturbed_copies(mutag, 10, seed=0, start=500)
    >>> bool((part.batch.matrix != copies.batch.take(range(500, 510)).matrix).nnz == 0)
    True
    """
    if not isinstance(data, TUDataset):
        raise TypeError(f"data must be a TUDataset (graphs with labels), got {type(data).__name__}")
    n_graphs = check_int(n_graphs, "n_graphs")
    removed_edges = check_int(removed_edges, "removed_edges")
    start = check_int(start, "start")
    seed = check_int(seed, "seed")
    if len(data) == 0:
        raise ValueError("data holds no graphs to copy")
    stop = start + n_graphs
    parts = []
    for block in range(start // GENERATION_BLOCK, -(-stop // GENERATION_BLOCK)):
        first = block * GENERATION_BLOCK
        batch = _block(data, first, removed_edges, np.random.default_rng([seed, block]))
        lo, hi = max(start, first) - first, min(stop, first + GENERATION_BLOCK) - first
        parts.append(batch.take(np.arange(lo, hi)))
    if not parts:
        batch = data.batch.take(np.zeros(0, dtype=np.int64))
    else:
        batch = parts[0] if len(parts) == 1 else _concatenate(parts)
    y = data.y[np.arange(start, stop) % len(data)]
    return TUDataset(f"{data.name}~copies[{start}:{stop}]", batch, y)


def _block(data, first, removed_edges, rng):
    """Copies ``first .. first + GENERATION_BLOCK - 1``, with their edges removed."""
    sources = np.arange(first, first + GENERATION_BLOCK) % len(data)
    batch = data.batch.take(sources)
    if removed_edges == 0:
        return batch
    A = batch.matrix
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    cols = A.indices.astype(np.int64)
    upper = np.flatnonzero(rows < cols)  # each undirected edge once
    owner = np.searchsorted(batch.offsets, rows[upper], side="right") - 1
    # a random key per edge; each copy loses its removed_edges smallest
    order = np.lexsort((rng.random(len(upper)), owner))
    first_of_owner = np.searchsorted(owner[order], owner[order], side="left")
    rank = np.arange(len(order)) - first_of_owner
    gone = upper[order[rank < removed_edges]]
    n = np.int64(A.shape[0])
    gone_keys = rows[gone] * n + cols[gone]
    keys = np.minimum(rows, cols) * n + np.maximum(rows, cols)
    keep = ~np.isin(keys, gone_keys)
    counts = np.bincount(rows[keep], minlength=A.shape[0])
    matrix = sp.csr_array((A.data[keep], cols[keep], np.concatenate(([0], np.cumsum(counts)))), shape=A.shape)
    edge_labels = None if batch.edge_labels is None else batch.edge_labels[keep]
    return GraphBatch(matrix, batch.offsets, batch.weighted, batch.node_labels, edge_labels, batch.node_attributes)


def _concatenate(batches):
    """One GraphBatch of several, in order."""
    shifts = np.cumsum([0] + [b.n_nodes for b in batches])
    entries = np.cumsum([0] + [b.matrix.nnz for b in batches])
    indptr = np.concatenate([[0]] + [b.matrix.indptr[1:] + e for b, e in zip(batches, entries)])
    indices = np.concatenate([b.matrix.indices.astype(np.int64) + s for b, s in zip(batches, shifts)])
    data = np.concatenate([b.matrix.data for b in batches])
    matrix = sp.csr_array((data, indices, indptr), shape=(int(shifts[-1]),) * 2)  # entries in their order
    offsets = np.concatenate([[0]] + [b.offsets[1:] + s for b, s in zip(batches, shifts)])

    def joined(name):
        values = [getattr(b, name) for b in batches]
        return None if values[0] is None else np.concatenate(values)

    return GraphBatch(matrix, offsets, batches[0].weighted, joined("node_labels"), joined("edge_labels"),
                      joined("node_attributes"))
