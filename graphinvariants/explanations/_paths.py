"""Deterministic node attributions of kernel terms: integrated gradients in count space.

A term of a model's output is ``T(G) = sum_j coef_j h(P_j(G))``: ``P_j`` the product of
some members' kernels between ``G`` and training graph ``j``, ``h`` a shape (the kernel
itself, a power ``x^p``, a Gaussian ``exp(-(2 - 2x) / (s m))``). Every member this
module takes reads ``G`` through features that are **sums over its nodes**:

* a count member (Weisfeiler-Lehman, walk histograms, closed walks, rooted
  subgraphs): ``c(G) = sum_v c_v(G)``, each feature rooted at one node;
* the power kernel: the moments of the node profiles, ``S1 = sum_v x_v`` and
  ``S2 = sum_v x_v x_v^T`` (mean ``S1 / n``, covariance ``S2 / n - mean mean^T``).

The graph's own normaliser (the norm ``|c(G)|`` of a cosine kernel, the ``n`` of the
moments, ``sqrt(n_G)`` of an optimal assignment) is held fixed, as the exact split of a
linear kernel holds it, and the features are scaled along the straight line
``t c(G)``, ``t`` from 0 (nothing of ``G``: every kernel 0) to 1. Integrated gradients
(Aumann-Shapley) give feature ``f`` the share ``c_f int_0^1 dT/dc_f(t c) dt`` of
``T(G) - T(0)``, and a feature's share goes to the nodes that own it in proportion to
their part of the sum (``c_vf / c_f``): node ``v`` gets ``int_0^1 grad T(t c) . c_v dt``.
The node values add up to ``T(G) - T(0)`` (completeness), no randomness is involved,
and for a linear term (a count member in its plain shape) they are the exact split
``<c_v, c_j> / (|c(G)| |c_j|)`` and equal the Shapley values of the game "nodes present
add their features".

How the integral is computed:

* **closed form** for products of cosine count members in any shape: along the line
  ``K_m(t) = t K_m``, so ``P_j(t) = t^d P_j``; each member's share of
  ``h(P_j) - h(0)`` is ``1 / len(parts)`` of it (a monomial's variables share its
  growth equally), split over the nodes as ``k_vj / K_j``;
* **closed form by pieces** for an optimal-assignment member (histogram intersection
  ``sum_f min(t c_f, d_f) / N``, piecewise linear in ``t`` with a break where a
  feature reaches the training graph's count): on each piece the integral of
  ``h'(K(t)) K'(t)`` is the change of ``h``, shared by the features still growing;
* **adaptive Gauss-Legendre quadrature** for terms with the power kernel, whose
  Bhattacharyya coefficient along the line (mean ``t mu``, covariance ``t Sigma``, the
  ridge's floor ``t F``) is ``t^(k/4)`` times a smooth function: in ``t = u^4`` the integrand
  is smooth. Panels of ``u`` (from ``[0, 1]``, :data:`QUADRATURE_ORDER` nodes each)
  are bisected until each panel's node values add up to the term's change over it,
  computed directly, within its share of :data:`TOLERANCE` relative to the term's
  change ``T(G) - T(0)`` (or to a thousandth of ``sum_j |coef_j (h(P_j) - h(0))|``
  when that is larger); the pair matrices ``(t A + C_j) / 2`` are diagonalised for
  every ``t`` at once, in the basis that whitens them at ``t = 1``. A graph whose
  covariance is the ridge alone in some direction, against a training graph alike, is
  a needle near ``t = 1`` that no quadrature resolves in double precision: after
  :data:`MAX_EVALUATIONS` evaluations the graph is reported (``failed``) and
  :func:`~graphinvariants.explain` samples that term there.

Where a feature's share goes (``spread``): to the nodes it is rooted at (``"root"``,
above), or to the nodes it reads (``"field"``): a feature of depth ``h`` (a WL colour
of round ``h``, a walk-count prefix of length ``h``, a rooted subgraph of radius
``h``; :func:`column_depths`) rooted at ``v`` is spread evenly over the ``h``-hop ball
of ``v``. This is a fixed linear map of each graph's per-node rows that keeps their sum
(:func:`node_rows`), so every formula below and completeness hold unchanged. The power
kernel's profiles stay with their nodes.

``T(0)`` is not 0 for a Gaussian shape (``h(0) = exp(-2 / (s m))``): it belongs to the
output of a graph that shares nothing with any training graph, the baseline.
"""

