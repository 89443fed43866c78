"""Kernels by name: one calling convention for every functional.

In the manner of :func:`sklearn.metrics.pairwise.pairwise_kernels`, a name picks the
functional and the remaining keyword arguments are its parameters.
"""

import inspect

from ..embeddings import GaussianEmbedding, WalkHistogram
from .engine import pairwise_kernels

__all__ = ["KERNELS", "kernel_matrix", "make_functional"]

_FUNCTIONALS = {"power": GaussianEmbedding, "histogram": WalkHistogram}

#: Kernel names accepted by :func:`kernel_matrix`, each with a one-line description.
KERNELS = {
    "power": "the paper's power kernel: Bhattacharyya coefficient of the power summaries' Gaussians (k, ridge, weight)",
    "histogram": "cosine-normalised histogram of exact walk-count profiles, all prefixes t = 1..k (k, weight)",
}


def make_functional(kernel, **params):
    """The :class:`~graphinvariants.embeddings.Functional` behind a kernel name.

    Raises
    ------
    ValueError
        If the name is unknown or a parameter does not belong to that kernel (the
        message lists the names, or the parameters the kernel takes).

    Examples
    --------
    >>> from graphinvariants.kernels import make_functional
    >>> make_functional("histogram", k=3)
    WalkHistogram(k=3, weight=None)
    """
    if kernel not in _FUNCTIONALS:
        raise ValueError(f"unknown kernel {kernel!r}; choose one of {sorted(_FUNCTIONALS)}")
    cls = _FUNCTIONALS[kernel]
    accepted = [p for p in inspect.signature(cls).parameters if p != "self"]
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise ValueError(f"kernel {kernel!r} takes the parameters {accepted}, not {unknown}")
    return cls(**params)


def kernel_matrix(graphs, other=None, *, kernel="power", n_jobs=None, **params):
    """Kernel matrix of a collection of graphs for a kernel given by name.

    Parameters
    ----------
    graphs : collection of graphs
        Any sequence of graphs, a GraphBatch or a TUDataset (or precomputed
        embeddings of that kernel's functional).
    other : collection of graphs, optional
        If given, the ``len(graphs) x len(other)`` cross matrix; otherwise the square,
        symmetric matrix of ``graphs`` (unit diagonal).
    kernel : str, keyword-only
        One of :data:`KERNELS` (default ``"power"``, the paper's).
    n_jobs : int or None, keyword-only
        Worker threads over tiles of pairs.
    **params
        Parameters of the kernel (for example ``k``).

    Returns
    -------
    numpy.ndarray of shape (len(graphs), len(other))

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> graphs = [nx.path_graph(4), nx.path_graph(5), nx.cycle_graph(4)]
    >>> gi.kernel_matrix(graphs, kernel="histogram", k=2).round(3)
    array([[1.   , 0.959, 0.354],
           [0.959, 1.   , 0.603],
           [0.354, 0.603, 1.   ]])
    """
    functional = make_functional(kernel, **params)
    return pairwise_kernels(graphs, other, functional=functional, n_jobs=n_jobs)
