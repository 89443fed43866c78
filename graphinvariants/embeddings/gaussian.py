"""The paper's functional: each graph's power summary as a Gaussian (mean, covariance).

For a power summary ``S`` (``n x k``) the invariants are the mean ``mu = S.mean(0)``
and the covariance ``Sigma = (S - mu).T @ (S - mu) / n`` (divided by ``n``, as in the
paper). Renumbering the nodes permutes the rows of ``S`` and leaves both unchanged
(Theorems 1 and 2 of the paper).

A collection is a :class:`GaussianBatch` (arrays of means, covariances and node
counts); :class:`PowerInvariants` is the immutable per-graph view people inspect.
:class:`GaussianEmbedding` is the functional the pair engine evaluates: the
Bhattacharyya coefficient between two graphs' Gaussians (the power kernel).
"""

import copy
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .._utils.validation import check_choice, check_k, check_ridge
from ..graphs import as_adjacency, as_graph_batch
from ..walks.large import COVARIANCE_OVERFLOW, column_sums, is_large, is_large_graph, power_columns, summary_moments
from ..walks.summary import NORMALIZATIONS, PowerSummary, batch_power_summary, power_summary
from . import _bhattacharyya
from .base import Functional, check_not_single, params_hash

__all__ = [
    "DEFAULT_RIDGE",
    "GaussianBatch",
    "GaussianEmbedding",
    "PowerInvariants",
    "power_invariants",
    "batch_power_invariants",
]

#: Default relative ridge, 1e-12: the eigenvalues of each covariance below ridge times
#: the mean squared entry of its power summary are raised to it (a floor; see
#: PowerInvariants.ridge_scale and PowerInvariants.regularized_covariance).
DEFAULT_RIDGE = 1e-12


#: Values of one ``k x k`` matrix per item held at a time by the blocked loops over
#: nodes (outer products of the covariance) and over pairs (their Cholesky factors):
#: 2**21 doubles, 16 MiB per array, whatever the number of nodes or pairs and ``k``.
_BLOCK_VALUES = 2**21


def _ridge_scales(means, covs, n_nodes):
    """Per graph: mean squared entry of the power summary, ``1/n^2`` when it is 0."""
    k = means.shape[1]
    scale = (np.trace(covs, axis1=1, axis2=2) + np.einsum("ij,ij->i", means, means)) / k
    return np.where(scale > 0, scale, 1.0 / np.asarray(n_nodes, dtype=np.float64) ** 2)


