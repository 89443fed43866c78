"""Perturbing one large graph in place, with its power invariants updated incrementally.

:class:`PerturbedGraph` holds a graph as its CSR adjacency (the *base*, shared and never
written) plus a small *overlay* of stored entries added (+1) or removed (-1) since, and
the graph's power summary with the moments of its rows. An edit (a flip, an edge
removed or added, a swap, a node removed or added) only writes the overlay; the
summary is then brought up to date where the walk counts change. With ``w_0`` the
indicator of the live nodes and ``w_t = A w_{t-1} / s_t`` (``s_t`` fixed scales, so
that ``w_t`` is the power summary column ``x_t`` of the base graph), the change
``d_t = w'_t - w_t`` after the edit ``A' = A + E`` obeys

``d_t = (A' d_{t-1} + E w_{t-1}) / s_t``, with ``d_0`` the change of ``w_0``,

so ``d_t`` lives in the ``(t - 1)``-hop ball of the edited rows. Each power step is
chosen by size, the ball's stored entries against ``nnz``:

* **incremental**, while the ball is small (a road map, a grid, a sparse random
  graph at small ``t``): ``d_t`` is propagated on its support only, a gather of the
  base rows of that support plus the overlay's entries. When every step is
  incremental, the sums ``sum(w_t)`` over the live nodes and the moments of the rows
  (the sum and the sum of outer products of ``w_i - m``, around a fixed shift ``m``,
  the mean of the last computation from scratch, which keeps them free of
  cancellation) are updated over the changed rows only: nothing of size ``n`` is
  touched.
* **a full product**, from the first step whose ball has more than ``ball_fraction *
  nnz`` stored entries (hubs, small worlds): ``d_t`` becomes a dense vector and each
  remaining step one sparse product with the edited matrix (the base CSR, plus the
  overlay's few entries); the moments are then recomputed from the updated summary,
  one product of the centred ``n x k`` matrix with itself. On a Barabasi-Albert graph
  that is two or three products of ``k``, for the steps beyond the 2-hop ball.

The power summary of the edited graph is ``x'_t = w'_t s_t / sum(w'_{t-1})``
(Algorithm 1's L1 renormalisation), so its mean and covariance are those of ``w'``
scaled column by column.

Once the overlay holds more than 1% of the stored entries (or always, with
``ball_fraction=0``), it is merged into a new base CSR (sorted inserts and deletes:
one pass over the index array) and the summary is computed **from scratch** on it by
:func:`graphinvariants.walks.summary.power_iteration` (Algorithm 1, the engine of
:func:`~graphinvariants.power_summary`).

Every path gives the invariants of the edited graph as
:func:`~graphinvariants.power_invariants` computes them on the edited CSR, within a few
units of 1e-16 relative per step (the tests hold every step to 1e-12, including 150
incremental steps in a row).

The graph is unweighted (the 0/1 pattern of the input, as the paper's flips) and
simple (self-loops of the input are kept and never created). A directed graph is
perturbed arc by arc (a flip toggles ``u -> v``), as :func:`perturbation_sequence`
does; its propagation reads the transposed CSR, kept beside the base. Node ids are
never reused: a removed node's row stays, empty and excluded from the moments; added
nodes take new rows.
"""

import numbers

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_int, check_k
from ..embeddings import PowerInvariants
from ..graphs.adjacency import as_adjacency, graph_library
from ..graphs.csr import concatenated_ranges
from ..walks.large import is_large, power_columns
from ..walks.summary import power_iteration
from .kinds import PerturbationError, check_kind

__all__ = ["PerturbedGraph"]

#: Default share of the stored entries that the gather of one power step may read
#: (the ball's rows) before that step is a full sparse product instead.
BALL_FRACTION = 0.05

#: The overlay is merged into a new base CSR (and the summary recomputed from scratch)
#: once it holds more than this share of the stored entries.
_MAX_OVERLAY = 0.01

_REJECTION_TRIES = 64
_SWAP_TRIES = 200
_SAMPLING_TRIES = 1000
_ENUMERATE_MISSING = 4096  # nodes up to which "add_edge" lists the missing pairs


