"""One BLAS thread for a block of code, with the libraries looked up once per process,
and products whose rows are the same bits in any block."""

import functools

import numpy as np

__all__ = ["PRODUCT_ROWS", "fixed_shape_product", "one_blas_thread"]

#: Rows per product (the Nystroem part of GraphFeatures): every row goes through a
#: matrix product of exactly this many rows (the last chunk padded with zeros), so that a row's features
#: are the same bits whatever block it came in (BLAS takes another code path for the
#: few rows left over at the end of a product).
PRODUCT_ROWS = 256


def fixed_shape_product(C, normalization):
    """``C @ normalization`` in chunks of exactly :data:`PRODUCT_ROWS` rows (the last
    one padded with zeros), on one BLAS thread: each row's result is the same bits in
    any block and in any process."""
    n = C.shape[0]
    out = np.empty((n, normalization.shape[1]))
    chunk = np.zeros((PRODUCT_ROWS, C.shape[1]))
    # one BLAS thread: OpenBLAS splits a product among its threads in ways that change
    # the last bits, and Dask workers run with one thread (OPENBLAS_NUM_THREADS=1)
    with one_blas_thread():
        for start in range(0, n, PRODUCT_ROWS):
            stop = min(n, start + PRODUCT_ROWS)
            chunk[: stop - start] = C[start:stop]
            chunk[stop - start :] = 0.0
            out[start:stop] = (chunk @ normalization)[: stop - start]
    return out


@functools.lru_cache(maxsize=1)
def _controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def one_blas_thread():
    """A context in which BLAS (OpenBLAS, MKL, BLIS) runs on one thread.

    ``threadpoolctl.threadpool_limits`` searches the loaded libraries on every call
    (about 3 ms); the controller found once is reused here, which matters where a
    cross-validation learns weights two hundred times. BLAS is loaded with numpy, before
    the first call.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants._utils.blas import one_blas_thread
    >>> with one_blas_thread():
    ...     float(np.ones((3, 3)) @ np.ones(3) @ np.ones(3))
    9.0
    """
    return _controller().limit(limits=1, user_api="blas")