import numpy as np
import scipy.sparse as sp

from ..embeddings.assignment import OptimalAssignment
from ..embeddings.counts import CountFeatures, squared_norms
from ..embeddings.gaussian import GaussianEmbedding
from ..embeddings.histogram import HistogramBatch
from ..embeddings.closed import ClosedHistogramBatch
from ..embeddings.labelled import LabelledHistogramBatch
from ..embeddings.rooted import RootedSubgraph
from ..embeddings.shortest_path import ShortestPath
from ..embeddings.wl import WLBatch
from ..graphs import GraphBatch
from ..walks.summary import batch_power_summary

__all__ = ["MAX_EVALUATIONS", "QUADRATURE_ORDER", "TOLERANCE", "NodeBatch", "SPREADS", "Shape", "TermPaths",
           "check_spread", "column_depths", "is_path_member", "node_rows", "node_sum_embedding", "owner_sum"]

#: How a rooted feature's share is given to nodes: ``"root"`` (to the node it is rooted
#: at) or ``"field"`` (evenly over the nodes within its depth of the root).
SPREADS = ("root", "field")

#: Completeness required of a quadrature, relative to the term's change (per graph and term).
TOLERANCE = 1e-10
#: Gauss-Legendre nodes per panel of the adaptive quadrature.
QUADRATURE_ORDER = 16
#: Most evaluations of the path per graph and term before giving up with an error.
MAX_EVALUATIONS = 512


class Shape:
    """A term's shape ``h``: ``("power", p)`` (``x^p``) or ``("gauss", s)`` with the
    median ``m`` of the training kernel distances (``exp(-(2 - 2x) / (s m))``)."""

    def __init__(self, shape, median=1.0):
        self.kind, self.value = shape
        self.median = float(median)
        if self.kind not in ("power", "gauss"):
            raise ValueError(f"unknown shape {shape!r}")

    @property
    def linear(self):
        return self.kind == "power" and self.value == 1

    def __call__(self, x):
        x = np.asarray(x, dtype=np.float64)
        if self.kind == "power":
            return x if self.value == 1 else x**self.value
        return np.exp(-np.clip(2.0 - 2.0 * x, 0.0, None) / (self.value * self.median))

    def derivative(self, x):
        x = np.asarray(x, dtype=np.float64)
        if self.kind == "power":
            return np.ones_like(x) if self.value == 1 else self.value * x ** (self.value - 1)
        return self(x) * 2.0 / (self.value * self.median)


def node_sum_embedding(functional):
    """Whether the functional's counts are sums of per-node counts (rooted features)."""
    return isinstance(functional, CountFeatures) and not isinstance(functional, ShortestPath)


def _power_member(functional):
    """The power kernel itself (its profiles the power summary's rows; subclasses such as
    the closed-walk Gaussian read other profiles)."""
    return type(functional) is GaussianEmbedding


def is_path_member(functional):
    """Whether :class:`TermPaths` takes the functional as a member."""
    return node_sum_embedding(functional) or _power_member(functional)


class NodeBatch:
    """A :class:`GraphBatch` seen as one graph per node, for counting: the structure,
    labels and graph bounds (``offsets``) are the batch's, but ``len`` is the number of
    nodes and every node owns its own row of counts (``sizes`` all 1)."""

    def __init__(self, batch):
        self._batch = batch

    def __getattr__(self, name):
        return getattr(self._batch, name)

    def __len__(self):
        return self._batch.n_nodes

    @property
    def sizes(self):
        return np.ones(self._batch.n_nodes, dtype=np.int64)


def check_spread(spread):
    """``spread`` if it is one of :data:`SPREADS`.

    Raises
    ------
    ValueError
        Naming the spreads taken, for anything else.

    Examples
    --------
    >>> from graphinvariants.explanations._paths import check_spread
    >>> check_spread("field")
    'field'
    """
    if not isinstance(spread, str) or spread not in SPREADS:
        raise ValueError(f"spread must be one of {SPREADS}, got {spread!r}")
    return spread


