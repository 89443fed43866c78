"""The pair engine: kernel values of many pairs, for any functional.

The engine embeds each side once (:meth:`Functional.as_embeddings`), prepares it once,
aligns the two sides once, and then evaluates tiles of pairs with
:meth:`Functional.open_tile`, in threads when ``n_jobs > 1`` (numpy releases the GIL),
and the pairs those leave with one :meth:`Functional.finish` call per matrix (or per
chunk of rows, or per block): a functional whose rare hard pairs cost a fixed overhead
per call (the power kernel's whitened pairs) pays it once. It never looks inside an
embedding.

* :func:`pairwise_kernels`: the Gram matrix of one collection, or the cross matrix of two.
* :func:`paired_kernels`: the kernel of matching pairs only.
* :func:`kernel_row_chunks`: the cross matrix a block of rows at a time, in bounded
  memory (for nearest-neighbour search and other reductions).
* :class:`KernelBlocks`: any rectangle of the matrix :func:`pairwise_kernels` returns,
  with the same values, from sides embedded and prepared once (for matrices built a
  block at a time from several kernels).
"""

from collections.abc import Iterator

import numpy as np

from .._utils.validation import check_n_jobs

__all__ = ["KernelBlocks", "kernel_row_chunks", "paired_kernels", "pairwise_kernels"]


def check_not_same_iterator(X, Y, names=("graphs", "other"), hint="or other=None for the square matrix"):
    """Refuse one one-shot iterator given as both sides: the second would be empty.

    Only an iterator (``__iter__`` and ``__next__``) is one-shot; anything else, also a
    batch of precomputed embeddings that is not iterable at all, may be both sides."""
    if Y is X and isinstance(X, Iterator):
        raise ValueError(
            f"{names[0]} and {names[1]} are the same one-shot iterator, which can be read only once; "
            f"pass a list{', ' + hint if hint else ''}"
        )


def _sides(functional, X, Y):
    """Prepared and aligned (left, right, symmetric) for X against Y (None: X itself)."""
    check_not_same_iterator(X, Y)
    X, Y = functional.fit_sides(X, Y)
    left = functional.as_embeddings(X, what="graphs")
    prepared_left = functional.prepare(left, "graphs")
    if Y is None:
        L, R = functional.align(prepared_left, prepared_left)
        return L, R, len(left), len(left), True
    right = functional.as_embeddings(Y, what="other")
    L, R = functional.align(prepared_left, functional.prepare(right, "other"))
    return L, R, len(left), len(right), False


def pairwise_kernels(X, Y=None, *, functional, n_jobs=None):
    """Kernel matrix between two collections (or of one with itself) for a functional.

    Parameters
    ----------
    X : collection
        Graphs (any sequence, a GraphBatch, a TUDataset) or precomputed embeddings of
        ``functional``.
    Y : collection, optional
        The other side; ``None`` gives the square, symmetric matrix of ``X`` with a
        unit diagonal.
    functional : Functional, keyword-only
    n_jobs : int or None, keyword-only
        Threads over tiles of pairs (``None``: 1, ``-1``: all cores).

    Returns
    -------
    numpy.ndarray of shape (len(X), len(Y))

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import GaussianEmbedding
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> graphs = [nx.gnp_random_graph(60, 0.1, seed=1), nx.gnp_random_graph(60, 0.1, seed=2)]
    >>> pairwise_kernels(graphs, functional=GaussianEmbedding(k=5)).round(3)
    array([[1.   , 0.906],
           [0.906, 1.   ]])
    """
    n_jobs = check_n_jobs(n_jobs)
    L, R, n, m, symmetric = _sides(functional, X, Y)
    out = np.empty((n, m))
    if n == 0 or m == 0:
        return out
    tile = functional.tile_size(n_jobs)
    row_blocks = [slice(a, min(a + tile, n)) for a in range(0, n, tile)]
    col_blocks = [slice(a, min(a + tile, m)) for a in range(0, m, tile)]
    tasks = [
        (r, c)
        for bi, r in enumerate(row_blocks)
        for bj, c in enumerate(col_blocks)
        if not symmetric or bj >= bi
    ]

    pending = _Pending()

    def run(task):
        r, c = task
        block, left_over = functional.open_tile(L, R, r, c)
        out[r, c] = block
        if symmetric and r != c:
            out[c, r] = block.T
        # the mirror image of a pair is its value transposed, as for the tiles: the
        # pairs below the diagonal within a diagonal tile need not be finished twice
        pending.add(left_over, r, c, mirrored=symmetric, diagonal=symmetric, upper=symmetric)

    _run_tasks(run, tasks, n_jobs)
    pending.finish(functional, L, R, out)
    if symmetric:
        np.fill_diagonal(out, 1.0)
    return out