@dataclass(frozen=True, eq=False, repr=False)
class PowerInvariants:
    """Mean and covariance of a graph's power summary: a Gaussian in ``R^k``.

    Instances are immutable and their arrays read-only. Build them with
    :func:`power_invariants` (one graph) or take them from a :class:`GaussianBatch`
    (many graphs, :func:`batch_power_invariants`).

    Two invariants compare equal when ``k``, ``n_nodes`` and every entry of the mean
    and covariance are equal as floats (exact comparison, as for numpy arrays; use
    :func:`numpy.allclose` on the arrays for a tolerance). Equal invariants hash
    equally, so they can be dictionary keys.

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
    >>> inv == gi.power_invariants(nx.star_graph(3), k=2)
    True
    >>> karate = gi.power_invariants(nx.karate_club_graph())
    >>> round(karate.logpdf(karate.mean), 3)  # log density of the Gaussian at its mean
    17.499
    """

    mean: np.ndarray
    covariance: np.ndarray
    n_nodes: int

    def __post_init__(self):
        mean, cov = checked_moments(self.mean, self.covariance)
        if isinstance(self.n_nodes, (bool, np.bool_)) or not isinstance(self.n_nodes, numbers.Integral):
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
        return float(_ridge_scales(self.mean[None], self.covariance[None], [self.n_nodes])[0])

    def regularized_covariance(self, ridge=DEFAULT_RIDGE):
        """Return the covariance with its eigenvalues floored, as a new array.

        The eigenvalues of ``Sigma`` below ``ridge * ridge_scale()`` are raised to it
        (``V max(lam, ridge * s) V^T``); a covariance without such eigenvalues is
        returned as it is. So the ridge changes nothing where the covariance is well
        defined, and where it is singular, or rounding noise, it gives every such
        direction the same small variance (:func:`power_kernel` explains why).

        Examples
        --------
        >>> import networkx as nx
        >>> import graphinvariants as gi
        >>> star = gi.power_invariants(nx.star_graph(3), k=2)  # rank 1
        >>> star.regularized_covariance(ridge=1e-3).round(6)  # s = 0.21875: a floor of 0.000219
        array([[0.046875, 0.      ],
               [0.      , 0.000219]])
        """
        ridge = check_ridge(ridge)
        lam, vectors = np.linalg.eigh(self.covariance)
        floor = ridge * self.ridge_scale()
        if not lam[0] < floor:
            return self.covariance.copy()
        return floored_covariances(self.covariance[None], lam[None], vectors[None], np.array([floor]))[0]

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
        ridge = check_ridge(ridge)
        lam, vectors = np.linalg.eigh(self.covariance)
        lam = np.maximum(lam, ridge * self.ridge_scale())
        if singular_mask(np.diag(lam)):
            raise ValueError(
                "the covariance is singular (a regular or edgeless graph, or n_nodes <= k); "
                "use a positive ridge"
            )
        # in the eigenbasis: no rounding from the large variances reaches the small ones
        z = (vectors.T @ np.atleast_2d(x - self.mean).T) / np.sqrt(lam)[:, None]
        logdet = np.log(lam).sum()
        out = -0.5 * (z * z).sum(axis=0) - 0.5 * (self.k * np.log(2 * np.pi) + logdet)
        return float(out[0]) if x.ndim == 1 else out

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

    def __eq__(self, other):
        if not isinstance(other, PowerInvariants):
            return NotImplemented
        return (
            self.n_nodes == other.n_nodes
            and self.k == other.k
            and bool(np.array_equal(self.mean, other.mean))
            and bool(np.array_equal(self.covariance, other.covariance))
        )

    def __hash__(self):
        # + 0.0 turns -0.0 into 0.0: equal invariants (==) must hash alike
        return hash((self.n_nodes, (self.mean + 0.0).tobytes(), (self.covariance + 0.0).tobytes()))

    def __repr__(self):
        mean = [float(f"{v:.4g}") for v in self.mean]
        cov = [[float(f"{v:.4g}") for v in row] for row in self.covariance]
        return f"PowerInvariants(k={self.k}, n_nodes={self.n_nodes}, mean={mean}, covariance={cov})"


def checked_moments(mean, cov, *, batch=False):
    """Float64 copies of means and covariances, checked: shapes, finite, symmetric,
    positive semidefinite (shared with :func:`bhattacharyya_coefficient`)."""
    try:
        mean = np.array(mean, dtype=np.float64)
        cov = np.array(cov, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise TypeError(f"means and covariances must be real numbers: {err}") from None
    lead = 1 if batch else 0
    if mean.ndim != 1 + lead or mean.shape[-1] == 0:
        raise ValueError(f"mean must be a non-empty {'2' if batch else '1'}-D array, got shape {mean.shape}")
    k = mean.shape[-1]
    if cov.shape != mean.shape + (k,):
        raise ValueError(f"covariance must have shape {mean.shape + (k,)}, got {cov.shape}")
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(cov))):
        raise ValueError("mean and covariance must be finite")
    if not np.allclose(cov, np.swapaxes(cov, -1, -2), rtol=1e-10, atol=0):
        raise ValueError("covariance must be symmetric")
    eig = np.linalg.eigvalsh((cov + np.swapaxes(cov, -1, -2)) / 2)
    if np.any(eig[..., 0] < -1e-10 * np.maximum(np.abs(eig).max(axis=-1), np.finfo(float).tiny)):
        raise ValueError("covariance must be positive semidefinite (it has a negative eigenvalue)")
    return mean, cov


