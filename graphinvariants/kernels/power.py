"""The power kernel: Bhattacharyya coefficient between two graphs' Gaussians.

For Gaussians ``p_A = N(mu_A, Sigma_A)`` and ``p_B = N(mu_B, Sigma_B)`` in ``R^k``,

.. math::

    K(A, B) = \\int \\sqrt{p_A(x) p_B(x)} \\, dx
            = \\frac{|\\Sigma_A|^{1/4} |\\Sigma_B|^{1/4}}{|\\Sigma|^{1/2}}
              \\exp\\left(-\\tfrac18 (\\mu_A - \\mu_B)^T \\Sigma^{-1} (\\mu_A - \\mu_B)\\right),
    \\qquad \\Sigma = \\tfrac12 (\\Sigma_A + \\Sigma_B).

This is the exact integral (``exp(-D_B)`` with ``D_B`` the Bhattacharyya distance);
it gives ``K(A, A) = 1``. The closed form printed in the paper (its Eq. 4) does not:
see the erratum in the documentation's user guide.

Covariances are regularised per graph by a floor: their eigenvalues below ``ridge *
scale`` are raised to it, ``scale`` the mean squared entry of the graph's power summary
(:meth:`PowerInvariants.ridge_scale`); a covariance without such eigenvalues is used as
it is. Because the ridge belongs to each graph and not to each pair, every graph is one
fixed Gaussian and Gram matrices stay positive semidefinite. Pairs that the direct
evaluation (Cholesky) cannot resolve, a singular covariance or two nearly equal graphs,
are evaluated in whitened coordinates (:mod:`graphinvariants.embeddings._bhattacharyya`),
so a last-bit change of the invariants moves the kernel by about a last bit there.
"""

import numpy as np

from .._utils.validation import check_n_jobs
from ..embeddings.gaussian import DEFAULT_RIDGE, GaussianEmbedding, checked_moments, singular_mask
from .engine import paired_kernels, pairwise_kernels

__all__ = ["DEFAULT_RIDGE", "bhattacharyya_coefficient", "paired_power_kernel", "power_kernel", "power_kernel_matrix"]


def bhattacharyya_coefficient(mean1, cov1, mean2, cov2):
    """Bhattacharyya coefficient ``integral sqrt(p1 p2)`` of two Gaussians.

    A direct, per-pair implementation of the closed form (log-determinants and one
    linear solve); :func:`power_kernel_matrix` evaluates the same formula
    vectorised over pairs.

    Parameters
    ----------
    mean1, mean2 : array_like of shape (k,)
    cov1, cov2 : array_like of shape (k, k)
        Symmetric positive definite.

    Returns
    -------
    float
        In ``[0, 1]``; 1 exactly when the two Gaussians are equal.

    Raises
    ------
    ValueError
        If shapes disagree, an entry is NaN or infinite, or a covariance is not
        symmetric positive definite.

    Examples
    --------
    >>> import graphinvariants as gi
    >>> gi.bhattacharyya_coefficient([0.0], [[1.0]], [0.0], [[1.0]])
    1.0
    >>> round(gi.bhattacharyya_coefficient([0.0], [[1.0]], [2.0], [[1.0]]), 6)  # exp(-1/2)
    0.606531
    """
    m1, c1 = checked_moments(np.atleast_1d(mean1), np.atleast_2d(cov1))
    m2, c2 = checked_moments(np.atleast_1d(mean2), np.atleast_2d(cov2))
    if m1.shape != m2.shape:
        raise ValueError(f"the two Gaussians have different dimensions, {m1.size} and {m2.size}")
    if singular_mask(np.stack([c1, c2])).any():
        raise ValueError("both covariances must be positive definite")
    cov = (c1 + c2) / 2
    diff = m1 - m2
    logdet = np.linalg.slogdet(cov)[1]
    log_bc = (
        0.25 * (np.linalg.slogdet(c1)[1] + np.linalg.slogdet(c2)[1])
        - 0.5 * logdet
        - 0.125 * diff @ np.linalg.solve(cov, diff)
    )
    return float(min(np.exp(log_bc), 1.0))


