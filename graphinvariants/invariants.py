"""The Gaussian invariants of a graph: mean and covariance of its power summary.

For a power summary ``S`` (``n x k``) the invariants are the mean ``mu = S.mean(0)``
and the covariance ``Sigma = (S - mu).T @ (S - mu) / n`` (divided by ``n``, as in the
paper). Renumbering the nodes permutes the rows of ``S`` and leaves both unchanged
(Theorems 1 and 2 of the paper).
"""

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._validation import check_k, check_ridge
from .adapters import as_adjacency
from .summary import PowerSummary, power_iteration, power_summary

__all__ = [
    "DEFAULT_RIDGE",
    "PowerInvariants",
    "power_invariants",
    "batch_power_invariants",
    "save_invariants",
    "load_invariants",
]

#: Default relative ridge, 1e-12: each covariance gets ridge times the mean squared
#: entry of its power summary added to the diagonal (see PowerInvariants.ridge_scale).
DEFAULT_RIDGE = 1e-12

_NPZ_FORMAT = "graphinvariants.PowerInvariants/1"


@dataclass(frozen=True, eq=False, repr=False)
class PowerInvariants:
    """Mean and covariance of a graph's power summary: a Gaussian in ``R^k``.

    Instances are immutable and their arrays read-only. Build them with
    :func:`power_invariants` (one graph) or :func:`batch_power_invariants` (many).

    Parameters
    ----------
    mean : array_like of shape (k,)
    covariance : array_like of shape (k, k)
        Symmetric positive semidefinite.
    n_nodes : int
        Number of nodes of the graph (``n`` in the 1/n of the covariance).

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> inv = gi.power_invariants(nx.star_graph(3), k=2)
    >>> inv
    PowerInvariants(k=2, n_nodes=4, mean=[0.375, 0.5], covariance=[[0.04688, 0.0], [0.0, 0.0]])
    >>> inv.covariance  # a star: every node has two-step walk count 3
    array([[0.046875, 0.      ],
           [0.      , 0.      ]])
    >>> karate = gi.power_invariants(nx.karate_club_graph())
    >>> round(karate.logpdf(karate.mean), 3)  # log density of the Gaussian at its mean
    17.499
    """

    mean: np.ndarray
    covariance: np.ndarray
    n_nodes: int

    def __post_init__(self):
        mean = np.array(self.mean, dtype=np.float64)
        cov = np.array(self.covariance, dtype=np.float64)
        if mean.ndim != 1 or mean.size == 0:
            raise ValueError(f"mean must be a non-empty 1-D array, got shape {mean.shape}")
        if cov.shape != (mean.size, mean.size):
            raise ValueError(f"covariance must have shape {(mean.size, mean.size)}, got {cov.shape}")
        if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(cov))):
            raise ValueError("mean and covariance must be finite")
        if not np.allclose(cov, cov.T, rtol=1e-10, atol=0):
            raise ValueError("covariance must be symmetric")
        if isinstance(self.n_nodes, bool) or not isinstance(self.n_nodes, numbers.Integral):
            raise TypeError(f"n_nodes must be an int, got {self.n_nodes!r}")
        if self.n_nodes < 1:
            raise ValueError(f"n_nodes must be positive, got {self.n_nodes}")
        mean.setflags(write=False)
        cov.setflags(write=False)
        object.__setattr__(self, "mean", mean)
        object.__setattr__(self, "covariance", cov)
        object.__setattr__(self, "n_nodes", int(self.n_nodes))

    @classmethod
    def from_summary_matrix(cls, S):
        """Invariants of a power-summary matrix ``S`` (rows are nodes)."""
        S = np.asarray(S, dtype=np.float64)
        means, covs = stacked_moments(S, np.array([0, len(S)]))
        return cls(means[0], covs[0], S.shape[0])

    @property
    def k(self):
        """Dimension of the Gaussian: the number of power iterations (int)."""
        return self.mean.size

    def ridge_scale(self):
        """Scale that the relative ``ridge`` multiplies (Python float).

        The mean squared entry of the power summary, ``(trace(Sigma) + |mu|^2) / k``,
        so the ridge has the units of the data and is unchanged by rescaling it. It is
        zero only when the summary is zero (no edges); then ``1 / n_nodes**2`` is used,
        the squared scale of the start vector ``1 / ||1||_1``.
        """
        scale = (np.trace(self.covariance) + self.mean @ self.mean) / self.k
        return float(scale) if scale > 0 else 1.0 / self.n_nodes**2

    def regularized_covariance(self, ridge=DEFAULT_RIDGE):
        """Return ``Sigma + ridge * ridge_scale() * I`` as a new array."""
        ridge = check_ridge(ridge)
        return self.covariance + (ridge * self.ridge_scale()) * np.eye(self.k)

    def logpdf(self, x, *, ridge=DEFAULT_RIDGE):
        """Log density of the Gaussian ``N(mean, regularized covariance)`` at ``x``.

        Parameters
        ----------
        x : array_like of shape (k,) or (m, k)
        ridge : float, keyword-only
            Relative ridge (see :meth:`regularized_covariance`).

        Returns
        -------
        float or numpy.ndarray of shape (m,)

        Raises
        ------
        ValueError
            If the (regularized) covariance is singular, e.g. ``ridge=0`` for a
            regular graph.
        """
        x = np.asarray(x, dtype=np.float64)
        if x.shape[-1:] != (self.k,) or x.ndim > 2:
            raise ValueError(f"x must have shape ({self.k},) or (m, {self.k}), got {x.shape}")
        chol = _cholesky_or_raise(self.regularized_covariance(ridge))
        z = np.linalg.solve(chol, (x - self.mean).T)
        logdet = 2.0 * np.log(np.diag(chol)).sum()
        out = -0.5 * (z * z).sum(axis=0) - 0.5 * (self.k * np.log(2 * np.pi) + logdet)
        return float(out) if x.ndim == 1 else out

    def pdf(self, x, *, ridge=DEFAULT_RIDGE):
        """Density of the Gaussian at ``x`` (see :meth:`logpdf`)."""
        out = np.exp(self.logpdf(x, ridge=ridge))
        return float(out) if np.ndim(out) == 0 else out

    def to_dict(self):
        """Plain-Python dictionary (JSON-serialisable); inverse of :meth:`from_dict`."""
        return {"mean": self.mean.tolist(), "covariance": self.covariance.tolist(), "n_nodes": self.n_nodes}

    @classmethod
    def from_dict(cls, data):
        """Build invariants from the output of :meth:`to_dict`."""
        try:
            return cls(data["mean"], data["covariance"], data["n_nodes"])
        except (KeyError, TypeError) as err:
            raise ValueError("expected a dict with keys 'mean', 'covariance' and 'n_nodes'") from err

    def __repr__(self):
        mean = [float(f"{v:.4g}") for v in self.mean]
        cov = [[float(f"{v:.4g}") for v in row] for row in self.covariance]
        return f"PowerInvariants(k={self.k}, n_nodes={self.n_nodes}, mean={mean}, covariance={cov})"