class GaussianBatch(Sequence):
    """The Gaussian invariants of many graphs, as arrays.

    A read-only sequence of :class:`PowerInvariants` views (indexing, slicing,
    iteration), backed by three arrays. This is what :func:`batch_power_invariants`
    returns and what every batch function accepts in place of graphs.

    Parameters
    ----------
    means : array_like of shape (n_graphs, k)
    covariances : array_like of shape (n_graphs, k, k)
    n_nodes : array_like of int, shape (n_graphs,)

    Attributes
    ----------
    params : dict
        The parameters the invariants were computed with (``k``, ``normalization``,
        ``weight``), checked whenever the batch is used as precomputed embeddings. A
        batch built from arrays records only ``k`` (the rest is taken on trust).

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> batch = gi.batch_power_invariants([nx.path_graph(4), nx.star_graph(3)], k=3)
    >>> batch
    <GaussianBatch: 2 graphs, k=3>
    >>> batch.means.shape, batch.covariances.shape, batch.n_nodes.tolist()
    ((2, 3), (2, 3, 3), [4, 4])
    >>> batch[1].n_nodes
    4
    """

    def __init__(self, means, covariances, n_nodes):
        means = np.asarray(means, dtype=np.float64)
        if means.ndim == 2 and means.shape[0] == 0:
            covs = np.asarray(covariances, dtype=np.float64).reshape(0, means.shape[1], means.shape[1])
        else:
            means, covs = checked_moments(means, covariances, batch=True)
        n_nodes = np.asarray(n_nodes)
        if n_nodes.shape != means.shape[:1] or (n_nodes.size and not np.issubdtype(n_nodes.dtype, np.integer)):
            raise ValueError(f"n_nodes must be {means.shape[0]} integers, got {n_nodes!r}")
        if np.any(n_nodes < 1):
            raise ValueError("n_nodes must be positive")
        self._init(means, covs, n_nodes.astype(np.int64))

    def _init(self, means, covs, n_nodes, params=None):
        for a in (means, covs, n_nodes):
            a.setflags(write=False)
        self.means, self.covariances, self.n_nodes = means, covs, n_nodes
        # what made the arrays; by hand: only k (nothing for an empty batch)
        self.params = dict(params) if params is not None else ({"k": means.shape[1]} if len(means) else {})
        self._prepared = {}

    @classmethod
    def _trusted(cls, means, covs, n_nodes, params=None):
        """A batch from arrays this package computed itself (no re-validation)."""
        out = cls.__new__(cls)
        out._init(means, covs, np.asarray(n_nodes, dtype=np.int64), params)
        return out

    @property
    def k(self):
        """Dimension of the Gaussians (int)."""
        return self.means.shape[1]

    def __len__(self):
        return self.means.shape[0]

    def __getitem__(self, index):
        if isinstance(index, (int, np.integer)):
            i = range(len(self))[index]
            return PowerInvariants(self.means[i], self.covariances[i], int(self.n_nodes[i]))
        return self.take(np.arange(len(self))[index])

    def take(self, indices):
        """Sub-batch at ``indices`` (in that order, repeats allowed)."""
        indices = np.asarray(indices, dtype=np.int64)
        return GaussianBatch._trusted(self.means[indices], self.covariances[indices], self.n_nodes[indices],
                                      getattr(self, "params", None))  # none in a batch pickled by an older version

    def ridge_scales(self):
        """:meth:`PowerInvariants.ridge_scale` of every graph, shape (n_graphs,)."""
        return _ridge_scales(self.means, self.covariances, self.n_nodes)

    def __repr__(self):
        return f"<GaussianBatch: {len(self)} graphs, k={self.k}>"


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
    covs = _sums_of_outer_products(centred, starts, sizes).reshape(-1, k, k) / sizes[:, None, None]
    covs = (covs + covs.transpose(0, 2, 1)) / 2
    if not np.all(np.isfinite(covs)):
        raise ValueError(COVARIANCE_OVERFLOW)
    return means, covs


