"""An elementwise function of several kernel matrices, built a block at a time.

The learned default's matrix (:class:`~graphinvariants.kernels.learned._combination.LearnedCombination`)
is an elementwise function of its members' matrices: products, powers, Gaussians of
them, and a weighted sum. Built whole, it held every member's ``n x n`` matrix and the
temporaries of the sum at once (about ten matrices: 13.1 GB for 12,000 graphs).
:func:`combine_blockwise` builds it block by block instead: for each square block of
the output it asks every member for that block only (:class:`~graphinvariants.kernels.KernelBlocks`
computes it from the embeddings by the pair engine's own tiles; :class:`MatrixBlocks`
slices a matrix already held), applies the function, and writes the result. Memory is
the output matrix and a few blocks per thread, as many as ``working_memory`` allows
(as in :func:`sklearn.metrics.pairwise_distances_chunked`).

The values are those of the whole-matrix computation to the last bit: the function is
applied elementwise, every member value is the one the pair engine gives the whole
matrix, and the square matrix is symmetrised as ``(K + K.T) / 2`` over the pairs that
need it (those whose two mirror images were computed apart), with an exactly unit
diagonal.
"""

import math
import warnings

import numpy as np

from ..._utils.validation import check_n_jobs, check_working_memory

__all__ = ["BLOCK_BUFFERS", "MIN_BLOCK", "OUTPUT_SHARE", "MatrixBlocks", "block_size", "combine_blockwise"]

#: Blocks held per thread besides one per member: the output block, the buffer of a
#: weighted sum, a shaped term and the temporaries of a Gaussian shape (two), and the
#: mirror block of the symmetrisation.
BLOCK_BUFFERS = 6

#: The blocks of all threads together take at most this share of the output's bytes
#: (1/16: about 6%), so that a large matrix is built with little beside it ...
OUTPUT_SHARE = 1 / 16
#: ... but blocks of this many rows are always allowed (within ``working_memory``): a
#: small matrix is not cut into blocks so small that their number costs time.
MIN_BLOCK = 256


class MatrixBlocks:
    """Rectangles of a matrix already in memory, for :func:`combine_blockwise`.

    Parameters
    ----------
    K : numpy.ndarray of shape (n, m)
    symmetric : bool, keyword-only
        Whether ``K`` stands for a square Gram matrix with a unit diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.kernels.learned.blockwise import MatrixBlocks
    >>> blocks = MatrixBlocks(np.eye(3), symmetric=True)
    >>> blocks.block(slice(0, 2), slice(1, 3))
    array([[0., 0.],
           [1., 0.]])
    """

    def __init__(self, K, *, symmetric=False):
        self.K = K
        self.shape = K.shape
        self.symmetric = bool(symmetric)
        self.tile = 1
        self._mirrored = not symmetric or bool(np.array_equal(K, K.T))

    def block(self, rows, cols):
        """``K[rows, cols]`` (a view)."""
        return self.K[rows, cols]

    def mirrored(self, rows, cols):
        """Whether every value of ``rows x cols`` equals its mirror image's to the bit."""
        return self._mirrored