def column_depths(functional, nodes, batch):
    """The depth of every count column of a per-node embedding.

    The depth is the largest distance from its root of a node the feature reads. A WL
    colour of round ``h`` reads the ``h``-hop ball (``h + closed_walks // 2`` with
    closed walks in its initial label), a walk-count prefix of length ``t`` the
    ``t``-hop ball (a closed walk of length ``t`` the ``t // 2``-hop ball), a rooted
    subgraph of radius ``r`` the ``r``-hop ball.

    Parameters
    ----------
    functional : CountFeatures
        Weisfeiler-Lehman (and its optimal assignment), a walk-count histogram (plain,
        closed, labelled, their optimal assignments) or rooted subgraphs.
    nodes : embedding batch
        ``functional.embed(NodeBatch(batch))``.
    batch : GraphBatch

    Returns
    -------
    numpy.ndarray of int64, shape (n_columns,)

    Raises
    ------
    TypeError
        For a functional whose features have no known depth.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.explanations._paths import NodeBatch, column_depths
    >>> from graphinvariants.embeddings import WeisfeilerLehman
    >>> wl = WeisfeilerLehman(n_iter=1)
    >>> batch = wl.graph_batch([nx.path_graph(3)])
    >>> column_depths(wl, wl.embed(NodeBatch(batch)), batch).tolist()
    [0, 0, 1, 1]
    """
    n_columns = nodes.counts.shape[1]
    if isinstance(nodes, WLBatch):
        depths = np.repeat(np.arange(len(nodes.sizes)), nodes.sizes) + int(nodes.closed_walks) // 2
    elif isinstance(nodes, HistogramBatch):
        lengths = np.repeat(np.arange(1, len(nodes.rounds) + 1), [len(r[0]) for r in nodes.rounds])
        depths = lengths // 2 if isinstance(nodes, ClosedHistogramBatch) else lengths
    elif isinstance(nodes, LabelledHistogramBatch):
        sizes = [len(nodes.labels)] + [sum(len(rows) for rows in r.values()) for r in nodes.rounds]
        depths = np.repeat(np.arange(len(sizes)), sizes)
    elif isinstance(functional, RootedSubgraph):
        # a class's name differs from every class of another radius: the radius at which it appears
        depths = np.full(n_columns, -1, dtype=np.int64)
        names = {tuple(row): i for i, row in enumerate(np.asarray(nodes.vocabulary).tolist())}
        for r in range(functional.radius + 1):
            smaller = RootedSubgraph(r, node_label=functional.node_label, edge_label=functional.edge_label,
                                     max_nodes=functional.max_nodes).embed(NodeBatch(batch))
            for row in np.asarray(smaller.vocabulary).tolist():
                i = names.get(tuple(row))
                if i is not None and depths[i] < 0:
                    depths[i] = r
    else:
        raise TypeError(f"spread='field' does not know the depth of {type(functional).__name__}'s features")
    depths = np.asarray(depths, dtype=np.int64)
    if depths.shape != (n_columns,) or np.any(depths < 0):
        raise RuntimeError(f"{type(functional).__name__}: the depths of {n_columns} columns could not be read")
    return depths


def _ball_spreads(batch, max_depth):
    """For ``h = 0 .. max_depth`` the sparse ``(n, n)`` matrix ``S_h`` whose column ``v``
    is ``1 / |ball(v, h)|`` on the nodes within ``h`` hops of ``v`` (its graph's only)."""
    n = batch.n_nodes
    step = sp.csr_array(batch.matrix != 0, dtype=np.float64)
    step = sp.csr_array(step + step.T + sp.eye_array(n, format="csr"))
    reach = sp.eye_array(n, format="csr", dtype=np.float64)
    out = []
    for h in range(max_depth + 1):
        if h:
            reach = sp.csr_array(reach @ step)
            reach.data[:] = 1.0
        size = np.asarray(reach.sum(axis=0)).reshape(-1)
        out.append(sp.csr_array(reach @ sp.diags_array(1.0 / size)))
    return out