def singular_mask(covariances):
    """Boolean mask of the numerically singular matrices in a stack (private helper).

    A symmetric matrix counts as singular when its smallest eigenvalue is at most
    ``k * eps`` times its largest (or it is zero): Cholesky and log-determinants of
    such a matrix are dominated by rounding error.
    """
    covariances = np.asarray(covariances, dtype=np.float64)
    eig = np.linalg.eigvalsh(covariances)
    k = covariances.shape[-1]
    return eig[..., 0] <= k * np.finfo(np.float64).eps * np.maximum(eig[..., -1], 0.0)


def _cholesky_or_raise(cov):
    if singular_mask(cov):
        raise ValueError(
            "the covariance is singular (a regular or edgeless graph, or n_nodes <= k); "
            "use a positive ridge"
        )
    return np.linalg.cholesky(cov)


def power_invariants(G, *, k=5, weight=None):
    """Return the Gaussian invariants (mean, covariance) of a graph.

    Parameters
    ----------
    G : graph or PowerSummary
        Anything :func:`as_adjacency` accepts, or a precomputed :class:`PowerSummary`.
    k : int, keyword-only
        Number of power iterations, default 5.
    weight : str or None, keyword-only
        Edge attribute to use as weight; ``None`` (default) is the 0/1 adjacency.

    Returns
    -------
    PowerInvariants

    Raises
    ------
    ValueError
        If the graph has no nodes, or a summary's ``k`` differs from ``k``.

    Notes
    -----
    Edgeless graphs have mean and covariance zero; regular graphs (every row of the
    summary equal) and graphs with ``n <= k`` have singular covariances. All of these
    are valid, finite invariants; :func:`power_kernel` handles them with its ridge.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> inv = gi.power_invariants(nx.cycle_graph(5), k=3)
    >>> inv.mean  # a 2-regular graph: every node has the same profile
    array([0.4, 0.4, 0.4])
    >>> float(abs(inv.covariance).max())
    0.0
    """
    k = check_k(k)
    if isinstance(G, PowerSummary):
        if G.k != k:
            raise ValueError(f"the power summary has k={G.k}, but k={k} was asked for")
        return G.invariants()
    return power_summary(G, k=k, weight=weight).invariants()