def power_kernel(G, H, *, k=5, ridge=DEFAULT_RIDGE, weight=None):
    """Power kernel between two graphs (Bhattacharyya coefficient of their Gaussians).

    Parameters
    ----------
    G, H : graph or PowerInvariants
        NetworkX or igraph graphs, adjacency matrices, or precomputed invariants.
    k : int, keyword-only
        Number of power iterations, default 5 as in the paper.
    ridge : float, keyword-only
        Relative ridge: each covariance's eigenvalues below ``ridge`` times the mean
        squared entry of the power summary are raised to it (default ``1e-12``). ``0``
        is allowed for graphs whose covariances are full rank.
    weight : str or None, keyword-only
        Edge attribute to use as weight; ``None`` (default) is the 0/1 adjacency.

    Returns
    -------
    float
        In ``[0, 1]``; ``1`` for isomorphic graphs.

    Raises
    ------
    ValueError
        If ``ridge == 0`` and a covariance is singular, or the invariants' ``k``
        differs from ``k``.

    See Also
    --------
    power_kernel_matrix : all pairs of a collection, vectorised.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> G = nx.les_miserables_graph()
    >>> gi.power_kernel(G, G)
    1.0
    >>> H = nx.relabel_nodes(G, {v: i for i, v in enumerate(sorted(G))})
    >>> round(gi.power_kernel(G, H), 12)  # invariant under renumbering
    1.0
    >>> G1, G2 = nx.gnp_random_graph(60, 0.1, seed=1), nx.gnp_random_graph(60, 0.1, seed=2)
    >>> round(gi.power_kernel(G1, G2), 4)
    0.9064
    """
    K = power_kernel_matrix([G], [H], k=k, ridge=ridge, weight=weight)
    return float(K[0, 0])


def power_kernel_matrix(graphs, other=None, *, k=5, ridge=DEFAULT_RIDGE, weight=None, n_jobs=None):
    """Power-kernel matrix of a collection of graphs, vectorised over pairs.

    Parameters
    ----------
    graphs : sequence of graphs, GraphBatch, TUDataset, sequence of PowerInvariants or GaussianBatch
    other : same kinds as ``graphs``, optional
        If given, the result is ``len(graphs) x len(other)``; otherwise the square,
        symmetric matrix of ``graphs`` with itself (unit diagonal).
    k : int, keyword-only
    ridge : float, keyword-only
        Relative ridge, as in :func:`power_kernel`.
    weight : str or None, keyword-only
    n_jobs : int or None, keyword-only
        Worker threads over tiles of pairs (``None``: 1, ``-1``: all cores).

    Returns
    -------
    numpy.ndarray of shape (len(graphs), len(other))
        Entries in ``[0, 1]``, never NaN.

    Raises
    ------
    ValueError
        If ``ridge == 0`` and a covariance is singular (the message names the graph).

    Notes
    -----
    Invariants are computed once per graph (in one batched pass), then the pairs are
    evaluated in tiles of 128 x 128 pairs (256 x 256 with threads): the Cholesky
    factor of ``(Sigma_A + Sigma_B) / 2`` is written out entry by entry as numpy
    operations on whole tiles, so there is no Python call per pair and memory stays
    ``O(tile * k^2)`` beyond the output.
    From 4,000,000 pairs on (2,000 graphs) the pairs go to the compiled engine when
    numba is installed (``engine="auto"`` of
    :class:`~graphinvariants.embeddings.GaussianEmbedding`), whose code is compiled
    once per environment and then cached on disk: on NCI1 (4,110 graphs) the first
    matrix with an empty numba cache took 2.8 s, against 0.37 s in a later process and
    0.68 s by numpy (``benchmarks/benchmarks/kernels.py``, asv ``kernels.FirstCall``, empty numba cache). ``kernel_matrix(graphs, kernel="power", engine="numpy")`` never
    compiles.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(60, 0.1, seed=1), nx.gnp_random_graph(60, 0.1, seed=2),
    ...           nx.barabasi_albert_graph(60, 3, seed=1)]
    >>> gi.power_kernel_matrix(graphs).round(3)
    array([[1.   , 0.906, 0.165],
           [0.906, 1.   , 0.121],
           [0.165, 0.121, 1.   ]])
    """
    functional = GaussianEmbedding(k, ridge=ridge, weight=weight)
    return pairwise_kernels(graphs, other, functional=functional, n_jobs=check_n_jobs(n_jobs))


def paired_power_kernel(graphs, other, *, k=5, ridge=DEFAULT_RIDGE, weight=None):
    """Power kernel of matching pairs: ``K(graphs[i], other[i])`` for every ``i``.

    The diagonal of ``power_kernel_matrix(graphs, other)`` without computing the rest,
    vectorised over pairs.

    Parameters
    ----------
    graphs, other : collections of graphs or invariants, of equal length
        The kinds :func:`power_kernel_matrix` accepts.
    k, ridge, weight : keyword-only
        As in :func:`power_kernel`.

    Returns
    -------
    numpy.ndarray of shape (len(graphs),)

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> G = nx.karate_club_graph()
    >>> H = gi.flip_node_pair(G, 0, 1)
    >>> gi.paired_power_kernel([G, G], [G, H]).round(4)
    array([1.   , 0.521])
    """
    return paired_kernels(graphs, other, functional=GaussianEmbedding(k, ridge=ridge, weight=weight))