def node_rows(functional, batch, spread="root"):
    """Per-node count rows, each rooted feature at its root or spread over its ball.

    Parameters
    ----------
    functional : CountFeatures
        A count member whose features are sums over nodes (:func:`node_sum_embedding`).
    batch : GraphBatch
    spread : {"root", "field"}, default="root"
        ``"root"``: ``functional.embed(NodeBatch(batch))``, a feature's count on the
        node it is rooted at. ``"field"``: each feature's count moved from its root
        ``v`` evenly onto the nodes within its depth of ``v`` (:func:`column_depths`;
        the ball stops at ``v``'s connected component), so every graph's rows still
        sum to its counts (the rows are then fractional).

    Returns
    -------
    embedding batch
        Of ``functional``'s type, one row of ``counts`` per node of ``batch``.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.explanations._paths import node_rows
    >>> from graphinvariants.embeddings import WeisfeilerLehman
    >>> wl = WeisfeilerLehman(n_iter=1)
    >>> batch = wl.graph_batch([nx.path_graph(3)])
    >>> node_rows(wl, batch, "field").counts.toarray().round(3)  # round 1: over the 1-hop ball
    array([[1.   , 0.   , 0.5  , 0.333],
           [0.   , 1.   , 1.   , 0.333],
           [1.   , 0.   , 0.5  , 0.333]])
    """
    nodes = functional.embed(NodeBatch(batch))
    if check_spread(spread) == "root" or nodes.counts.shape[1] == 0:
        return nodes
    depths = column_depths(functional, nodes, batch)
    counts = sp.csc_array(nodes.counts, dtype=np.float64)
    spreads = _ball_spreads(batch, int(depths.max()))
    blocks = []
    for h, S in enumerate(spreads):
        keep = sp.diags_array((depths == h).astype(np.float64))
        blocks.append(S @ sp.csr_array(counts @ keep))
    nodes.counts = sp.csr_array(sum(blocks[1:], blocks[0]))
    return nodes


def owner_sum(batch, rows):
    """Rows of a per-node matrix summed graph by graph (sparse ``(n_graphs, n_columns)``)."""
    owner = np.repeat(np.arange(len(batch)), batch.sizes)
    S = sp.csr_array((np.ones(batch.n_nodes), (owner, np.arange(batch.n_nodes))), shape=(len(batch), batch.n_nodes))
    return sp.csr_array(S @ rows)


class _CountPath:
    """A cosine count member along the line: ``K_j(t) = t K_j``, node ``v``'s rate the
    constant ``k_vj = <c_v, c_j> / (|c(G)| |c_j|)``."""

    kind = "count"

    def __init__(self, functional, batch, train, columns, spread="root"):
        nodes = node_rows(functional, batch, spread)
        A, B = functional.merge(train, nodes)
        A = sp.csr_array(A, dtype=np.float64)[columns]
        B = sp.csr_array(B, dtype=np.float64)
        norms = np.sqrt(squared_norms(owner_sum(batch, B)))
        train_norms = np.sqrt(squared_norms(A))
        with np.errstate(divide="ignore"):
            A = sp.csr_array(sp.diags_array(np.where(train_norms > 0, 1.0 / train_norms, 0.0)) @ A)
        self._B, self._At, self._norms, self._offsets = B, sp.csr_array(A.T), norms, batch.offsets

    def node_kernels(self, g):
        lo, hi = int(self._offsets[g]), int(self._offsets[g + 1])
        if self._norms[g] == 0:
            return np.zeros((hi - lo, self._At.shape[1]))
        return np.asarray((self._B[lo:hi] @ self._At).toarray()) / self._norms[g]


class _AssignmentPath:
    """An optimal-assignment member (histogram intersection): ``K_j(t) = sum_f min(t c_f,
    d_jf) / sqrt(n_G n_j)``."""

    kind = "assignment"

    def __init__(self, functional, batch, train, columns, spread="root"):
        nodes = node_rows(functional, batch, spread)
        A, B = functional.merge(train, nodes)
        self._A = sp.csc_array(sp.csr_array(A, dtype=np.float64)[columns])
        self._train_sums = np.asarray(self._A.sum(axis=1), dtype=np.float64).reshape(-1)
        self._B = sp.csr_array(B, dtype=np.float64)
        self._C = owner_sum(batch, self._B)
        self._offsets = batch.offsets

    def pieces(self, g):
        """``(node_counts (n_g, F), graph counts (F,), training counts (n_train, F),
        normalisers (n_train,))`` on the graph's features."""
        row = self._C[[g]]
        cols, counts = row.indices, row.data
        lo, hi = int(self._offsets[g]), int(self._offsets[g + 1])
        node = self._B[lo:hi][:, cols].toarray()
        D = self._A[:, cols].toarray()
        with np.errstate(divide="ignore", invalid="ignore"):
            N = np.sqrt(counts.sum() * self._train_sums)
        return node, counts, D, N