def batch_power_invariants(graphs, *, k=5, weight=None):
    """Return the invariants of many graphs, computed in one vectorised pass.

    The graphs are stacked into one block-diagonal adjacency, so ``k`` sparse products
    serve all of them; this is much faster than a Python loop over small graphs.

    Parameters
    ----------
    graphs : iterable
        Graphs (anything :func:`as_adjacency` accepts) or :class:`PowerInvariants`,
        which are passed through after checking their ``k``.
    k : int, keyword-only
    weight : str or None, keyword-only

    Returns
    -------
    list of PowerInvariants

    Raises
    ------
    ValueError
        If a graph has no nodes or a precomputed invariant has another ``k``.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> invs = gi.batch_power_invariants([nx.path_graph(4), nx.star_graph(3)], k=3)
    >>> [inv.n_nodes for inv in invs]
    [4, 4]
    """
    k = check_k(k)
    items = list(graphs)
    out = [None] * len(items)
    todo = []
    for i, item in enumerate(items):
        if isinstance(item, PowerInvariants):
            if item.k != k:
                raise ValueError(f"item {i} is a PowerInvariants with k={item.k}, but k={k} was asked for")
            out[i] = item
        elif isinstance(item, PowerSummary):
            out[i] = power_invariants(item, k=k)
        else:
            adjacency = as_adjacency(item, weight=weight)
            if adjacency.n_nodes == 0:
                raise ValueError(f"graph {i} has no nodes; its invariants are undefined")
            todo.append((i, adjacency.matrix))
    if todo:
        matrices = [m for _, m in todo]
        offsets = np.concatenate(([0], np.cumsum([m.shape[0] for m in matrices])))
        means, covs = invariants_from_blocks(sp.block_diag(matrices, format="csr"), offsets, k)
        for (i, matrix), mean, cov in zip(todo, means, covs):
            out[i] = PowerInvariants(mean, cov, matrix.shape[0])
    return out


def invariants_from_blocks(A, offsets, k):
    """Means (N, k) and covariances (N, k, k) of the graphs of a block-diagonal matrix."""
    return stacked_moments(power_iteration(A, offsets, k), offsets)


def stacked_moments(S, offsets):
    """Mean and 1/n covariance of the rows of each graph's block of ``S``.

    Rows are summed in a canonical order (sorted lexicographically within each graph)
    and centred on the first of them before the usual two-pass formula, so that

    * the result is the same to the last bit whatever the node order, and
    * a graph whose rows are all equal (a regular graph) has covariance exactly 0.
    """
    n, k = S.shape
    sizes = np.diff(offsets)
    starts = offsets[:-1]
    owner = np.repeat(np.arange(len(sizes)), sizes)
    S = S[np.lexsort(tuple(S[:, j] for j in reversed(range(k))) + (owner,))]
    means = np.add.reduceat(S, starts, axis=0) / sizes[:, None]
    shifted = S - np.repeat(S[starts], sizes, axis=0)
    centred = shifted - np.repeat(np.add.reduceat(shifted, starts, axis=0) / sizes[:, None], sizes, axis=0)
    outer = (centred[:, :, None] * centred[:, None, :]).reshape(n, k * k)
    covs = np.add.reduceat(outer, starts, axis=0).reshape(-1, k, k) / sizes[:, None, None]
    return means, (covs + covs.transpose(0, 2, 1)) / 2


def save_invariants(path, invariants):
    """Save many invariants (of one k) to one NumPy npz file, without pickle.

    Parameters
    ----------
    path : str or path-like
    invariants : sequence of PowerInvariants

    Examples
    --------
    >>> import os, tempfile
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> invs = gi.batch_power_invariants([nx.path_graph(4), nx.cycle_graph(6)])
    >>> path = os.path.join(tempfile.mkdtemp(), "invariants.npz")
    >>> gi.save_invariants(path, invs)
    >>> [inv.n_nodes for inv in gi.load_invariants(path)]
    [4, 6]
    """
    invariants = list(invariants)
    if not invariants:
        raise ValueError("nothing to save: the list of invariants is empty")
    if not all(isinstance(inv, PowerInvariants) for inv in invariants):
        raise TypeError("save_invariants takes a sequence of PowerInvariants")
    ks = {inv.k for inv in invariants}
    if len(ks) != 1:
        raise ValueError(f"all invariants must have the same k, got {sorted(ks)}")
    np.savez(
        path,
        format=np.array(_NPZ_FORMAT),
        mean=np.stack([inv.mean for inv in invariants]),
        covariance=np.stack([inv.covariance for inv in invariants]),
        n_nodes=np.array([inv.n_nodes for inv in invariants], dtype=np.int64),
    )


def load_invariants(path):
    """Load invariants saved by :func:`save_invariants`.

    Returns
    -------
    list of PowerInvariants

    Raises
    ------
    ValueError
        If the file is not a graphinvariants invariants file or is inconsistent.

    Examples
    --------
    >>> import os, tempfile
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> path = os.path.join(tempfile.mkdtemp(), "star.npz")
    >>> gi.save_invariants(path, [gi.power_invariants(nx.star_graph(4))])
    >>> gi.load_invariants(path)[0].n_nodes
    5
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            fmt = str(data["format"])
            mean, cov, n_nodes = data["mean"], data["covariance"], data["n_nodes"]
    except (KeyError, ValueError, OSError) as err:
        raise ValueError(f"{path} is not a graphinvariants invariants file: {err}") from err
    if fmt != _NPZ_FORMAT:
        raise ValueError(f"{path}: unknown format {fmt!r}, expected {_NPZ_FORMAT!r}")
    if mean.ndim != 2 or cov.shape != mean.shape + mean.shape[1:] or n_nodes.shape != mean.shape[:1]:
        raise ValueError(f"{path}: arrays have inconsistent shapes")
    return [PowerInvariants(m, c, int(n)) for m, c, n in zip(mean, cov, n_nodes)]
