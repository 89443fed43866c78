"""One BLAS thread for a block of code, with the libraries looked up once per process."""

import functools


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