class PerturbedGraph:
    """A graph edited in place, with its power invariants kept up to date.

    Parameters
    ----------
    G : graph
        Anything :func:`~graphinvariants.as_adjacency` accepts (scipy sparse matrix,
        :class:`~graphinvariants.graphs.GraphAdjacency`, NetworkX or igraph graph).
        Weights are ignored: the 0/1 pattern is perturbed.
    k : int or None, keyword-only
        Power iterations (default 5); ``None`` edits the graph only (no invariants).
    directed : bool or None, keyword-only
        Perturb arc by arc. ``None`` (default): directed if the graph says so
        (NetworkX, igraph, a ``directed`` attribute) or its matrix is asymmetric.
    ball_fraction : float, keyword-only
        A power step gathers the rows of its ball while they hold at most
        ``ball_fraction * nnz`` stored entries, and is a full sparse product beyond
        (default 0.05, measured in ``benchmarks/benchmarks/perturbation.py`` (asv ``perturbation.LargeNetwork``)).
        ``float("inf")``: always incremental (the overlay never merged); ``0``: every
        update from scratch on the merged CSR. The invariants are the same to rounding whatever it is.

    Attributes
    ----------
    n_incremental, n_products, n_full : int
        How many updates were incremental in every step, had full products for the
        steps with large balls, or were computed from scratch.

    Notes
    -----
    Memory: the base CSR (shared by :meth:`copy`), the ``n x k`` summary of each copy,
    and after a computation from scratch that copy's own CSR (and transpose, if
    directed). An incremental update costs time in proportion to the stored entries
    of its balls; a full product, ``nnz``.

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> import graphinvariants as gi
    >>> from graphinvariants.perturbation import PerturbedGraph
    >>> state = PerturbedGraph(nx.grid_2d_graph(100, 100), k=5)
    >>> rng = np.random.default_rng(0)
    >>> [state.apply("flip", rng) for _ in range(3)]  # a grid: small balls
    ['incremental', 'incremental', 'incremental']
    >>> inv = state.invariants()
    >>> scratch = gi.power_invariants(state.to_csr(), k=5)
    >>> bool(np.allclose(inv.mean, scratch.mean, rtol=1e-12, atol=0))
    True
    >>> state
    <PerturbedGraph: 10000 nodes, 19803 edges, undirected, k=5; updates: 3 incremental, 0 with products, 0 from scratch>
    """

    def __init__(self, G, *, k=5, directed=None, ball_fraction=BALL_FRACTION):
        self.k = None if k is None else check_k(k)
        self.ball_fraction = _check_fraction(ball_fraction)
        declared = directed
        if declared is None:
            if graph_library(G) in ("networkx", "igraph"):
                declared = bool(G.is_directed())
            else:
                declared = bool(getattr(G, "directed", False))
        A = as_adjacency(G).matrix
        n = A.shape[0]
        if n == 0:
            raise ValueError("the graph has no nodes; there is nothing to perturb")
        itype = np.int32 if max(n, A.nnz) < 2**31 - 1 else np.int64
        A = sp.csr_array((np.ones(A.nnz), A.indices.astype(itype), A.indptr.astype(itype)), shape=A.shape)
        A.sort_indices()
        T = A.T.tocsr()  # canonical too: sorted, no duplicates
        symmetric = np.array_equal(A.indptr, T.indptr) and np.array_equal(A.indices, T.indices)
        self.directed = bool(declared) or not symmetric
        loops = int(np.count_nonzero(A.diagonal()))
        self.n_loops = loops
        self.n_edges = A.nnz if self.directed else (A.nnz - loops) // 2 + loops
        self.alive = np.ones(n, bool)
        self.n_alive = n
        self.next_id = n
        self.n_incremental = self.n_products = self.n_full = 0
        self._set_base(A)

    # -- copies ---------------------------------------------------------------------
    def copy(self):
        """An independent copy; the base CSR is shared (it is never written)."""
        out = object.__new__(PerturbedGraph)
        out.__dict__.update(self.__dict__)
        for name in ("alive", "W", "totals", "rinv", "m0", "s1", "s2"):
            value = getattr(self, name)
            setattr(out, name, None if value is None else value.copy())
        out.overlay = dict(self.overlay)
        return out

    def reserve(self, extra):
        """Room for ``extra`` more nodes (``"add_node"``), so that no step reallocates."""
        extra = check_int(extra, "extra")
        if extra == 0:
            return
        n = self.n_cap + extra
        self.alive = np.concatenate((self.alive, np.zeros(extra, bool)))
        if self.W is not None:
            self.W = np.concatenate((self.W, np.zeros((extra, self.k))))
        self.indptr = np.concatenate((self.indptr, np.full(extra, self.indptr[-1])))
        self._A = sp.csr_array((self._A.data, self.indices, self.indptr), shape=(n, n))
        if self.directed:
            self.indptr_t = np.concatenate((self.indptr_t, np.full(extra, self.indptr_t[-1])))
        self.n_cap = n

    # -- the base and the overlay ------------------------------------------------------
    def _set_base(self, A):
        """Make ``A`` (canonical 0/1 CSR of ``n_cap`` rows) the base; summary from scratch."""
        self.n_cap = A.shape[0]
        self._A = A
        self.indptr = A.indptr
        self.indices = A.indices
        self.nnz = int(A.nnz)
        if self.directed:
            T = A.T.tocsr()
            T.sort_indices()
            self.indptr_t, self.indices_t = T.indptr.astype(A.indptr.dtype), T.indices.astype(A.indices.dtype)
        self.overlay = {}  # (row, col) -> +1 added / -1 removed, against the base
        self._overlay_arrays()
        if self.k is None:  # edits only
            self.W = self.totals = self.rinv = self.m0 = self.s1 = self.s2 = None
            return
        W = _full_summary(A, self.k)
        sums = W.sum(axis=0)
        # w_t = A w_{t-1} / rinv[t - 1]: rinv is n_cap, then the sums of the columns
        rinv = np.concatenate(([float(self.n_cap)], sums[:-1]))
        self.rinv = np.where(rinv > 0, rinv, 1.0)
        self.W = W
        self._full_moments()

    def _full_moments(self):
        """Totals and moments of the live rows of ``W``, from scratch."""
        W = self.W if self.n_alive == self.n_cap else self.W[self.alive]
        self.totals = np.concatenate(([float(self.n_alive)], W.sum(axis=0)))
        self.m0 = W.mean(axis=0)
        centred = W - self.m0
        self.s1 = centred.sum(axis=0)
        self.s2 = centred.T @ centred

    def _overlay_arrays(self):
        if self.overlay:
            keys = np.array(list(self.overlay), dtype=np.int64).reshape(-1, 2)
            order = np.lexsort((keys[:, 1], keys[:, 0]))
            self._ov = (keys[order, 0], keys[order, 1], np.array(list(self.overlay.values()), float)[order])
        else:
            empty = np.zeros(0, np.int64)
            self._ov = (empty, empty, np.zeros(0))

    def _base_row(self, r, transpose=False):
        ptr, ind = (self.indptr_t, self.indices_t) if transpose else (self.indptr, self.indices)
        return ind[ptr[r] : ptr[r + 1]]

    def has_edge(self, u, v):
        """Whether the arc ``u -> v`` (an edge, when undirected) is in the edited graph;
        ``u`` and ``v`` are rows (integers)."""
        u, v = _node_id(u), _node_id(v)
        return 0 <= u < self.n_cap and 0 <= v < self.n_cap and self._has_edge(u, v)

    def _has_edge(self, u, v):
        value = self.overlay.get((u, v))
        if value is not None:
            return value > 0
        row = self._base_row(u)
        i = int(np.searchsorted(row, v))
        return i < row.size and int(row[i]) == v

    def _neighbours(self, u, transpose=False):
        """Targets of the arcs out of ``u`` (into ``u`` with ``transpose``), edited."""
        out = set(self._base_row(u, transpose).tolist())
        for (r, c), value in self.overlay.items():
            a, b = (c, r) if transpose else (r, c)
            if a == u:
                if value > 0:
                    out.add(b)
                else:
                    out.discard(b)
        return sorted(out)

    def merged_csr(self):
        """The edited adjacency as a canonical 0/1 CSR of all ``n_cap`` rows (dead
        and unborn nodes as empty rows): sorted inserts and deletes of the overlay."""
        return _merge(self.indptr, self.indices, self._ov, self.n_cap)

    def to_csr(self):
        """The edited graph as a scipy CSR array over its live nodes, in id order."""
        A = self.merged_csr()
        if self.n_alive < self.n_cap:
            keep = np.flatnonzero(self.alive)
            A = A[keep][:, keep]
        return sp.csr_array(A)

    # -- random choices (as GraphState makes them) -------------------------------------
    def _random_node(self, rng):
        for _ in range(_SAMPLING_TRIES):
            u = int(rng.integers(self.next_id))
            if self.alive[u]:
                return u
        live = np.flatnonzero(self.alive)
        return int(live[rng.integers(live.size)])

    def _two_nodes(self, rng):
        u = self._random_node(rng)
        for _ in range(_SAMPLING_TRIES):
            v = self._random_node(rng)
            if v != u:
                return u, v
        live = np.flatnonzero(self.alive & (np.arange(self.n_cap) != u))
        return u, int(live[rng.integers(live.size)])

    def _random_edge(self, rng):
        """A uniform random edge (each undirected edge once, as ``(small, large)``)."""
        added = [key for key, value in self.overlay.items() if value > 0]
        added.sort()
        total = self.nnz + len(added)
        for _ in range(_SAMPLING_TRIES):
            e = int(rng.integers(total))
            if e < self.nnz:
                r = int(np.searchsorted(self.indptr, e, side="right")) - 1
                c = int(self.indices[e])
                if self.overlay.get((r, c), 0) < 0:
                    continue
            else:
                r, c = added[e - self.nnz]
            if self.directed or r <= c:
                return r, c
        A = sp.triu(self.merged_csr()) if not self.directed else self.merged_csr()
        coo = sp.coo_array(A)
        e = int(rng.integers(coo.nnz))
        return int(coo.row[e]), int(coo.col[e])

    def _n_pairs(self):
        n = self.n_alive
        return n * (n - 1) if self.directed else n * (n - 1) // 2

    # -- the perturbations -------------------------------------------------------------
    def apply(self, kind, rng):
        """Apply one random perturbation of ``kind`` (see :data:`PERTURBATIONS`) with the
        random generator ``rng``; returns how the invariants were updated:
        ``"incremental"``, ``"products"`` or ``"full"`` (from scratch).

        Raises
        ------
        PerturbationError
            If the perturbation cannot proceed (no edge left, ...); nothing is changed.
        """
        check_kind(kind)
        return getattr(self, "_" + kind)(rng)

    def toggle(self, u, v):
        """Flip the pair ``u, v`` (the arc ``u -> v`` when directed); returns the branch.

        ``u`` and ``v`` are rows of the graph: integers (a float such as ``1.7`` is
        refused, not truncated)."""
        u, v = _node_id(u), _node_id(v)
        for x in (u, v):
            if not (0 <= x < self.n_cap and self.alive[x]):
                raise ValueError(f"node {x} is not in the graph")
        if u == v:
            raise ValueError("a flip needs two distinct nodes")
        sign = -1 if self._has_edge(u, v) else 1
        return self._commit(self._edge_entries(u, v, sign))

    def _edge_entries(self, u, v, sign):
        if self.directed or u == v:
            return [(u, v, sign)]
        return [(u, v, sign), (v, u, sign)]

    def _flip(self, rng):
        if self.n_alive < 2:
            raise PerturbationError("cannot flip a node pair in a graph with fewer than 2 nodes")
        u, v = self._two_nodes(rng)
        return self._commit(self._edge_entries(u, v, -1 if self._has_edge(u, v) else 1))

    def _remove_edge(self, rng):
        if not self.n_edges:
            raise PerturbationError("cannot remove an edge: the graph has no edges left")
        u, v = self._random_edge(rng)
        return self._commit(self._edge_entries(u, v, -1))

    def _add_edge(self, rng):
        if self.n_edges - self.n_loops >= self._n_pairs():
            raise PerturbationError("cannot add an edge: every pair of nodes is already joined")
        for _ in range(_REJECTION_TRIES):
            u, v = self._two_nodes(rng)
            if not self._has_edge(u, v):
                return self._commit(self._edge_entries(u, v, 1))
        if self.n_alive > _ENUMERATE_MISSING:
            raise PerturbationError(f"no missing edge found in {_REJECTION_TRIES} random tries on a graph of "
                                    f"{self.n_alive} nodes that is nearly complete")
        live = np.flatnonzero(self.alive)
        dense = self.merged_csr()[live][:, live].toarray() > 0
        np.fill_diagonal(dense, True)
        if not self.directed:
            dense |= np.tril(np.ones_like(dense))
        rows, cols = np.nonzero(~dense)
        e = int(rng.integers(rows.size))
        return self._commit(self._edge_entries(int(live[rows[e]]), int(live[cols[e]]), 1))

    def _swap_edges(self, rng):
        if self.n_edges - self.n_loops < 2:
            raise PerturbationError("a degree-preserving swap needs at least two edges")
        for _ in range(_SWAP_TRIES):
            a, b = self._random_edge(rng)
            c, d = self._random_edge(rng)
            if not self.directed and rng.integers(2):
                c, d = d, c
            if len({a, b, c, d}) < 4 or self._has_edge(a, d) or self._has_edge(c, b):
                continue
            entries = (self._edge_entries(a, b, -1) + self._edge_entries(c, d, -1)
                       + self._edge_entries(a, d, 1) + self._edge_entries(c, b, 1))
            return self._commit(entries)
        raise PerturbationError(f"no degree-preserving edge swap found in {_SWAP_TRIES} random tries")

    def _remove_node(self, rng):
        if self.n_alive < 2:
            raise PerturbationError("cannot remove a node: the graph would have no nodes left")
        u = self._random_node(rng)
        entries = {(u, v) for v in self._neighbours(u)}
        if self.directed:
            entries |= {(v, u) for v in self._neighbours(u, transpose=True)}
        else:
            entries |= {(v, u) for v in self._neighbours(u)}
        return self._commit([(r, c, -1) for r, c in sorted(entries)], died=u)

    def _add_node(self, rng):
        if not self.n_alive:
            raise PerturbationError("cannot add a pendant node: the graph has no node to join it to")
        anchor = self._random_node(rng)
        if self.next_id >= self.n_cap:
            self.reserve(max(1, self.n_cap // 64))
        u = self.next_id
        return self._commit(self._edge_entries(u, anchor, 1), born=u)

    # -- the update ----------------------------------------------------------------------
    def _commit(self, entries, born=None, died=None):
        """Write the entries ``(row, col, +-1)`` into the overlay and update the summary."""
        er = np.array([e[0] for e in entries], dtype=np.int64)
        ec = np.array([e[1] for e in entries], dtype=np.int64)
        ev = np.array([e[2] for e in entries], dtype=np.float64)
        w0_old = self.alive[ec].astype(np.float64)  # the start vector before the edit
        for r, c, v in entries:
            key = (r, c)
            if key in self.overlay:
                del self.overlay[key]  # back to the base
            else:
                self.overlay[key] = v
            if self.directed or r <= c:
                self.n_edges += v
                self.n_loops += v * (r == c)
        self._overlay_arrays()
        changed_nodes, d0 = [], []
        if born is not None:
            self.alive[born] = True
            self.n_alive += 1
            self.next_id = born + 1
            changed_nodes.append(born)
            d0.append(1.0)
        if died is not None:
            self.alive[died] = False
            self.n_alive -= 1
            changed_nodes.append(died)
            d0.append(-1.0)
        if self.k is None:
            return None
        large = len(self.overlay) > _MAX_OVERLAY * self.nnz + 64 and self.ball_fraction != np.inf
        if self.ball_fraction == 0 or large:
            self._set_base(self.merged_csr())
            self.n_full += 1
            return "full"
        changed_nodes = np.array(changed_nodes, np.int64)
        deltas = self._propagate(er, ec, ev, w0_old, changed_nodes, np.array(d0))
        if any(d[0] is None for d in deltas):
            self._apply_dense(deltas, changed_nodes)
            self.n_products += 1
            return "products"
        self._apply_deltas(deltas, changed_nodes)
        self.n_incremental += 1
        return "incremental"

    def _propagate(self, er, ec, ev, w0_old, idx, val):
        """``d_t`` for ``t = 1..k``: ``(support, values)`` while the ball is small,
        ``(None, dense vector)`` from the first step whose gather would read more than
        ``ball_fraction * nnz`` stored entries on."""
        limit = self.ball_fraction * self.nnz
        ptr, ind = (self.indptr_t, self.indices_t) if self.directed else (self.indptr, self.indices)
        ov_r, ov_c, ov_v = self._ov
        out = []
        dense = None
        for t in range(self.k):
            # E w_{t-1}, w of the graph before the edit
            edit = ev * (w0_old if t == 0 else self.W[ec, t - 1])
            if dense is None and idx.size:
                starts = ptr[idx]
                lengths = ptr[idx + 1] - starts
                if int(lengths.sum()) > limit:  # a large ball: a full product from here on
                    dense = np.zeros(self.n_cap)
                    dense[idx] = val
            if dense is not None:
                # A' d as one sparse product with the base, corrected by the overlay
                product = self._A @ dense
                if ov_r.size:
                    np.add.at(product, ov_r, ov_v * dense[ov_c])
                np.add.at(product, er, edit)
                dense = product / self.rinv[t]
                out.append((None, dense))
                continue
            targets, values = [er], [edit]
            if idx.size:
                # A' d: the base's arcs into the support's rows (the transpose's rows) ...
                targets.append(ind[concatenated_ranges(starts, lengths)])
                values.append(np.repeat(val, lengths))
                # ... corrected by the overlay's arcs r -> c with c in the support
                if ov_c.size:
                    pos = np.searchsorted(idx, ov_c)
                    hit = pos < idx.size
                    hit[hit] = idx[pos[hit]] == ov_c[hit]
                    if hit.any():
                        targets.append(ov_r[hit])
                        values.append(ov_v[hit] * val[pos[hit]])
            idx, val = _summed(np.concatenate(targets), np.concatenate(values), self.n_cap)
            val = val / self.rinv[t]
            out.append((idx, val))
        return out

    def _apply_dense(self, deltas, changed_nodes):
        """Write deltas some of which are dense; the moments then from scratch."""
        for t, (idx, val) in enumerate(deltas):
            if idx is None:
                self.W[:, t] += val
            else:
                self.W[idx, t] += val
        gone = changed_nodes[~self.alive[changed_nodes]]
        self.W[gone] = 0.0  # a removed node: no walks (exactly, not up to rounding)
        self._full_moments()

    def _apply_deltas(self, deltas, changed_nodes):
        parts = [changed_nodes] + [idx for idx, _ in deltas]
        if sum(part.size for part in parts) * 16 > self.n_cap:  # a dense mark beats a sort
            mark = np.zeros(self.n_cap, bool)
            for part in parts:
                mark[part] = True
            rows = np.flatnonzero(mark)
        else:
            rows = np.unique(np.concatenate(parts))
        old = self.W[rows]
        new = old.copy()
        for t, (idx, val) in enumerate(deltas):
            new[np.searchsorted(rows, idx), t] += val
        alive_new = self.alive[rows]
        new[~alive_new] = 0.0  # a removed node: no walks (exactly, not up to rounding)
        alive_old = alive_new.copy()
        for node in changed_nodes.tolist():  # the nodes born or died changed liveness
            alive_old[np.searchsorted(rows, node)] ^= True
        co = old[alive_old] - self.m0
        cn = new[alive_new] - self.m0
        self.s1 += cn.sum(axis=0) - co.sum(axis=0)
        self.s2 += cn.T @ cn - co.T @ co
        self.totals[1:] += new[alive_new].sum(axis=0) - old[alive_old].sum(axis=0)
        self.totals[0] = float(self.n_alive)
        self.W[rows] = new

    # -- results ---------------------------------------------------------------------------
    def invariants(self):
        """The :class:`~graphinvariants.PowerInvariants` of the edited graph."""
        if self.k is None:
            raise ValueError("this PerturbedGraph was made with k=None: it edits the graph and has no invariants")
        n = self.n_alive
        offset = self.s1 / n
        mean_w = self.m0 + offset
        cov_w = self.s2 / n - np.outer(offset, offset)
        prev = self.totals[:-1]
        scale = np.divide(self.rinv, prev, out=np.zeros(self.k), where=prev > 0)
        cov = cov_w * np.outer(scale, scale)
        cov = (cov + cov.T) / 2
        np.fill_diagonal(cov, np.maximum(np.diag(cov), 0.0))
        return PowerInvariants(mean_w * scale, cov, n)

    def __repr__(self):
        kind = "directed" if self.directed else "undirected"
        return (f"<PerturbedGraph: {self.n_alive} nodes, {self.n_edges} edges, {kind}, k={self.k}; "
                f"updates: {self.n_incremental} incremental, {self.n_products} with products, "
                f"{self.n_full} from scratch>")


def _full_summary(A, k):
    """Algorithm 1 from scratch on the 0/1 CSR ``A``: the full branch, by the path
    :func:`graphinvariants.power_summary` takes for a graph of this size (the
    compiled products of :mod:`graphinvariants.walks.large` for a large one)."""
    if is_large(A.shape[0], A.nnz):
        return power_columns(A, k, weighted=False)[0].T
    return power_iteration(A, np.array([0, A.shape[0]]), k)


def _node_id(x):
    """A node id (a row) as a Python int; anything but an integer is refused."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
        raise TypeError(f"node ids are integers (rows of the graph), got {x!r}")
    return int(x)


def _check_fraction(value):
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"ball_fraction must be a number, got {value!r}") from None
    if not value >= 0:  # NaN too
        raise ValueError(f"ball_fraction must be >= 0, got {value}")
    return value


def _summed(targets, values, n):
    """Sorted unique targets and the sums of their values, exact zeros dropped."""
    if targets.size * 16 > n:
        sums = np.bincount(targets, values, minlength=n)
        idx = np.flatnonzero(sums)
        return idx, sums[idx]
    idx, inverse = np.unique(targets, return_inverse=True)
    sums = np.bincount(inverse, values, minlength=idx.size)
    keep = sums != 0
    return idx[keep], sums[keep]


def _merge(indptr, indices, overlay, n):
    """Canonical 0/1 CSR of the base ``(indptr, indices)`` with the overlay's entries
    ``(rows, cols, +-1)`` (sorted by row, then column) inserted and deleted."""
    rows, cols, values = overlay
    if rows.size:
        starts = indptr[rows]
        ends = indptr[rows + 1]
        pos = np.array([s + np.searchsorted(indices[s:e], c) for s, e, c in zip(starts, ends, cols)], dtype=np.int64)
        removed = values < 0
        add = ~removed
        if removed.any():
            keep = np.ones(indices.size, bool)
            keep[pos[removed]] = False
            if add.any():
                keep = np.insert(keep, pos[add], True)
        if add.any():
            indices = np.insert(indices, pos[add], cols[add].astype(indices.dtype))
        if removed.any():
            indices = indices[keep]
        indptr = indptr.copy()
        indptr[1:] += np.cumsum(np.bincount(rows, values, minlength=n).astype(np.int64)).astype(indptr.dtype)
    A = sp.csr_array((np.ones(indices.size), indices, indptr), shape=(n, n))
    A.has_sorted_indices = True  # inserted in order: scipy need not check
    return A