class _PowerPath:
    """The power kernel along the line of the moments' sums (``n`` fixed): mean ``t mu``,
    covariance ``t Sigma + t (1 - t) mu mu^T``, the ridge's floor ``t F`` (``F`` the
    floor's correction ``Sigma' - Sigma`` at ``t = 1``, 0 where no eigenvalue is below
    it: the floor of ``t Sigma`` at ``t r s`` is ``t Sigma'``)."""

    kind = "power"

    def __init__(self, functional, batch, train, columns, spread="root"):
        self.k = functional.k
        self.ridge = functional.ridge
        embedded = functional.embed(batch)
        self._X = batch_power_summary(batch, functional.k, functional.normalization)
        self._means, self._covs = embedded.means, embedded.covariances
        self._scales = embedded.ridge_scales()
        self._sizes = np.asarray(batch.sizes)
        self._offsets = batch.offsets
        # the regularised covariances and log-determinants as the kernel has them (from the
        # eigenvalues: a covariance floored by the ridge in some direction has a condition
        # number near 1e12, where another route gives other last digits, 1e-5 relative)
        own = functional.prepare(embedded, "graphs")
        self._logdets, self._floored = own.logdets, 2.0 * own.half_covs
        prepared = functional.prepare(train, "training graphs")
        self._t_means = prepared.means[columns]
        self._t_covs = 2.0 * prepared.half_covs[columns]
        self._t_logdets = prepared.logdets[columns]
        self._graph = None

    def _prepare_graph(self, g):
        if self._graph is not None and self._graph[0] == g:
            return self._graph[1]
        lo, hi = int(self._offsets[g]), int(self._offsets[g + 1])
        n = float(self._sizes[g])
        mu, x = self._means[g], self._X[lo:hi]
        A1 = self._floored[g]  # the regularised covariance at t = 1
        floor = A1 - self._covs[g]  # the floor's part, shared by the nodes as the ridge was
        A1_inv = np.linalg.inv(A1)
        # A + C_j = L_j L_j^T: the pair matrix (t A + C_j) / 2 is L_j V (t lam + 1 - lam) V^T L_j^T / 2
        # with L_j^-1 A L_j^-T = V diag(lam) V^T (0 <= lam <= 1), for every t at once; whitened by
        # the pair matrix at t = 1, as the kernel's own Cholesky factor is
        chol = np.linalg.cholesky(A1[None] + self._t_covs)
        R = np.linalg.inv(chol)
        lam, V = np.linalg.eigh(np.einsum("jab,bc,jdc->jad", R, A1, R))
        lam = np.clip(lam, 0.0, 1.0)
        W = np.einsum("jba,jbc->jac", R, V)  # L^-T V: W^T (A + C) W = I, W^T A W = diag(lam)
        centred = x - mu[None, :]
        squares = np.sum(x * x, axis=1)
        ridge_share = squares / squares.sum() if squares.sum() > 0 else np.full(len(x), 1.0 / len(x))
        state = {
            "n": n, "lam": lam, "W": W,
            "p": np.einsum("jab,a->jb", W, mu), "q": np.einsum("jab,ja->jb", W, self._t_means),
            "YcT": np.matmul(centred[None], W), "YxT": np.matmul(x[None], W),  # (J, v, k)
            # the floor's part against W^T . W and A^-1 (with the ridge rs I these were rs W^T W, rs tr A^-1)
            "colnorm": np.einsum("jai,ab,jbi->ji", W, floor, W), "WtW": np.einsum("jab,ad,jdc->jbc", W, floor, W),
            "a": np.einsum("va,ab,vb->v", centred, A1_inv, centred), "trA": float(np.sum(A1_inv * floor)),
            "logdet": float(self._logdets[g]), "ridge_share": ridge_share,
            "logdet_sum": 2.0 * np.sum(np.log(np.diagonal(chol, axis1=1, axis2=2)), axis=1),
        }
        state["Yc2T"] = state["YcT"] ** 2
        self._graph = (g, state)
        return state

    def along(self, g, ts, weights=None):
        """``K`` at the times ``ts``, shape (m, n_train); with ``weights`` (m, n_train)
        also ``sum_{m, j} weights[m, j] dK^v_j/dt(ts[m])`` for every node ``v`` of the
        graph (its rate of growth, weighted)."""
        s = self._prepare_graph(g)
        k, n = self.k, s["n"]
        t = np.atleast_1d(np.asarray(ts, dtype=np.float64))[:, None, None]  # (m, 1, 1)
        pivots = t * s["lam"][None] + (1.0 - s["lam"][None])  # (m, J, k)
        D = 1.0 / pivots
        diff = t * s["p"][None] - s["q"][None]
        r = 2.0 * diff * D  # W^T applied to z = (pair matrix)^-1 (t mu - mu_j), in W's coordinates
        maha = np.sum(diff * r, axis=2)
        logdet_pair = s["logdet_sum"][None] + np.sum(np.log(pivots), axis=2) - k * np.log(2.0)
        t2 = t[:, :, 0]
        L = 0.25 * (k * np.log(t2) + s["logdet"] + self._t_logdets[None]) - 0.5 * logdet_pair - 0.125 * maha
        K = np.exp(np.minimum(L, 0.0))
        if weights is None:
            return K
        # dK^v/dt = K (grad_mu . x_v / n + <G, D_v>), G = dL/dA = A^-1 / 4t - (pair)^-1 / 4 + z z^T / 16,
        # pair^-1 = 2 W diag(D) W^T, D_v = c_v c_v^T / n + ridge share F; summed against omega = weights K
        omega = weights * K  # (m, J)
        E = np.einsum("mj,mji->ji", omega, D)
        Rz = np.einsum("mj,mji->ji", omega, r)
        values = (0.25 * float(np.sum(omega / t2))) * s["a"] / n
        values -= 0.5 * np.einsum("jvi,ji->v", s["Yc2T"], E) / n
        cz = np.matmul(s["YcT"], r.transpose(1, 2, 0))  # (J, v, m)
        values += 0.0625 * np.einsum("jvm,mj->v", cz * cz, omega) / n
        values -= 0.25 * np.einsum("jvi,ji->v", s["YxT"], Rz) / n
        zz = np.einsum("mji,jil,mjl->mj", r, s["WtW"], r)
        trace = 0.25 * s["trA"] / t2 - 0.5 * np.einsum("ji,mji->mj", s["colnorm"], D) + 0.0625 * zz
        values += s["ridge_share"] * float(np.sum(omega * trace))
        return K, values