def _sums_of_outer_products(centred, starts, sizes):
    """Per graph, the sum of ``x x^T`` (flattened) over its rows ``x`` of ``centred``.

    The outer products are formed for a run of whole graphs at a time (at most
    :data:`_BLOCK_VALUES` values), never for all nodes at once, and each graph's sum is
    one :func:`numpy.add.reduceat` over its own rows, as before blocks. A graph too
    large for a block gets one column of products at a time (a 1-D ``reduceat``
    adds a column exactly as the 2-D one does). So the sums are the same to the last
    bit whatever the block size.
    """
    n, k = centred.shape
    out = np.empty((len(sizes), k * k))
    rows_per_block = max(1, _BLOCK_VALUES // (k * k))
    ends = starts + sizes
    g = 0
    while g < len(sizes):
        stop = int(np.searchsorted(ends, starts[g] + rows_per_block, side="right"))
        if stop > g:  # graphs g .. stop - 1 fit in one block
            rows = slice(starts[g], ends[stop - 1])
            outer = (centred[rows, :, None] * centred[rows, None, :]).reshape(-1, k * k)
            out[g:stop] = np.add.reduceat(outer, starts[g:stop] - starts[g], axis=0)
            g = stop
            continue
        x = centred[starts[g] : ends[g]]
        for i in range(k):
            for j in range(i, k):  # x_i x_j and x_j x_i are the same products
                out[g, i * k + j] = out[g, j * k + i] = np.add.reduceat(x[:, i] * x[:, j], [0])[0]
        g += 1
    return out


class GaussianEmbedding(Functional):
    """The paper's functional: the power summary's Gaussian, compared by the
    Bhattacharyya coefficient (the power kernel).

    Parameters
    ----------
    k : int, default=5
        Number of power iterations.
    ridge : float, default=DEFAULT_RIDGE
        Relative ridge, a floor on each covariance's eigenvalues (see :func:`power_kernel`).
    weight : str or None, default=None
        Edge attribute used as weight.
    normalization : {"l1", "l2", "none"}, default="l1"
        Norm dividing each iterate of Algorithm 1: L1 as printed in the paper, L2, or
        none (raw walk counts). Column weights, by contrast, need no parameter: the
        Bhattacharyya coefficient is unchanged when both Gaussians go through the same
        invertible linear map, so discounting columns cannot change this kernel.
    engine : {"auto", "numba", "numpy"}, default="auto"
        How pairs are evaluated. ``"numpy"``: whole tiles of pairs as numpy operations
        (always available). ``"numba"``: compiled code, several times faster, for
        ``k <= 16`` (larger ``k`` uses numpy); needs numba (``pip install
        graphinvariants[fast]``), else ImportError here. ``"auto"``: numba for
        matrices of at least 4,000,000 pairs when numba can be imported, numpy
        otherwise (numba is then not even imported). The two agree to about 1e-15
        relative (the same arithmetic but for the last bits of ``log`` and ``exp``) and
        each gives ``K(G, G) == 1.0`` exactly. The first use of numba in an
        environment compiles, once per ``k``, cached on disk for later processes, which
        still pay about half a second to import numba and load the code (NCI1's first
        matrix: 2.8 s with an empty numba cache, 0.37 s later, 0.68 s by numpy; see the
        user guide); the choice of ``"auto"`` does not depend on the cache, so the bits
        do not either. Embedding a collection
        whose Gram matrix will use numba starts that loading in a background thread,
        beside the power iterations. A first matrix also touches its output's memory
        for the first time (135 MB for 4,110 graphs: page faults the operating system
        serves in 0.01 to 0.35 s, depending on free huge pages).

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import GaussianEmbedding
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> graphs = [nx.gnp_random_graph(60, 0.1, seed=1), nx.gnp_random_graph(60, 0.1, seed=2),
    ...           nx.barabasi_albert_graph(60, 3, seed=1)]
    >>> pairwise_kernels(graphs, functional=GaussianEmbedding(k=5)).round(3)
    array([[1.   , 0.906, 0.165],
           [0.906, 1.   , 0.121],
           [0.165, 0.121, 1.   ]])
    """

    batch_type = GaussianBatch

    def __init__(self, k=5, *, ridge=DEFAULT_RIDGE, weight=None, normalization="l1", engine="auto"):
        self.k = check_k(k)
        self.ridge = check_ridge(ridge)
        self.weight = weight
        self.normalization = check_choice(normalization, "normalization", NORMALIZATIONS)
        self.engine = _bhattacharyya.check_engine(engine)

    def embed(self, batch):
        params = self.embedding_params()
        if not len(batch):
            return GaussianBatch._trusted(np.zeros((0, self.k)), np.zeros((0, self.k, self.k)), np.zeros(0, np.int64),
                                          params)
        # a collection whose Gram matrix the compiled engine will compute: load it meanwhile
        _bhattacharyya.warm_up(self.engine, self.k, len(batch))
        means, covs = stacked_moments(batch_power_summary(batch, self.k, self.normalization), batch.offsets)
        return GaussianBatch._trusted(means, covs, batch.sizes, params)

    def embedding_params(self):
        # the ridge and the engine change only how pairs are evaluated
        return {"k": self.k, "normalization": self.normalization, "weight": self.weight, "profile": "power summary"}

    def coerce_items(self, items, what):
        check_not_single(items, (PowerInvariants, PowerSummary), what)
        if isinstance(items, Sequence) and not isinstance(items, (str, bytes)):
            precomputed = {isinstance(item, (PowerInvariants, PowerSummary)) for item in items}
            if self.normalization == "l1" and any(is_large_graph(item) for item in items):
                # one large graph at a time at the floor (large_graph), not in a batch
                items = [power_invariants(item, k=self.k, weight=self.weight) if is_large_graph(item) else item
                         for item in items]
                precomputed = {isinstance(item, (PowerInvariants, PowerSummary)) for item in items}
            if True not in precomputed:  # graphs only: the caller embeds them
                return None
            if precomputed == {True}:
                return self._stack(list(items), what)
            return self._mixed(list(items), what)
        if iter(items) is items:  # a one-shot iterator: consume it once
            return self.as_embeddings(list(items), what=what)
        return None

    def _stack(self, items, what):
        invariants = []
        for i, item in enumerate(items):
            if isinstance(item, PowerSummary):
                if item.k != self.k:
                    raise ValueError(f"{what}[{i}] is a PowerSummary with k={item.k}, but k={self.k} was asked for")
                item = PowerInvariants.from_summary_matrix(item.matrix)
            elif item.k != self.k:
                raise ValueError(f"{what}[{i}] is a PowerInvariants with k={item.k}, but k={self.k} was asked for")
            invariants.append(item)
        return GaussianBatch._trusted(
            np.stack([inv.mean for inv in invariants]),
            np.stack([inv.covariance for inv in invariants]),
            [inv.n_nodes for inv in invariants],
        )

    def _mixed(self, items, what):
        given = [i for i, item in enumerate(items) if isinstance(item, (PowerInvariants, PowerSummary))]
        graphs = [i for i, item in enumerate(items) if not isinstance(item, (PowerInvariants, PowerSummary))]
        computed = self.embed(as_graph_batch([items[i] for i in graphs], weight=self.weight, what=what))
        stacked = self._stack([items[i] for i in given], what)
        means = np.empty((len(items), self.k))
        covs = np.empty((len(items), self.k, self.k))
        n_nodes = np.empty(len(items), dtype=np.int64)
        for source, positions in ((computed, graphs), (stacked, given)):
            means[positions], covs[positions], n_nodes[positions] = source.means, source.covariances, source.n_nodes
        return GaussianBatch._trusted(means, covs, n_nodes)

    def for_pairs(self, n_pairs):
        if self.engine != "auto":
            return self
        fixed = copy.copy(self)
        fixed.engine = "numba" if _bhattacharyya.uses_compiled("auto", self.k, n_pairs) else "numpy"
        return fixed

    def to_arrays(self, embedded):
        self.check_batch(embedded, "the embeddings")
        return {
            "mean": embedded.means,
            "covariance": embedded.covariances,
            "n_nodes": embedded.n_nodes,
            "params_hash": np.full(len(embedded), params_hash(self.embedding_params()), dtype=np.int64),
        }

    def from_arrays(self, arrays):
        record = self.record_of_arrays(arrays)
        batch = GaussianBatch(arrays["mean"], arrays["covariance"], arrays["n_nodes"])
        if record is not None:
            batch.params = record
        self.check_batch(batch, "arrays")
        return batch

    def prepare(self, embedded, what):
        """Halved regularised covariances and log-determinants, cached on the batch."""
        key = ("bhattacharyya", self.ridge)
        if key not in embedded._prepared:
            embedded._prepared[key] = _prepare(embedded, self.ridge, what)
        return embedded._prepared[key]

    def tile(self, left, right, rows, cols):
        values, pending = self.open_tile(left, right, rows, cols)
        if pending.size:
            i, j = np.divmod(pending, values.shape[1])
            values.reshape(-1)[pending] = self.finish(left, right, np.arange(len(left))[rows][i],
                                                      np.arange(len(right))[cols][j])
        return values

    def open_tile(self, left, right, rows, cols):
        """The tile's values, but for the pairs the direct (Cholesky) evaluation cannot
        resolve, whose flat positions are returned for :meth:`finish` (the pair engine
        finishes those of a whole matrix in one call)."""
        # the engine is chosen from the whole sides, so every tile of a matrix (and
        # paired_kernels on the same sides) goes the same way
        if _bhattacharyya.uses_compiled(self.engine, left.means.shape[1], len(left) * len(right)):
            return _bhattacharyya.compiled_open_tile(left, right, rows, cols)
        rows, cols = np.arange(len(left))[rows], np.arange(len(right))[cols]
        out = np.empty((len(rows), len(cols)))
        # every pair is computed on its own, so blocks of pairs (memory bounded by
        # _BLOCK_VALUES per k x k array) give the same bits as one tile
        per_block = max(1, _BLOCK_VALUES // left.means.shape[1] ** 2)
        n_cols = min(len(cols), per_block)
        n_rows = max(1, per_block // max(n_cols, 1))
        pending = []
        for a in range(0, len(rows), n_rows):
            r = rows[a : a + n_rows]
            for c0 in range(0, len(cols), n_cols):
                c = cols[c0 : c0 + n_cols]
                logdet, maha = _bhattacharyya.pair_terms(left.means[r], left.half_covs[r], right.means[c], right.half_covs[c])
                out[a : a + n_rows, c0 : c0 + n_cols], near = _bhattacharyya.direct_tile(left, right, r, c, logdet, maha)
                if near.size:  # positions in the block, then in the tile
                    pending.append((near // len(c) + a) * len(cols) + near % len(c) + c0)
        return out, np.concatenate(pending) if pending else np.zeros(0, np.int64)

    def finish(self, left, right, i, j):
        """The pairs :meth:`open_tile` left, whitened (identical Gaussians: 1.0)."""
        return _bhattacharyya.resolve(left, right, i, j)

    def pairs(self, left, right, i, j):
        if _bhattacharyya.uses_compiled(self.engine, left.means.shape[1], len(left) * len(right)):
            return _bhattacharyya.compiled_pairs(left, right, i, j)
        i, j = np.broadcast_arrays(np.arange(len(left))[i], np.arange(len(right))[j])
        out = np.empty(i.shape)
        flat_i, flat_j, flat_out = i.reshape(-1), j.reshape(-1), out.reshape(-1)
        per_block = max(1, _BLOCK_VALUES // left.means.shape[1] ** 2)
        for a in range(0, flat_i.size, per_block):
            p, q = flat_i[a : a + per_block], flat_j[a : a + per_block]
            logdet, maha = _bhattacharyya.pair_terms(
                left.means[p], left.half_covs[p], right.means[q], right.half_covs[q], diagonal_only=True
            )
            flat_out[a : a + per_block] = _bhattacharyya.combine(
                left.logdets[p], right.logdets[q], logdet, maha, left.sizes[p] + right.sizes[q], left.least[p] + right.least[q]
            )
        return _bhattacharyya.settle(left, right, i, j, out)

    def tile_size(self, n_jobs):
        # Measured on NCI1 (4,110 graphs, 2 cores): numpy is fastest with 128 on one
        # thread (0.54 s; 64: 0.86 s, 256: 0.57 s), 256 with two threads (0.37 s). The
        # compiled engine (medians under load) with 256 either way, one tile's columns
        # being one pass of its vector loop: 0.18 s on one thread (128: 0.18 s, 512:
        # 0.21 s, 1024: 0.24 s), 0.23 s on two (128: 0.28 s, 512: 0.21 s, 1024: 0.26 s).
        if _bhattacharyya.may_use_compiled(self.engine, self.k):
            return 256
        return 128 if n_jobs == 1 else 256


class _Prepared:
    """What the pair engine needs of a collection's regularised Gaussians: means,
    halved covariances, log-determinants, each covariance's size (trace) and least
    eigenvalue (halved, for the choice of the direct evaluation), and its eigenvalues
    with ``whiten = V lam^-1/2`` and ``roots = V lam^1/2`` (for the whitened one), and
    the distances within which its pairs may need it (``reaches``)."""

    def __init__(self, means, half_covs, logdets, sizes, least, eigenvalues, whiten, roots):
        self.means = means
        self.half_covs = half_covs
        self.logdets = logdets
        self.sizes = sizes
        self.least = least
        self.eigenvalues = eigenvalues
        self.whiten = whiten
        self.roots = roots
        self.reaches = _bhattacharyya.reaches(sizes, least)

    def __len__(self):
        return len(self.means)


def floored_covariances(covs, lam, vectors, floors):
    """``V max(lam, floor) V^T`` of a stack, symmetrised; exactly ``floor * I`` where
    every eigenvalue is below the floor (a regular or edgeless graph), and the
    covariance itself where none is."""
    k = covs.shape[-1]
    raised = np.maximum(lam, floors[:, None])
    out = np.matmul(vectors * raised[:, None, :], vectors.transpose(0, 2, 1))
    out = (out + out.transpose(0, 2, 1)) / 2
    below = lam < floors[:, None]
    out = np.where(below.all(axis=1)[:, None, None], floors[:, None, None] * np.eye(k), out)
    return np.where(below.any(axis=1)[:, None, None], out, covs)


def _prepare(batch, ridge, what):
    if not len(batch):
        empty = np.zeros((0, 1, 1))
        return _Prepared(np.zeros((0, 1)), empty, np.zeros(0), np.zeros(0), np.zeros(0), np.zeros((0, 1)), empty, empty)
    means, k = batch.means, batch.k
    floors = ridge * batch.ridge_scales()
    half, whiten, roots = (np.empty_like(batch.covariances) for _ in range(3))
    eigenvalues = np.empty_like(means)
    bad = []
    blocks = [slice(a, a + max(1, _BLOCK_VALUES // k**2)) for a in range(0, len(batch), max(1, _BLOCK_VALUES // k**2))]
    for part in blocks:  # memory bounded by _BLOCK_VALUES per k x k array
        covs = batch.covariances[part]
        lam, vectors = np.linalg.eigh(covs)
        covs = floored_covariances(covs, lam, vectors, floors[part])
        lam = np.maximum(lam, floors[part][:, None])
        # as singular_mask, from the eigenvalues at hand
        singular = ~(lam[:, 0] > k * np.finfo(np.float64).eps * np.maximum(lam[:, -1], 0.0))
        bad.extend((part.start + np.flatnonzero(singular)).tolist())
        if not singular.any():
            eigenvalues[part] = lam
            whiten[part] = vectors / np.sqrt(lam)[:, None, :]
            roots[part] = vectors * np.sqrt(lam)[:, None, :]
        half[part] = covs / 2
    if bad:
        advice = (f"increase ridge (got ridge={ridge}; the larger k, the larger the ridge that regular graphs "
                  "and graphs with n_nodes <= k need)" if ridge > 0 else "use ridge > 0 (got ridge=0)")
        raise ValueError(
            f"{what}[{bad[0]}] (and {len(bad) - 1} more) has a singular covariance "
            f"(regular or edgeless graph, or n_nodes <= k); {advice}"
        )
    # log|Sigma| from the eigenvalues: their rounding is relative, where the pivots of
    # a Cholesky factor would carry about eps times the condition number
    logdets = np.log(eigenvalues).sum(axis=1)
    return _Prepared(means, half, logdets, eigenvalues.sum(axis=1) / 2, eigenvalues[:, 0] / 2, eigenvalues, whiten,
                     roots)


def power_invariants(G, *, k=5, weight=None, n_jobs=None):
    """Return the Gaussian invariants (mean, covariance) of a graph.

    Parameters
    ----------
    G : graph or PowerSummary
        Anything :func:`as_adjacency` accepts, or a precomputed :class:`PowerSummary`.
    k : int, keyword-only
        Number of power iterations, default 5.
    weight : str or None, keyword-only
        Edge attribute to use as weight; ``None`` (default) is the 0/1 adjacency.
    n_jobs : int or None, keyword-only
        Threads for a large graph's products and moments, as in
        :func:`~graphinvariants.power_summary` (``None``: every core numba may use).

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

    One large graph (at least ``2**20`` nodes plus stored entries) goes through
    :mod:`graphinvariants.walks.large`: ``k`` products from the CSR arrays and two
    passes over the summary (its column sums, then the centred products, corrected
    two-pass formula), at the cost of the products themselves. Memory beyond the
    graph's CSR: one ``n x k`` summary (``8 n k`` bytes) and a few numbers per block
    of 4,096 rows. Against an exact rational reference the entries are within a few
    units in the last place (``tests/walks/test_large.py``). For a NetworkX or igraph
    graph the CSR is built once (as :func:`as_adjacency` does); a canonical float64
    scipy CSR is read in place.

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
        if is_large(G.n_nodes, G.adjacency.matrix.nnz):
            columns = G.matrix.T
            mean, cov = summary_moments(columns, column_sums(columns, n_jobs=n_jobs), n_jobs=n_jobs)
            return PowerInvariants(mean, cov, G.n_nodes)
        return PowerInvariants.from_summary_matrix(G.matrix)
    adjacency = as_adjacency(G, weight=weight)
    if adjacency.n_nodes and is_large(adjacency.n_nodes, adjacency.matrix.nnz):
        columns, sums = power_columns(adjacency.matrix, k, weighted=adjacency.weighted, n_jobs=n_jobs)
        mean, cov = summary_moments(columns, sums, n_jobs=n_jobs)
        return PowerInvariants(mean, cov, adjacency.n_nodes)
    return PowerInvariants.from_summary_matrix(power_summary(adjacency, k=k).matrix)


def batch_power_invariants(graphs, *, k=5, weight=None):
    """Return the invariants of many graphs, computed in one vectorised pass.

    The graphs are stacked into one block-diagonal adjacency, so ``k`` sparse products
    serve all of them; this is much faster than a Python loop over small graphs.

    Parameters
    ----------
    graphs : sequence of graphs, GraphBatch, TUDataset, sequence of PowerInvariants or GaussianBatch
        Graphs are anything :func:`as_adjacency` accepts; precomputed invariants are
        passed through after checking their ``k``.
    k : int, keyword-only
    weight : str or None, keyword-only

    Returns
    -------
    GaussianBatch
        A sequence of :class:`PowerInvariants`, backed by arrays.

    Raises
    ------
    ValueError
        If a graph has no nodes or a precomputed invariant has another ``k``.
    TypeError
        If ``graphs`` is a single graph rather than a sequence.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> invs = gi.batch_power_invariants([nx.path_graph(4), nx.star_graph(3)], k=3)
    >>> [inv.n_nodes for inv in invs]
    [4, 4]
    """
    return GaussianEmbedding(k, weight=weight).as_embeddings(graphs)