def block_size(tiles, n_sources, *, working_memory=None, n_jobs=None, shape=None):
    """Rows (and columns) of the square blocks :func:`combine_blockwise` uses.

    Each thread holds ``n_sources + BLOCK_BUFFERS`` float64 blocks. They must fit in
    ``working_memory`` MiB and, for an output of ``shape`` (when given), in
    :data:`OUTPUT_SHARE` of its bytes (but blocks of :data:`MIN_BLOCK` are always
    allowed within ``working_memory``), so that beside a large matrix the blocks stay a
    small part of the memory. The size is then the largest multiple of every tile size
    (so that blocks are made of whole tiles) that fits, and no more than 1024 unless
    one common multiple is larger (larger blocks are no faster, and hold more); if not
    even one common multiple fits, the largest multiple of the largest tile size that
    fits (parts of the other tiles, the same values), else the largest size that fits,
    and at least 1 with a warning.

    Examples
    --------
    >>> from graphinvariants.kernels.learned.blockwise import block_size
    >>> block_size([256, 1024], 8, working_memory=1024)
    1024
    >>> block_size([256, 1024], 8, working_memory=1024, shape=(12000, 12000))
    768
    >>> block_size([256, 1024], 8, working_memory=16)
    256
    """
    working_memory = check_working_memory(working_memory)
    n_jobs = check_n_jobs(n_jobs)
    threads = n_jobs if n_jobs > 0 else 1
    per_entry = 8 * (n_sources + BLOCK_BUFFERS) * threads
    budget = working_memory * 2**20
    if shape is not None:
        share = max(OUTPUT_SHARE * 8 * shape[0] * shape[1], per_entry * MIN_BLOCK**2)
        budget = min(budget, share)
    largest = math.isqrt(int(budget) // per_entry)
    tiles = sorted({int(t) for t in tiles}, reverse=True)
    unit = math.lcm(*tiles) if tiles else 1
    if largest >= unit:
        return unit * min(largest // unit, max(1, 1024 // unit))
    for tile in tiles:  # whole tiles of the largest size that fits, parts of the others
        if largest >= tile:
            return tile * (largest // tile)
    if largest < 1:
        warnings.warn(f"Could not adhere to working_memory config. Currently {working_memory:g}MiB, "
                      f"{per_entry / 2**20:.2g}MiB required for one entry per block.", UserWarning, stacklevel=3)
        return 1
    return largest


def combine_blockwise(sources, combine, *, symmetric=False, working_memory=None, n_jobs=None):
    """``combine(matrices)`` of whole matrices, computed a square block at a time.

    Parameters
    ----------
    sources : dict
        Name -> an object with ``shape``, ``tile``, ``block(rows, cols)`` and
        ``mirrored(rows, cols)`` (:class:`~graphinvariants.kernels.KernelBlocks`,
        :class:`MatrixBlocks`), all of one shape.
    combine : callable
        Name -> block in, block out; elementwise, so that a block of the result is the
        result of the blocks.
    symmetric : bool, keyword-only
        The square matrix of one collection: the result is ``(K + K.T) / 2`` with a
        diagonal of exactly 1, ``K`` the combination; blocks above the diagonal are
        computed and mirrored.
    working_memory : float or None, keyword-only
        MiB the blocks of all threads may use together (see :func:`block_size`: also
        at most :data:`OUTPUT_SHARE` of the output's bytes, or blocks of
        :data:`MIN_BLOCK` rows); ``None``: ``sklearn.get_config()["working_memory"]``.
        The output matrix comes on top.
    n_jobs : int or None, keyword-only
        Threads over blocks (``None``: 1, ``-1``: all cores).

    Returns
    -------
    numpy.ndarray of float64

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.kernels.learned.blockwise import MatrixBlocks, combine_blockwise
    >>> A = np.array([[1.0, 0.5, 0.2], [0.5, 1.0, 0.4], [0.2, 0.4, 1.0]])
    >>> sources = {"a": MatrixBlocks(A, symmetric=True), "b": MatrixBlocks(A**2, symmetric=True)}
    >>> K = combine_blockwise(sources, lambda m: 0.5 * m["a"] + 0.5 * m["b"], symmetric=True,
    ...                       working_memory=1e-4)
    >>> bool(np.array_equal(K, 0.5 * A + 0.5 * A**2))
    True
    """
    if not sources:
        raise ValueError("combine_blockwise needs at least one source matrix")
    shapes = {tuple(source.shape) for source in sources.values()}
    if len(shapes) > 1:
        raise ValueError(f"the source matrices have different shapes: {sorted(shapes)}")
    (n, m), = shapes
    if symmetric and n != m:
        raise ValueError(f"symmetric=True needs square matrices, got shape {(n, m)}")
    n_jobs = check_n_jobs(n_jobs)
    b = block_size([source.tile for source in sources.values()], len(sources), working_memory=working_memory,
                   n_jobs=n_jobs, shape=(n, m))
    out = np.empty((n, m))
    row_blocks = [slice(a, min(a + b, n)) for a in range(0, n, b)]
    col_blocks = [slice(a, min(a + b, m)) for a in range(0, m, b)]
    tasks = [(i, j) for i in range(len(row_blocks)) for j in range(len(col_blocks)) if not symmetric or j >= i]

    def blocks(rows, cols):
        return combine({name: source.block(rows, cols) for name, source in sources.items()})

    def run(task):
        i, j = task
        rows, cols = row_blocks[i], col_blocks[j]
        K = blocks(rows, cols)
        if not symmetric:
            out[rows, cols] = K
            return
        if i == j:
            K = (K + K.T) / 2
        elif not all(source.mirrored(rows, cols) for source in sources.values()):
            K = (K + blocks(cols, rows).T) / 2  # some mirror images were computed apart
        # else: every value is its mirror image's, and (x + x) / 2 == x exactly
        out[rows, cols] = K
        if i != j:
            out[cols, rows] = K.T

    if n_jobs == 1 or len(tasks) <= 1:
        for task in tasks:
            run(task)
    else:
        from joblib import Parallel, delayed

        Parallel(n_jobs=n_jobs, prefer="threads")(delayed(run)(task) for task in tasks)
    if symmetric:
        np.fill_diagonal(out, 1.0)
    return out