def _path(functional, batch, train, columns, spread):
    if _power_member(functional):
        return _PowerPath(functional, batch, train, columns)
    if isinstance(functional, OptimalAssignment):
        return _AssignmentPath(functional, batch, train, columns, spread)
    return _CountPath(functional, batch, train, columns, spread)


def _assignment_values(shape, coef, node, counts, D, N):
    """Node values of ``sum_j coef_j (h(K_j) - h(0))`` for one optimal-assignment member
    alone: piecewise linear ``K_j(t)``, exact on each piece."""
    n_train = D.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        breaks = np.minimum(1.0, D / counts[None, :])  # (n_train, F): feature f grows until t = breaks
        rate = np.where(N[:, None] > 0, counts[None, :] / N[:, None], 0.0)  # dK_j/dt of feature f while growing
    if shape.linear:
        H = breaks  # int_0^b h'(K(t)) dt with h' = 1
    else:
        order = np.argsort(breaks, axis=1, kind="stable")
        b = np.take_along_axis(breaks, order, axis=1)
        r = np.take_along_axis(rate, order, axis=1)
        slope = np.cumsum(r[:, ::-1], axis=1)[:, ::-1]  # slope on the piece ending at b[:, i]
        start = np.concatenate((np.zeros((n_train, 1)), b[:, :-1]), axis=1)
        K_end = np.cumsum(slope * (b - start), axis=1)
        K_start = np.concatenate((np.zeros((n_train, 1)), K_end[:, :-1]), axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            piece = np.where(slope > 0, (shape(K_end) - shape(K_start)) / slope, 0.0)
        H_sorted = np.cumsum(piece, axis=1)
        H = np.empty_like(H_sorted)
        np.put_along_axis(H, order, H_sorted, axis=1)
    share = np.where(N[:, None] > 0, H / N[:, None], 0.0)  # per unit count of feature f
    return node @ (share.T @ coef)


class TermPaths:
    """Integrated-gradient node values of one term ``sum_j coef_j h(prod_m K_m(G, G_j))``.

    Parameters
    ----------
    members : list of (functional, training embeddings)
        The term's members (:func:`is_path_member`; an optimal-assignment member only
        alone).
    shape : Shape
    coef : numpy.ndarray of shape (n_train,)
        The readout's coefficient of every training graph times the term's weight.
    batch : GraphBatch
        The graphs explained.
    spread : {"root", "field"}, keyword-only, default="root"
        Where a rooted feature's share goes (:func:`node_rows`).

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from graphinvariants.explanations._paths import Shape, TermPaths
    >>> from graphinvariants.embeddings import WeisfeilerLehman
    >>> wl = WeisfeilerLehman(n_iter=1)
    >>> train = wl.embed(wl.graph_batch([nx.path_graph(4), nx.star_graph(3)]))
    >>> batch = wl.graph_batch([nx.path_graph(3)])
    >>> coef, shape = np.array([1.0, -0.5]), Shape(("gauss", 1.0))
    >>> values, baseline = TermPaths([(wl, train)], shape, coef, batch).node_values()
    >>> values[0].round(4).tolist(), baseline.round(4).tolist()  # the ends alike, by symmetry
    ([0.1638, 0.1045, 0.1638], [0.0677])
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> term = shape(pairwise_kernels(batch, train, functional=wl)[0]) @ coef  # the term itself
    >>> bool(abs(baseline[0] + values[0].sum() - term) < 1e-12)
    True
    """

    def __init__(self, members, shape, coef, batch, *, spread="root"):
        if not isinstance(batch, GraphBatch):
            raise TypeError("batch must be a GraphBatch")
        coef = np.asarray(coef, dtype=np.float64)
        self.columns = np.flatnonzero(coef)
        self.coef = coef[self.columns]
        self.shape = shape
        self.batch = batch
        check_spread(spread)
        self.paths = [_path(f, batch, train, self.columns, spread) for f, train in members]
        kinds = [p.kind for p in self.paths]
        if "assignment" in kinds and len(kinds) > 1:
            raise TypeError("an optimal-assignment member is taken alone, not in a product")
        self.n_nodes_used = []  # quadrature nodes per graph (0: closed form)

    def node_values(self):
        """``(values, baseline)``: one array of node values per graph, and per graph the
        term at ``t = 0`` (``sum_j coef_j h(0)``), so that ``baseline + values.sum()`` is
        the term's value on the graph."""
        h0 = float(self.shape(0.0)) * float(self.coef.sum())
        out, baselines = [], []
        for g in range(len(self.batch)):
            out.append(self._graph(g))
            baselines.append(h0)
        self.failed = [g for g, v in enumerate(out) if v is None]
        return out, np.array(baselines)

    def _graph(self, g):
        n_g = int(self.batch.offsets[g + 1] - self.batch.offsets[g])
        if n_g == 0 or not len(self.columns):
            self.n_nodes_used.append(0)
            return np.zeros(n_g)
        kinds = [p.kind for p in self.paths]
        if kinds == ["assignment"]:
            self.n_nodes_used.append(0)
            return _assignment_values(self.shape, self.coef, *self.paths[0].pieces(g))
        if "power" not in kinds:
            self.n_nodes_used.append(0)
            return self._closed_form(g)
        return self._quadrature(g)

    def _closed_form(self, g):
        ks = [p.node_kernels(g) for p in self.paths]
        Ks = [k.sum(axis=0) for k in ks]
        P = np.prod(Ks, axis=0)
        growth = self.coef * (self.shape(P) - self.shape(0.0)) / len(ks)
        out = 0.0
        for k, K in zip(ks, Ks):
            with np.errstate(divide="ignore", invalid="ignore"):
                w = np.where(K > 0, growth / K, 0.0)
            out = out + k @ w
        return np.asarray(out, dtype=np.float64)

    def value(self, g):
        """The term's value on graph ``g`` by this module's formulas (``t = 1``)."""
        Ks = []
        for p in self.paths:
            if p.kind == "power":
                Ks.append(p.along(g, [1.0])[0])
            elif p.kind == "count":
                Ks.append(p.node_kernels(g).sum(axis=0))
            else:
                node, counts, D, N = p.pieces(g)
                with np.errstate(divide="ignore", invalid="ignore"):
                    Ks.append(np.where(N > 0, np.minimum(D, counts[None, :]).sum(axis=1) / N, 0.0))
        return float(self.coef @ self.shape(np.prod(Ks, axis=0)))

    def _Ks(self, g, ts, sums):
        """Every member's kernel values at the times ``ts`` (list of (m, n_train))."""
        return [p.along(g, ts) if p.kind == "power" else ts[:, None] * sums[i][None, :]
                for i, p in enumerate(self.paths)]

    def _F(self, g, ts, sums):
        """The term along the line at the times ``ts``."""
        return self.shape(np.prod(self._Ks(g, ts, sums), axis=0)) @ self.coef

    def _panel(self, g, a, b, u, w, const, sums):
        """Node values of the integral over ``u`` in ``[a, b]`` (``t = u^4``)."""
        uu = a + (b - a) * u
        ts, dt = uu**4, 4.0 * uu**3 * w * (b - a)
        Ks = self._Ks(g, ts, sums)
        P = np.prod(Ks, axis=0)  # (m, n_train)
        dh = self.shape.derivative(P) * self.coef[None, :] * dt[:, None]
        values = 0.0
        for i, p in enumerate(self.paths):
            others = np.ones_like(P)
            for j, Kj in enumerate(Ks):
                if j != i:
                    others = others * Kj
            if p.kind == "power":
                values = values + p.along(g, ts, weights=dh * others)[1]
            else:
                values = values + const[i] @ np.sum(dh * others, axis=0)
        return values

    def _quadrature(self, g):
        """Adaptive Gauss-Legendre: panels of ``u`` (``t = u^4``, which makes the power
        kernel's ``t^(k/4)`` smooth) bisected until each panel's node values add up to
        the term's change over it (computed directly) within its share of
        :data:`TOLERANCE`. A power kernel whose covariance is the ridge alone in some
        direction is a needle near ``t = 1``, which the bisection finds."""
        const = {i: p.node_kernels(g) for i, p in enumerate(self.paths) if p.kind == "count"}
        sums = {i: k.sum(axis=0) for i, k in const.items()}
        u, w = np.polynomial.legendre.leggauss(QUADRATURE_ORDER)
        u, w = (u + 1.0) / 2.0, w / 2.0
        n_g = int(self.batch.offsets[g + 1] - self.batch.offsets[g])
        total = np.zeros(n_g)
        panels = [(0.0, 1.0)]
        evaluations = 0
        h0 = float(self.shape(0.0)) * float(self.coef.sum())
        # the term's change, or a thousandth of its size without cancellation between the training
        # graphs (sum_j |coef_j (h(P_j) - h(0))|) when the change is smaller
        P1 = np.prod(self._Ks(g, np.array([1.0]), sums), axis=0)[0]
        changes = self.coef * (self.shape(P1) - self.shape(0.0))
        scale = max(abs(float(changes.sum())), 1e-3 * float(np.abs(changes).sum()))
        while panels:
            a, b = panels.pop()
            if a > 0:
                F_a, F_b = self._F(g, np.array([a**4, b**4]), sums)
            else:
                F_a, F_b = h0, self._F(g, np.array([b**4]), sums)[0]
            values = self._panel(g, a, b, u, w, const, sums)
            evaluations += QUADRATURE_ORDER
            if abs(float(values.sum()) - float(F_b - F_a)) <= TOLERANCE * scale * max(b - a, 1 / 64):
                total += values
                continue
            if evaluations > MAX_EVALUATIONS:
                self.n_nodes_used.append(evaluations)
                return None
            mid = (a + b) / 2
            panels += [(a, mid), (mid, b)]
        self.n_nodes_used.append(evaluations)
        return total