class _Pending:
    """The pairs that tiles left to :meth:`Functional.finish` (its ``open_tile``), for
    one call at the end: a functional whose rare hard pairs cost a fixed overhead per
    call pays it once per matrix, not once per tile. Thread-safe (one append per tile)."""

    def __init__(self):
        self.parts = []

    def add(self, positions, rows, cols, *, mirrored=False, diagonal=False, upper=False, transposed=False):
        """The flat ``positions`` of the tile ``rows x cols`` (slices) of the matrix;
        ``mirrored``: written to ``out`` at the mirror image too; ``diagonal``: pairs
        ``(p, p)`` left out (the caller sets the diagonal); ``upper``: only the pairs
        ``(p, q)``, ``p < q`` (with ``mirrored``, those give the others); ``transposed``:
        the tile's values are written to ``out`` transposed."""
        if len(positions):
            i, j = np.divmod(positions, cols.stop - cols.start)
            i, j = i + rows.start, j + cols.start
            if upper or diagonal:
                keep = i < j if upper else i != j
                i, j = i[keep], j[keep]
            self.parts.append((i, j, mirrored, transposed))

    def finish(self, functional, left, right, out, offset=(0, 0)):
        """Write the finished values into ``out`` (row ``a`` of the matrix at row ``a -
        offset[0]``, column ``b`` at ``b - offset[1]``)."""
        if not self.parts:
            return
        i, j = (np.concatenate([part[n] for part in self.parts]) for n in (0, 1))
        values = functional.finish(left, right, i, j)
        start = 0
        for a, b, mirrored, transposed in self.parts:
            part = values[start : start + len(a)]
            start += len(a)
            for rows, cols in ([(b, a)] if transposed else [(a, b)]) + ([(b, a)] if mirrored else []):
                out[rows - offset[0], cols - offset[1]] = part


def _run_tasks(run, tasks, n_jobs):
    if n_jobs == 1 or len(tasks) == 1:
        for task in tasks:
            run(task)
        return
    from joblib import Parallel, delayed

    Parallel(n_jobs=n_jobs, prefer="threads")(delayed(run)(task) for task in tasks)


def paired_kernels(X, Y, *, functional):
    """Kernel of matching pairs ``K(X[i], Y[i])``: the diagonal of the cross matrix
    without the rest.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import WalkHistogram
    >>> from graphinvariants.kernels import paired_kernels
    >>> paired_kernels([nx.path_graph(4)] * 2, [nx.path_graph(4), nx.path_graph(5)],
    ...                functional=WalkHistogram(k=2)).round(3)
    array([1.   , 0.959])
    """
    L, R, n, m, _ = _sides(functional, X, Y)
    if n != m:
        raise ValueError(f"graphs and other must have the same length, got {n} and {m}")
    if n == 0:
        return np.zeros(0)
    index = np.arange(n)
    return functional.pairs(L, R, index, index)


def kernel_row_chunks(X, Y=None, *, functional, n_rows, n_jobs=None, rows=None):
    """Yield ``(rows, block)``: the cross matrix ``n_rows`` rows at a time.

    Each side is embedded and prepared once; a block is ``(len(rows), len(Y))``, so
    memory stays bounded by ``n_rows * len(Y)`` values beyond the embeddings. ``rows``
    (a ``range`` of rows of ``X``, default all): only those rows, the same values.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import GaussianEmbedding
    >>> from graphinvariants.kernels import kernel_row_chunks
    >>> graphs = [nx.path_graph(n) for n in range(6, 11)]
    >>> [block.shape for _, block in kernel_row_chunks(graphs, functional=GaussianEmbedding(k=3), n_rows=2)]
    [(2, 5), (2, 5), (1, 5)]
    """
    n_jobs = check_n_jobs(n_jobs)
    L, R, n, m, symmetric = _sides(functional, X, Y)
    tile = functional.tile_size(n_jobs)
    span = range(n) if rows is None else range(max(rows.start, 0), min(rows.stop, n))
    for a in range(span.start, span.stop, n_rows):
        rows = slice(a, min(a + n_rows, span.stop))
        block = np.empty((rows.stop - a, m))
        col_blocks = [slice(c, min(c + tile, m)) for c in range(0, m, tile)]

        pending = _Pending()

        def run(c, rows=rows, block=block, pending=pending):
            block[:, c], left_over = functional.open_tile(L, R, rows, c)
            pending.add(left_over, rows, c, diagonal=symmetric)

        _run_tasks(run, col_blocks, n_jobs)
        pending.finish(functional, L, R, block, offset=(a, 0))
        if symmetric:
            idx = np.arange(rows.start, rows.stop)
            block[idx - a, idx] = 1.0
        yield np.arange(rows.start, rows.stop), block


class KernelBlocks:
    """Rectangles of the matrix ``pairwise_kernels(X, Y, functional=..., n_jobs=...)``.

    The sides are embedded, prepared and aligned once, as :func:`pairwise_kernels` does;
    :meth:`block` then evaluates any rectangle by the engine's own tiles. For the
    square matrix (``Y=None``) a pair below the diagonal tiles is, as there, the
    transpose of its mirror image, and the diagonal is exactly 1. A rectangle made of
    whole tiles is computed by the very calls :func:`pairwise_kernels` makes, so its
    values are the same to the last bit; a smaller one by parts of those tiles, which
    gives the same values for every functional whose pairs do not depend on the other
    pairs of their tile (the contract :meth:`Functional.for_pairs` and the Dask blocks
    rely on).

    Parameters
    ----------
    X, Y : collections
        As for :func:`pairwise_kernels` (``Y=None``: the square matrix of ``X``).
    functional : Functional, keyword-only
    n_jobs : int or None, keyword-only
        The ``n_jobs`` of the :func:`pairwise_kernels` call to reproduce: it chooses the
        tile size. Blocks are computed in the calling thread.

    Attributes
    ----------
    shape : tuple of int
    tile : int
        Rows and columns of the engine's tiles.
    symmetric : bool

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from graphinvariants.embeddings import WalkHistogram
    >>> from graphinvariants.kernels import KernelBlocks, pairwise_kernels
    >>> graphs = [nx.path_graph(n) for n in range(3, 9)]
    >>> blocks = KernelBlocks(graphs, functional=WalkHistogram(k=3))
    >>> K = pairwise_kernels(graphs, functional=WalkHistogram(k=3))
    >>> bool(np.array_equal(blocks.block(slice(1, 4), slice(0, 6)), K[1:4]))
    True
    """

    def __init__(self, X, Y=None, *, functional, n_jobs=None):
        n_jobs = check_n_jobs(n_jobs)
        self.functional = functional
        self.left, self.right, n, m, self.symmetric = _sides(functional, X, Y)
        self.shape = (n, m)
        self.tile = int(functional.tile_size(n_jobs))

    def _pieces(self, span):
        """``(tile index, slice)`` of the parts of ``span`` within one tile each."""
        a, stop, t = span.start, span.stop, self.tile
        while a < stop:
            b = min(stop, (a // t + 1) * t)
            yield a // t, slice(a, b)
            a = b

    def mirrored(self, rows, cols):
        """Whether every pair of ``rows x cols`` lies in tiles apart from those of its
        mirror image, so that its value is its mirror image's to the last bit (square
        matrix; always True for a cross matrix, which has no mirror images)."""
        if not self.symmetric:
            return True
        t = self.tile
        return (rows.stop - 1) // t < cols.start // t or (cols.stop - 1) // t < rows.start // t

    def block(self, rows, cols):
        """The values of ``rows x cols`` (two slices with step 1), a new array."""
        out = np.empty((rows.stop - rows.start, cols.stop - cols.start))
        pending = _Pending()
        for ti, r in self._pieces(rows):
            for tj, c in self._pieces(cols):
                where = (slice(r.start - rows.start, r.stop - rows.start), slice(c.start - cols.start, c.stop - cols.start))
                if self.symmetric and tj < ti:  # below the diagonal tiles: the mirror image, transposed
                    values, left_over = self.functional.open_tile(self.left, self.right, c, r)
                    out[where] = values.T
                    pending.add(left_over, c, r, diagonal=True, transposed=True)
                else:
                    out[where], left_over = self.functional.open_tile(self.left, self.right, r, c)
                    pending.add(left_over, r, c, diagonal=self.symmetric)
        pending.finish(self.functional, self.left, self.right, out, offset=(rows.start, cols.start))
        if self.symmetric:
            lo, hi = max(rows.start, cols.start), min(rows.stop, cols.stop)
            idx = np.arange(lo, hi)
            out[idx - rows.start, idx - cols.start] = 1.0
        return out
