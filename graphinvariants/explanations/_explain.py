"""Why a prediction: each node's contribution to a fitted model's output, complete.

:func:`explain` splits the output ``f(G)`` of a fitted model whose first step is a
graph kernel of this library (``Pipeline([("kernel", GraphKernel()), ("svm",
SVC(kernel="precomputed"))])``, kernel ridge, :class:`~graphinvariants.GraphFeatures`
and a linear model) into one value per node of ``G``, so that
``base_value + node_values[i].sum()`` is the model's ``decision_function`` (or
``predict`` for regression) on graph ``i``. The readout is linear in the kernel
columns (or features), ``f(G) = sum_j a_j K(G, G_j) + b``; the kernel is a weighted sum
of terms (one for a named kernel, the learned candidates with weight for the default),
and each term's share is split over the nodes in one of two ways.

* **Exact and deterministic**, for every term made of count members (Weisfeiler-Lehman
  subtrees, walk-count histograms, labelled and closed walks, rooted subgraphs, their
  optimal-assignment forms) and the power kernel, in every shape the learned default
  offers (``K^p``, Gaussians ``exp(-(2 - 2K) / (s m))``, products): these members read
  a graph through features that are sums over its nodes (a WL colour is a subtree
  rooted at a node, a walk starts at one; the power kernel's mean and covariance are
  sums of the node profiles ``x_v`` and ``(x_v - mu)(x_v - mu)^T`` over ``n``). The
  term's change from a graph that shares nothing with the training graphs is split by
  integrated gradients along the straight line from no features to the graph's
  (:mod:`~graphinvariants.explanations._paths`), each feature's share going to the nodes that
  own it. For a count member in its plain shape this is the exact split
  ``<c_v(G), c(H)> / (|c(G)| |c(H)|)`` (the norm of ``G`` is one number for ``G``), and
  for an optimal assignment label ``j``'s share split evenly among the nodes of ``G``
  that carry it. With ``spread="root"`` (the default) each rooted feature goes to its
  root, and neighbours that shaped it get nothing for it; with ``spread="field"`` it
  goes evenly to the nodes it reads, the ball of its depth around the root (a WL
  colour of round ``h``: the nodes within ``h`` hops).
* **Sampled**, for the terms with a member whose features are not sums over nodes (node
  attributes, the shortest-path kernel's node pairs, mean maps, molecular descriptors,
  the Nystroem part of :class:`~graphinvariants.GraphFeatures` but for the power kernel's
  path integral there), and for a power-kernel term on a graph where its path integral does not
  converge (``fallback``: a covariance that is the ridge alone in some direction,
  against a training graph alike, makes the kernel a needle near the graph itself):
  Shapley values over nodes, a node taken away meaning the node *deleted with its
  edges* (the term evaluated on the induced subgraph of the nodes kept; the empty
  graph's value is 0). They are estimated from ``n_permutations`` random orders of the
  nodes (all orders when there are no more than that), drawn with ``seed``: in each
  order the marginal values telescope to the term's value on the whole graph, so
  their mean is complete exactly, whatever the number of orders. ``node_errors``
  holds each node's standard error over the orders (0 for all orders and for the
  exact part).

``base_value`` is the readout's intercept plus the Gaussian-shaped terms' value on a
graph that shares nothing with the training graphs (``exp(-2 / (s m))`` times their
coefficients): the output such a graph gets, which no node of ``G`` caused. The share
of the output each part carries is in ``exact_part`` and ``sampled_part`` (per graph)
and ``member_values`` (per term).
:func:`explain_pair` splits one kernel value ``K(G, H)`` the same way over the nodes of
each graph. The pictures are :class:`~graphinvariants._utils.plotting.NodeValuesDisplay` and
:class:`~graphinvariants._utils.plotting.PairValuesDisplay`.
"""

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from .._utils.validation import check_int, check_seed, check_seed_sequence
from ._paths import (NodeBatch, Shape, TermPaths, check_spread, is_path_member, node_rows, node_sum_embedding,
                          owner_sum)
from ..embeddings.assignment import OptimalAssignment
from ..embeddings.combination import Combination
from ..embeddings.counts import CountFeatures, squared_norms
from ..estimator import GraphKernel, PowerKernel
from ..graphs import GraphBatch
from ..graphs.adjacency import describe
from ..graphs.batch import check_not_single_graph
from ..kernels import pairwise_kernels
from ..kernels.registry import make_functional
from ..features import GraphFeatures

__all__ = ["Explanation", "PairExplanation", "explain", "explain_pair", "node_counts"]

#: Orders of the nodes drawn per graph for the sampled part, unless told.
DEFAULT_PERMUTATIONS = 32

#: Largest number of (subgraph, node or stored entry) cells the subgraphs of one call
#: are built from at once (16 Mi booleans, 16 MiB).
_CELLS = 2**24


# -- per-node counts --------------------------------------------------------------------
_is_node_sum = node_sum_embedding


def node_counts(graphs, functional):
    """The count embedding of every node: rows that sum, graph by graph, to the counts.

    Parameters
    ----------
    graphs : collection of graphs, GraphBatch or TUDataset
    functional : CountFeatures
        A count member whose features are rooted at nodes: Weisfeiler-Lehman (also
        with closed walks, node and edge labels, and its optimal-assignment form), the
        walk-count histograms (plain, labelled, closed) and rooted subgraphs.

    Returns
    -------
    batch
        An embedding batch of ``functional``'s type with one row of ``counts`` per node
        (in the order of the graphs and each graph's own node order), on the vocabulary
        its :meth:`embed` of the same graphs has.

    Raises
    ------
    TypeError
        If the functional's counts are not sums over nodes.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import WeisfeilerLehman
    >>> from graphinvariants.explanations._explain import node_counts
    >>> wl = WeisfeilerLehman(n_iter=1)
    >>> nodes = node_counts([nx.path_graph(3)], wl)
    >>> nodes.counts.toarray()
    array([[1., 0., 1., 0.],
           [0., 1., 0., 1.],
           [1., 0., 1., 0.]])
    >>> nodes.counts.sum(axis=0).tolist() == wl.embed(wl.graph_batch([nx.path_graph(3)])).counts.toarray()[0].tolist()
    True
    """
    if not _is_node_sum(functional):
        raise TypeError(f"{type(functional).__name__} counts are not sums of per-node counts; node_counts takes "
                        "Weisfeiler-Lehman, walk-histogram and rooted-subgraph functionals")
    batch = graphs if isinstance(graphs, GraphBatch) else functional.graph_batch(graphs, what="graphs")
    return functional.embed(NodeBatch(batch))


def _exact_node_values(functional, batch, train, coef, spread="root"):
    """Node values of the term ``sum_j coef_j K(G, train_j)`` of a count functional: one
    float per node of ``batch``, summing graph by graph to the term."""
    nodes = node_rows(functional, batch, spread)
    A, B = functional.merge(train, nodes)
    A, B = sp.csr_array(A, dtype=np.float64), sp.csr_array(B, dtype=np.float64)
    C = owner_sum(batch, B)  # each graph's counts
    owner = np.repeat(np.arange(len(batch)), batch.sizes)
    coef = np.asarray(coef, dtype=np.float64)
    if not isinstance(functional, OptimalAssignment):
        u = A.T @ (coef / np.sqrt(squared_norms(A)))
        return (B @ u) / np.sqrt(squared_norms(C))[owner]
    # histogram intersection: label j's share min(c_G(j), c_H(j)) split evenly over G's c_G(j) nodes
    train_norms = np.asarray(A.sum(axis=1), dtype=np.float64).reshape(-1)
    scaled = coef / np.sqrt(train_norms)
    out = np.empty(batch.n_nodes)
    offsets = batch.offsets
    for g in range(len(batch)):
        row = C[[g]]
        cols, counts = row.indices, row.data
        per_label = scaled @ np.minimum(A[:, cols].toarray(), counts[None, :]) / counts
        block = B[offsets[g] : offsets[g + 1]][:, cols]
        out[offsets[g] : offsets[g + 1]] = block @ per_label / np.sqrt(counts.sum())
    return out


# -- induced subgraphs ------------------------------------------------------------------
def _induced(batch, g, masks):
    """The subgraphs of graph ``g`` of ``batch`` induced by the rows of the boolean
    ``masks`` (``(n_subgraphs, n_g)``), as one GraphBatch with the nodes in the graph's
    order and everything the batch carries (weights, labels, attributes)."""
    start, stop = int(batch.offsets[g]), int(batch.offsets[g + 1])
    A = batch.matrix
    first, last = int(A.indptr[start]), int(A.indptr[stop])
    entry = np.arange(first, last)
    rows = np.repeat(np.arange(stop - start), np.diff(A.indptr[start : stop + 1]))
    cols = A.indices[first:last] - start
    position = np.cumsum(masks, axis=1) - 1  # a kept node's place in its subgraph
    sizes = masks.sum(axis=1)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    which, e = np.nonzero(masks[:, rows] & masks[:, cols])  # by subgraph, then in CSR order: canonical
    new_rows = offsets[which] + position[which, rows[e]]
    new_cols = offsets[which] + position[which, cols[e]]
    n = int(offsets[-1])
    indptr = np.concatenate(([0], np.cumsum(np.bincount(new_rows, minlength=n)))).astype(np.int64)
    matrix = sp.csr_array((A.data[entry[e]], new_cols.astype(np.int64), indptr), shape=(n, n))
    sub, v = np.nonzero(masks)
    node = start + v
    return GraphBatch(
        matrix, offsets, batch.weighted,
        None if batch.node_labels is None else batch.node_labels[node],
        None if batch.edge_labels is None else batch.edge_labels[entry[e]],
        None if batch.node_attributes is None else batch.node_attributes[node],
    )


def _shapley(batch, value, n_permutations, seeds):
    """Permutation estimates of the Shapley values of ``value`` (a function of a
    GraphBatch -> one float per graph; the empty graph's value is 0) over the nodes of
    every graph: ``(values, errors)``, one float per node each. All orders are used when
    a graph has no more than ``n_permutations`` of them (``errors`` 0)."""
    values, errors = np.zeros(batch.n_nodes), np.zeros(batch.n_nodes)
    for g in range(len(batch)):
        n = int(batch.sizes[g])
        if n == 0:
            continue
        start = int(batch.offsets[g])
        if math.factorial(n) <= n_permutations:
            import itertools

            orders = np.array(list(itertools.permutations(range(n))), dtype=np.int64)
            exhaustive = True
        else:
            rng = np.random.default_rng(seeds[g])
            orders = np.array([rng.permutation(n) for _ in range(n_permutations)], dtype=np.int64)
            exhaustive = False
        nnz = int(batch.matrix.indptr[start + n] - batch.matrix.indptr[start])
        per_call = max(1, _CELLS // max(n * max(n, nnz, 1), 1))  # orders per call
        marginals = np.empty((len(orders), n))
        for lo in range(0, len(orders), per_call):
            chunk = orders[lo : lo + per_call]
            rank = np.empty_like(chunk)
            np.put_along_axis(rank, chunk, np.arange(n)[None, :], axis=1)
            # prefix k of order r keeps the nodes of rank < k: n masks per order
            masks = (rank[:, None, :] < np.arange(1, n + 1)[None, :, None]).reshape(-1, n)
            prefix = np.asarray(value(_induced(batch, g, masks)), dtype=np.float64).reshape(len(chunk), n)
            gains = np.diff(prefix, axis=1, prepend=0.0)
            np.put_along_axis(marginals[lo : lo + len(chunk)], chunk, gains, axis=1)
        values[start : start + n] = marginals.mean(axis=0)
        if not exhaustive and len(orders) > 1:
            errors[start : start + n] = marginals.std(axis=0, ddof=1) / np.sqrt(len(orders))
    return values, errors


# -- the model's anatomy ---------------------------------------------------------------
@dataclass
class _Term:
    """One term of the model's output: ``label``; for an exact term its functional,
    training embeddings and coefficients on them (``functional``, ``train``, ``coef``),
    or GraphFeatures' member map (``member``, ``coef``); for a sampled one nothing
    (the sampled terms are evaluated together by the anatomy's ``sampled_value``)."""

    label: str
    exact: bool
    functional: object = None
    train: object = None
    coef: object = None
    member: object = None
    members: object = None  # a path term: [(functional, training embeddings)], its Shape
    shape: object = None


def _takes_path(functionals):
    """Whether a term multiplying these members' kernels is split by path integrals
    (:mod:`~graphinvariants.explanations._paths`): count members and the power kernel, an
    optimal-assignment member only alone."""
    if not all(is_path_member(f) for f in functionals):
        return False
    return len(functionals) == 1 or not any(isinstance(f, OptimalAssignment) for f in functionals)


def _readout(final, n_columns, what):
    """``(w, b, method)``: the final step's output is ``X @ w + b`` on its input ``X``
    (``n_columns`` columns), read by ``method``."""
    name = type(final).__name__
    check_is_fitted(final)
    if hasattr(final, "support_") and hasattr(final, "dual_coef_"):  # SVC, NuSVC, SVR, NuSVR
        if getattr(final, "kernel", None) != "precomputed":
            raise ValueError(f"{what}: {name} must use kernel='precomputed' on the graph kernel")
        dual = np.asarray(final.dual_coef_)
        if dual.shape[0] != 1:
            raise ValueError(f"{what}: {name} has {len(final.classes_)} classes; explain takes binary "
                             "classifiers and regressors (one output)")
        w = np.zeros(n_columns)
        w[final.support_] = dual[0]
        method = "decision_function" if hasattr(final, "classes_") else "predict"
        return w, float(np.asarray(final.intercept_).reshape(-1)[0]), method
    if type(final).__name__ == "KernelRidge":
        if final.kernel != "precomputed":
            raise ValueError(f"{what}: KernelRidge must use kernel='precomputed' on the graph kernel")
        dual = np.asarray(final.dual_coef_)
        if dual.ndim == 2 and dual.shape[1] != 1:
            raise ValueError(f"{what}: KernelRidge has {dual.shape[1]} targets; explain takes one")
        return dual.reshape(-1), 0.0, "predict"
    if hasattr(final, "coef_"):  # linear models
        coef = np.asarray(final.coef_, dtype=np.float64)
        if coef.ndim == 2 and coef.shape[0] != 1:
            raise ValueError(f"{what}: {name} has {coef.shape[0]} outputs; explain takes binary classifiers "
                             "and regressors (one output)")
        intercept = np.asarray(getattr(final, "intercept_", 0.0), dtype=np.float64).reshape(-1)
        method = "decision_function" if hasattr(final, "decision_function") else "predict"
        return coef.reshape(-1), float(intercept[0]) if intercept.size else 0.0, method
    raise TypeError(f"{what}: the last step must be linear in the kernel or features (SVC/SVR with "
                    f"kernel='precomputed', KernelRidge(kernel='precomputed'), a linear model), got {name}")


class _KernelAnatomy:
    """``f(G) = sum_t T_t(G) + b`` of a kernel transformer and a linear readout."""

    def __init__(self, transformer, alpha):
        self.transformer = transformer
        self.alpha = alpha
        self.terms, self._sampled = [], []
        if transformer.kernel == "learned" and isinstance(transformer, GraphKernel):
            combination = transformer.combination_
            if combination.externals:
                raise TypeError("explain does not take a learned default with external members "
                                f"({sorted(combination.externals)}): their kernels cannot be evaluated on subgraphs")
            self.combination = combination
            for label, parts, shape, w in combination.chosen:
                functionals = [combination.functionals[p] for p in parts]
                members = [(f, combination.embeddings[p]) for f, p in zip(functionals, parts)]
                if _takes_path(functionals):
                    median = getattr(combination, "medians", {}).get("*".join(parts), 1.0)
                    self.terms.append(_Term(label, True, coef=w * alpha, members=members,
                                            shape=Shape(shape, median)))
                else:
                    self.terms.append(_Term(label, False))
                    self._sampled.append((label, parts, shape, w))
            return
        self.combination = None
        f, train = transformer.functional_, transformer.embeddings_
        if isinstance(f, Combination) and f.operation == "+":
            members = list(zip(f.functionals, train.members, [repr(m) for m in f.functionals]))
            share = 1.0 / len(members)
        else:
            members, share = [(f, train, transformer.kernel)], 1.0
        for functional, embedded, label in members:
            product = isinstance(functional, Combination) and functional.operation == "*"
            parts = list(zip(functional.functionals, embedded.members)) if product else [(functional, embedded)]
            if _is_node_sum(functional):
                self.terms.append(_Term(str(label), True, functional, embedded, share * alpha))
            elif _takes_path([p for p, _ in parts]):
                self.terms.append(_Term(str(label), True, coef=share * alpha, members=parts,
                                        shape=Shape(("power", 1))))
            else:
                self.terms.append(_Term(str(label), False, functional, embedded, share * alpha))
                self._sampled.append((str(label), functional, embedded, share))

    def term_value(self, term, batch):
        """One exact term's value on every graph of ``batch`` (for a graph where its path
        integral falls back to sampling)."""
        if term.members is None:
            return pairwise_kernels(batch, term.train, functional=term.functional) @ term.coef
        grams = [pairwise_kernels(batch, train, functional=f) for f, train in term.members]
        return term.shape(np.prod(grams, axis=0)) @ term.coef

    def batch(self, X):
        if self.combination is not None:
            return self.combination.graph_batch(X, "graphs", require=self.combination.requires)[0]
        return self.transformer.functional_.graph_batch(X, what="graphs")

    def exact_values(self, term, batch, spread="root"):
        """``(node values, baseline per graph, graphs whose path integral did not
        converge)`` of an exact term."""
        if term.members is None:
            return (_exact_node_values(term.functional, batch, term.train, term.coef, spread), np.zeros(len(batch)),
                    [])
        paths = TermPaths(term.members, term.shape, term.coef, batch, spread=spread)
        values, baseline = paths.node_values()
        flat = np.zeros(batch.n_nodes)
        for g, v in enumerate(values):
            if v is not None:
                flat[batch.offsets[g] : batch.offsets[g + 1]] = v
        return flat, baseline, list(paths.failed)

    def term_values(self, batch):
        """Each term's value on every graph of ``batch`` (label -> array)."""
        out = {}
        if self.combination is not None:
            c = self.combination
            needed = {p for _, parts, _, _ in c.chosen for p in parts}
            grams = {name: pairwise_kernels(batch, c.embeddings[name], functional=c.functionals[name])
                     for name in needed}
            for label, parts, shape, w in c.chosen:
                out[label] = w * c.term(grams, parts, shape) @ self.alpha
            return out
        for term in self.terms:
            out[term.label] = self.term_value(term, batch) if term.exact else \
                pairwise_kernels(batch, term.train, functional=term.functional) @ term.coef
        return out

    def sampled_value(self, batch):
        if self.combination is not None:
            c = self.combination
            needed = {p for _, parts, _, _ in self._sampled for p in parts}
            grams = {name: pairwise_kernels(batch, c.embeddings[name], functional=c.functionals[name])
                     for name in needed}
            return sum(w * c.term(grams, parts, shape) @ self.alpha for _, parts, shape, w in self._sampled)
        return sum(share * pairwise_kernels(batch, train, functional=f) @ self.alpha
                   for _, f, train, share in self._sampled)


class _FeatureAnatomy:
    """``f(G) = features(G) @ w + b`` of :class:`~graphinvariants.GraphFeatures`: the
    exact members' blocks of columns, then the Nystroem block."""

    def __init__(self, features, w):
        self.features = features
        self.combination = features.kernel_.__dict__.get("combination_")  # None for a fixed kernel
        self.terms, start = [], 0
        for member in features._exact:
            if not hasattr(member, "probe"):  # random features (a mean map's n_features form): no node split
                raise TypeError(f"explain cannot split GraphFeatures' member {member.name!r} over nodes: its columns "
                                "are random features, not counts; use its exact form (no n_features) or GraphKernel")
            self.terms.append(_Term(member.name, True, member.functional, coef=w[start : start + member.n_columns],
                                    member=member))
            start += member.n_columns
        self._nystroem = slice(start, start + features.normalization_.shape[1])
        self._w = w
        self._sampled = list(features.approximate_)
        if self._sampled:
            self.terms.append(_Term("nystroem(" + " + ".join(self._sampled) + ")", False))

    def batch(self, X):
        if self.combination is None:
            return self.features.kernel_.functional_.graph_batch(X, what="graphs")
        return self.combination.graph_batch(X, "graphs", require=self.combination.requires)[0]

    def exact_values(self, term, batch, spread="root"):
        member = term.member
        f = member.functional
        nodes = node_rows(f, batch, spread)
        place, B = f.merge(member.probe, nodes)
        B = sp.csr_array(B, dtype=np.float64)
        C = owner_sum(batch, B)  # all of each graph's counts (unseen labels too): the norm
        owner = np.repeat(np.arange(len(batch)), batch.sizes)
        place = sp.csr_array(place, dtype=np.float64)  # fitted label -> merged column (one-hot rows)
        kept = sp.csr_array(B @ place.T)  # node counts on the fitted labels
        if not member.assignment:
            norms = np.sqrt(squared_norms(C))
            return member.scale * (kept @ term.coef) / norms[owner], np.zeros(len(batch)), []
        # unary columns (j, 1..min(c_G(j), width_j)) of a graph split evenly over its c_G(j) nodes of label j
        widths = np.asarray(member.widths, dtype=np.int64)
        starts = np.concatenate(([0], np.cumsum(widths)[:-1]))
        cumulative = np.concatenate(([0.0], np.cumsum(term.coef)))
        graph_kept = sp.csr_array(C @ place.T)
        norms = np.asarray(C.sum(axis=1), dtype=np.float64).reshape(-1)
        out = np.zeros(batch.n_nodes)
        for g in range(len(batch)):
            row = graph_kept[[g]]
            j, c = row.indices, row.data
            if not len(j):
                continue
            covered = np.minimum(c, widths[j]).astype(np.int64)
            per_label = (cumulative[starts[j] + covered] - cumulative[starts[j]]) / c
            lo, hi = batch.offsets[g], batch.offsets[g + 1]
            out[lo:hi] = kept[lo:hi][:, j] @ per_label * member.scale / np.sqrt(norms[g])
        return out, np.zeros(len(batch)), []

    def term_values(self, batch):
        X = self.features.transform_block(batch)
        out, start = {}, 0
        for term in self.terms:
            if term.exact:
                stop = start + term.member.n_columns
                out[term.label] = X[:, start:stop] @ term.coef
                start = stop
        if self._sampled:
            out[self.terms[-1].label] = self.sampled_value(batch, X)
        return out

    def sampled_value(self, batch, X=None):
        # subgraphs made by taking nodes away: no warning about their labels (_block's rows
        # are transform_block's without it)
        X = self.features._block(batch)[0] if X is None else X
        return X[:, self._nystroem] @ self._w[self._nystroem]


def _anatomy(model):
    """``(anatomy, final step, intercept, method)`` of a fitted model, or a clear error."""
    steps = getattr(model, "steps", None)
    if steps is None:
        raise TypeError(f"model must be a fitted scikit-learn Pipeline whose first step is a graph kernel of this "
                        f"library (GraphKernel, PowerKernel, GraphFeatures), got {type(model).__name__}")
    if len(steps) != 2:
        raise ValueError(f"model must be a Pipeline of two steps (graph kernel or features, then a linear model), "
                         f"got {len(steps)} steps: {[name for name, _ in steps]}")
    first, final = steps[0][1], steps[1][1]
    if isinstance(first, (GraphKernel, PowerKernel)):
        check_is_fitted(first, "embeddings_")
        w, b, method = _readout(final, first.n_train_, "model")
        return _KernelAnatomy(first, w), final, b, method
    if isinstance(first, GraphFeatures):
        check_is_fitted(first, "n_features_out_")
        w, b, method = _readout(final, first.n_features_out_, "model")
        return _FeatureAnatomy(first, w), final, b, method
    raise TypeError(f"model's first step must be a graph kernel of this library (GraphKernel, PowerKernel) or "
                    f"GraphFeatures, got {type(first).__name__}")


# -- results ----------------------------------------------------------------------------
@dataclass(repr=False)
class Explanation:
    """Node contributions to a model's output on some graphs (made by :func:`explain`).

    Attributes
    ----------
    node_values : list of numpy.ndarray
        One array per graph, in the graph's own node order;
        ``base_value + node_values[i].sum() == output[i]`` to rounding.
    base_value : float
        The output of a graph sharing nothing with the training graphs: the readout's
        intercept, plus ``exp(-2 / (s m))`` times the coefficients of the Gaussian-shaped
        terms split exactly.
    output : numpy.ndarray of shape (n_graphs,)
        The model's ``method`` on the graphs (``decision_function`` or ``predict``).
    method : str
    exact_values, sampled_values : list of numpy.ndarray
        The two parts of ``node_values`` (integrated gradients of the count members and
        the power kernel; Shapley estimates).
    node_errors : list of numpy.ndarray
        Standard error of each node's sampled value over the orders drawn (0 where exact).
    member_values : dict
        Each term's value on every graph (term label -> array of shape (n_graphs,)).
    exact_members, sampled_members : list of str
        The terms split exactly and by sampling.
    n_permutations : int
    fallback : dict
        Terms split exactly elsewhere but sampled on some graphs, where their path
        integral did not converge (term label -> positions of those graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> from sklearn.pipeline import make_pipeline
    >>> import graphinvariants as gi
    >>> graphs = [nx.path_graph(n) for n in range(3, 9)]
    >>> model = make_pipeline(gi.GraphKernel(kernel="histogram", k=2), KernelRidge(kernel="precomputed"))
    >>> result = gi.explain(model.fit(graphs, [n / 10 for n in range(3, 9)]), graphs[:2])
    >>> result.asdict(0)["node_values"] == result.node_values[0].tolist(), result.exact_share
    (True, 1.0)
    >>> bool(abs(result.base_value + sum(result.asdict(1)["node_values"]) - model.predict(graphs[1:2])[0]) < 1e-12)
    True
    """

    node_values: list
    base_value: float
    output: np.ndarray
    method: str
    exact_values: list
    sampled_values: list
    node_errors: list
    member_values: dict
    exact_members: list
    sampled_members: list
    n_permutations: int
    fallback: dict = field(default_factory=dict)

    def __len__(self):
        return len(self.node_values)

    @property
    def exact_part(self):
        """Sum of the exact node values of each graph, shape (n_graphs,)."""
        return np.array([v.sum() for v in self.exact_values])

    @property
    def sampled_part(self):
        """Sum of the sampled node values of each graph, shape (n_graphs,)."""
        return np.array([v.sum() for v in self.sampled_values])

    @property
    def exact_share(self):
        """Over all graphs, the share of ``|exact part| + |sampled part|`` the exact part
        carries (a float in [0, 1]; 1.0 when there is nothing to share)."""
        exact, sampled = np.abs(self.exact_part).sum(), np.abs(self.sampled_part).sum()
        return float(exact / (exact + sampled)) if exact + sampled > 0 else 1.0

    def top_nodes(self, i, n=3):
        """Positions (in graph ``i``'s node order) of its ``n`` largest node values."""
        return [int(v) for v in np.argsort(-self.node_values[i], kind="stable")[:n]]

    def asdict(self, i=None):
        """Plain views: for ``i`` given, that graph's values (lists of Python floats);
        otherwise the whole explanation."""
        if i is not None:
            return {"node_values": self.node_values[i].tolist(), "base_value": self.base_value,
                    "output": float(self.output[i]), "exact": self.exact_values[i].tolist(),
                    "sampled": self.sampled_values[i].tolist(), "node_errors": self.node_errors[i].tolist(),
                    "members": {k: float(v[i]) for k, v in self.member_values.items()}}
        return {"node_values": [v.tolist() for v in self.node_values], "base_value": self.base_value,
                "output": self.output.tolist(), "method": self.method,
                "exact_members": list(self.exact_members), "sampled_members": list(self.sampled_members),
                "exact_share": self.exact_share, "n_permutations": self.n_permutations,
                "fallback": {k: list(v) for k, v in self.fallback.items()}}

    def __repr__(self):
        n = len(self)
        sizes = sum(len(v) for v in self.node_values)
        err = max((float(e.max()) for e in self.node_errors if len(e)), default=0.0)
        sampled = (f"; sampled: {', '.join(self.sampled_members)} ({self.n_permutations} orders, "
                   f"largest node standard error {err:.2g})" if self.sampled_members else "")
        fallback = sum(len(graphs) for graphs in self.fallback.values())
        fallback = (f"; sampled on {fallback} graph-term{'s' * (fallback != 1)} whose path integral did not "
                    "converge" if fallback else "")
        return (f"<Explanation of {self.method} on {n} graph{'s' * (n != 1)} ({sizes} nodes): "
                f"base_value {self.base_value:.4g}, exact share {self.exact_share:.1%}; "
                f"exact: {', '.join(self.exact_members) or 'none'}{sampled}{fallback}>")


def _check_permutations(n_permutations):
    return check_int(n_permutations, "n_permutations", minimum=1)


def explain(model, graphs, *, n_permutations=DEFAULT_PERMUTATIONS, seed=None, spread="root"):
    """Each node's contribution to a fitted model's output on ``graphs``, complete.

    Parameters
    ----------
    model : sklearn.pipeline.Pipeline, fitted
        Two steps: :class:`~graphinvariants.GraphKernel` or
        :class:`~graphinvariants.PowerKernel` then ``SVC``/``SVR``/``NuSVC``/``NuSVR``
        or ``KernelRidge`` with ``kernel="precomputed"``; or
        :class:`~graphinvariants.GraphFeatures` then a linear model (``coef_``,
        ``intercept_``). Binary classifiers and single-output regressors.
    graphs : collection of graphs, GraphBatch or TUDataset
        The graphs to explain (as the model reads them: same labels, attributes).
    n_permutations : int, keyword-only, default=32
        Orders of the nodes drawn per graph for the sampled part (all orders when a
        graph has no more). Unused when every term is exact (the count members and the
        power kernel, in every shape: the learned default but for node attributes).
    seed : None, int or numpy.random.Generator, keyword-only
        Seed of the orders; each graph gets its own stream (spawned from it by its
        position), so a graph's values depend on the seed and its place in ``graphs``,
        not on how large the other graphs are.
    spread : {"root", "field"}, keyword-only, default="root"
        Where an exact term gives a rooted feature's share: to its root (``"root"``),
        or evenly over the nodes it reads, the ball of its depth around the root
        (``"field"``: a WL colour of round ``h``, a walk-count prefix of length ``h``, a
        rooted subgraph of radius ``h`` go to the ``h``-hop ball). Either way the
        shares of a feature add up to its attribution, so completeness holds. The
        power kernel's moments and the sampled part are not spread.

    Returns
    -------
    Explanation
        ``base_value + node_values[i].sum()`` equals the model's ``decision_function``
        (classifiers) or ``predict`` (regressors) on graph ``i`` to 1e-8 relative,
        checked before returning.

    Raises
    ------
    TypeError
        If the model is not such a pipeline, or ``graphs`` is a single graph.
    ValueError
        If the model has more than one output, an SVC was fitted on another kernel,
        or ``graphs`` is empty.
    sklearn.exceptions.NotFittedError
        If the model is not fitted.

    Notes
    -----
    See the module's description: the terms of count members and the power kernel, in
    every shape, are split by integrated gradients in their node-sum features (exact,
    no randomness), each feature to the nodes that own it; the others by sampled
    Shapley values over nodes (a node taken away is deleted with its edges), whose
    standard errors are in ``node_errors``.

    Examples
    --------
    >>> import networkx as nx
    >>> from sklearn import pipeline, svm
    >>> import graphinvariants as gi
    >>> graphs = [nx.cycle_graph(n) for n in range(5, 15)] + [nx.star_graph(n) for n in range(4, 14)]
    >>> steps = [("kernel", gi.GraphKernel(kernel="wl", n_iter=2)), ("svm", svm.SVC(kernel="precomputed"))]
    >>> model = pipeline.Pipeline(steps).fit(graphs, [0] * 10 + [1] * 10)
    >>> result = gi.explain(model, graphs[-2:])
    >>> result  # doctest: +ELLIPSIS
    <Explanation of decision_function on 2 graphs (27 nodes): base_value ..., exact share 100.0%; exact: wl>
    >>> total = result.base_value + result.node_values[0].sum()
    >>> bool(abs(total - model.decision_function(graphs[-2:-1])[0]) < 1e-9)
    True
    >>> result.node_values[0][:3].round(3)  # the star's leaves, not its centre, make it a star here
    array([0.001, 0.047, 0.047])
    """
    anatomy, final, base, method = _anatomy(model)
    check_not_single_graph(graphs, "graphs")
    n_permutations = _check_permutations(n_permutations)
    check_seed(seed)
    check_spread(spread)
    if not hasattr(graphs, "__len__"):
        graphs = list(graphs)
    if len(graphs) == 0:
        raise ValueError("graphs is empty: explain needs at least one graph to explain")
    batch = anatomy.batch(graphs)
    n = batch.n_nodes
    exact, sampled, errors = np.zeros(n), np.zeros(n), np.zeros(n)
    fallback = {}
    for term in anatomy.terms:
        if term.exact:
            values, baseline, failed = anatomy.exact_values(term, batch, spread)
            exact += values
            if term.members is not None:  # the term on a graph sharing nothing with the training graphs
                base += float(term.shape(0.0)) * float(np.sum(term.coef))
            if failed:
                fallback[term.label] = (term, failed)
    sampled_members = [t.label for t in anatomy.terms if not t.exact]
    seeds = check_seed_sequence(seed).spawn(len(batch))
    if sampled_members:
        sampled, errors = _shapley(batch, anatomy.sampled_value, n_permutations, seeds)
    for label, (term, failed) in fallback.items():
        # a path integral that did not converge (a power kernel whose covariance is the ridge
        # alone in some direction, against a training graph alike: a needle at t = 1): that
        # term on that graph by sampled Shapley values, of its value less its baseline
        h0 = float(term.shape(0.0)) * float(np.sum(term.coef))
        sub = batch.take(np.asarray(failed))
        v, e = _shapley(sub, lambda b, term=term, h0=h0: anatomy.term_value(term, b) - h0, n_permutations,
                        [seeds[g].spawn(1)[0] for g in failed])
        for i, g in enumerate(failed):
            lo, hi = batch.offsets[g], batch.offsets[g + 1]
            sampled[lo:hi] += v[sub.offsets[i] : sub.offsets[i + 1]]
            errors[lo:hi] = np.sqrt(errors[lo:hi] ** 2 + e[sub.offsets[i] : sub.offsets[i + 1]] ** 2)
    members = anatomy.term_values(batch)
    output = np.asarray(getattr(model, method)(graphs), dtype=np.float64).reshape(-1)
    if output.shape != (len(batch),):
        raise ValueError(f"graphs: the model gave {output.shape} outputs for {len(batch)} graphs")
    split = lambda values: [values[a:b].copy() for a, b in zip(batch.offsets[:-1], batch.offsets[1:])]  # noqa: E731
    result = Explanation(
        node_values=split(exact + sampled), base_value=base, output=output, method=method,
        exact_values=split(exact), sampled_values=split(sampled), node_errors=split(errors),
        member_values=members, exact_members=[t.label for t in anatomy.terms if t.exact],
        sampled_members=sampled_members, n_permutations=n_permutations,
        fallback={label: list(failed) for label, (_, failed) in fallback.items()},
    )
    _check_complete(result, members)
    return result


def _check_complete(result, members):
    """Raise RuntimeError if the node values do not add up to the model's output (a bug,
    never a property of the input): the check is cheap and says what went wrong."""
    totals = result.base_value + np.array([v.sum() for v in result.node_values])
    scale = np.abs(result.base_value) + sum(np.abs(v) for v in members.values()) if members else 1.0
    gap = np.abs(totals - result.output)
    if np.any(gap > 1e-8 * np.maximum(np.abs(result.output), scale)):
        worst = int(np.argmax(gap))
        raise RuntimeError(f"node values of graph {worst} add up to {totals[worst]!r}, the model gives "
                           f"{result.output[worst]!r}: the model's readout is not the one explain assumed")


# -- pairs -------------------------------------------------------------------------------
@dataclass(repr=False)
class PairExplanation:
    """Node contributions of two graphs to their kernel value (made by :func:`explain_pair`).

    Attributes
    ----------
    value : float
        ``K(G, H)``.
    values_G, values_H : numpy.ndarray
        One value per node of each graph (its own node order), each summing to
        ``value - base_value``.
    errors_G, errors_H : numpy.ndarray
        Standard errors of sampled values (0 for an exact split).
    kernel : str
    exact : bool
        Whether the split is exact (count members) or sampled (Shapley values).
    n_permutations : int
        Orders drawn per graph (0 for an exact split).
    base_value : float
        The kernel between a graph sharing nothing with the other and it (0 but for the
        Gaussian shapes of a learned kernel, ``exp(-2 / (s m))`` times their weights).

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> pair = gi.explain_pair(nx.cycle_graph(6), nx.cycle_graph(6), kernel="histogram", k=2)
    >>> pair.value, pair.values_G.round(4).tolist()  # six interchangeable nodes, a sixth each
    (1.0, [0.1667, 0.1667, 0.1667, 0.1667, 0.1667, 0.1667])
    """

    value: float
    values_G: np.ndarray
    values_H: np.ndarray
    errors_G: np.ndarray
    errors_H: np.ndarray
    kernel: str
    exact: bool
    n_permutations: int = field(default=0)
    base_value: float = 0.0

    def asdict(self):
        """Plain view (Python floats and lists)."""
        return {"value": self.value, "values_G": self.values_G.tolist(), "values_H": self.values_H.tolist(),
                "errors_G": self.errors_G.tolist(), "errors_H": self.errors_H.tolist(), "kernel": self.kernel,
                "exact": self.exact}

    def __repr__(self):
        how = "exact" if self.exact else f"sampled, {self.n_permutations} orders"
        return (f"<PairExplanation of {self.kernel} = {self.value:.4g} ({how}): "
                f"{len(self.values_G)} and {len(self.values_H)} nodes>")


def _check_one_graph(graph, name):
    """Refuse a collection (a list, a GraphBatch, a TUDataset or a slice of one) where
    :func:`explain_pair` takes one graph, saying how to take one."""
    batch = graph if isinstance(graph, GraphBatch) else getattr(graph, "batch", None)
    if isinstance(batch, GraphBatch) or isinstance(graph, (list, tuple)):
        n = len(batch) if isinstance(batch, GraphBatch) else len(graph)
        kind = type(graph).__name__ if type(graph).__module__.startswith("graphinvariants") else describe(graph)
        raise TypeError(f"{name} must be one graph, got a collection of {n} graph{'' if n == 1 else 's'} ({kind}"
                        f"{' ' + graph.name if hasattr(graph, 'name') and isinstance(graph.name, str) else ''}): a "
                        "slice such as mutag[0:1] is a collection; take one graph by its position, mutag[0]; "
                        "explain() takes collections")


def explain_pair(G, H, *, kernel="wl", n_permutations=DEFAULT_PERMUTATIONS, seed=None, **params):
    """Which nodes of ``G`` and of ``H`` carry their kernel value ``K(G, H)``.

    Parameters
    ----------
    G, H : graph
        NetworkX or igraph graphs (anything :func:`~graphinvariants.as_adjacency` takes).
    kernel : str or GraphKernel, keyword-only, default="wl"
        A kernel name of :data:`~graphinvariants.KERNELS` (or a combination), with its
        ``**params``; or a fitted :class:`~graphinvariants.GraphKernel` of the learned
        default, whose weighted sum is split term by term (no ``**params``).
    n_permutations, seed : keyword-only
        For kernels with members whose features are not sums over nodes (the
        shortest-path kernel, node attributes, mean maps): Shapley values over nodes as
        in :func:`explain`, for each graph against the other one whole.

    Returns
    -------
    PairExplanation
        ``base_value + values_G.sum() == base_value + values_H.sum() == value`` to
        rounding: for count members, ``<c_v(G), c(H)> / (|c(G)| |c(H)|)`` for node ``v``
        of ``G`` (the shared WL subtrees, walks or rooted subgraphs rooted at ``v``), and
        likewise for ``H``; for the power kernel, its shapes and products, integrated
        gradients (:mod:`~graphinvariants.explanations._paths`).

    Raises
    ------
    TypeError
        If ``G`` or ``H`` is a collection (a list, a GraphBatch, a TUDataset or a
        one-graph slice ``mutag[0:1]`` of one) rather than one graph (``mutag[0]``).

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> pair = gi.explain_pair(nx.path_graph(4), nx.star_graph(3), kernel="wl", n_iter=1)
    >>> pair
    <PairExplanation of wl = 0.3354 (exact): 4 and 4 nodes>
    >>> pair.values_G.round(3).tolist()  # the path's ends are the star's leaves, once refined
    [0.168, 0.0, 0.0, 0.168]
    >>> pair.values_H.round(3).tolist()
    [0.0, 0.112, 0.112, 0.112]
    """
    for name, graph in (("G", G), ("H", H)):
        _check_one_graph(graph, name)
    n_permutations = _check_permutations(n_permutations)
    seeds = check_seed_sequence(seed).spawn(2)
    if isinstance(kernel, GraphKernel):
        return _learned_pair(G, H, kernel, params, n_permutations, seeds)
    if kernel == "learned":
        raise ValueError("the learned kernel has weights learned from labelled graphs: pass a fitted "
                         "GraphKernel() as kernel, e.g. explain_pair(G, H, kernel=model[0])")
    functional = make_functional(kernel, **params)
    batches = [functional.graph_batch([graph], what=name) for name, graph in (("G", G), ("H", H))]
    embedded = [functional.as_embeddings(b, what="graphs") for b in batches]
    value = float(pairwise_kernels(embedded[0], embedded[1], functional=functional)[0, 0])
    out, exact = [], True
    for side in (0, 1):
        batch, other = batches[side], embedded[1 - side]
        terms = _pair_terms(functional, other)
        values = None
        if terms is not None:
            values = np.zeros(batch.n_nodes)
            for parts, share in terms:
                paths = TermPaths(parts, Shape(("power", 1)), np.array([share]), batch)
                v, _ = paths.node_values()
                if v[0] is None:  # a power-kernel needle: sampled, as any other kernel
                    values = None
                    break
                values += v[0]
        if values is not None:
            out.append((values, np.zeros(batch.n_nodes)))
        else:
            exact = False
            value_of = lambda sub, other=other: pairwise_kernels(sub, other, functional=functional)[:, 0]  # noqa: E731
            out.append(_shapley(batch, value_of, n_permutations, [seeds[side]]))
    return PairExplanation(value, out[0][0], out[1][0], out[0][1], out[1][1], str(kernel), exact,
                           0 if exact else n_permutations)


def _pair_terms(functional, other):
    """``K(., H)`` as a sum of path terms, ``[(members, share)]`` (members: functional and
    ``H``'s embeddings), or None when some member has no node-sum features."""
    if isinstance(functional, Combination) and functional.operation == "+":
        pieces = list(zip(functional.functionals, other.members))
    else:
        pieces = [(functional, other)]
    terms = []
    for f, o in pieces:
        parts = (list(zip(f.functionals, o.members)) if isinstance(f, Combination) and f.operation == "*"
                 else [(f, o)])
        if not _takes_path([p for p, _ in parts]):
            return None
        terms.append((parts, 1.0 / len(pieces)))
    return terms


def _learned_pair(G, H, kernel, params, n_permutations, seeds):
    """:func:`explain_pair` of a fitted learned default: every chosen term by its path
    integral (Shapley values for the members without node-sum features)."""
    if params:
        raise TypeError(f"explain_pair of a fitted GraphKernel takes no kernel parameters, got {sorted(params)}")
    combination = getattr(kernel, "combination_", None)
    if combination is None:
        raise ValueError("kernel must be a fitted GraphKernel of the learned default (kernel='learned'), "
                         f"got {'an unfitted one' if kernel.kernel == 'learned' else f'kernel={kernel.kernel!r}'}")
    batches = [combination.graph_batch([graph], name, require=combination.requires)[0]
               for name, graph in (("G", G), ("H", H))]
    needed = {p for _, parts, _, _ in combination.chosen for p in parts}
    embedded = [{p: combination.functionals[p].as_embeddings(b, what="graphs") for p in needed} for b in batches]
    grams = {p: pairwise_kernels(embedded[0][p], embedded[1][p], functional=combination.functionals[p])
             for p in needed}
    value = float(combination.combine(grams)[0, 0])
    base, out, exact = 0.0, [], True
    for side in (0, 1):
        batch, other = batches[side], embedded[1 - side]
        values, sampled = np.zeros(batch.n_nodes), []
        for label, parts, shape, w in combination.chosen:
            members = [(combination.functionals[p], other[p]) for p in parts]
            h = Shape(shape, getattr(combination, "medians", {}).get("*".join(parts), 1.0))
            if side == 0:
                base += float(h(0.0)) * w if _takes_path([f for f, _ in members]) else 0.0
            v = None
            if _takes_path([f for f, _ in members]):
                v = TermPaths(members, h, np.array([w]), batch).node_values()[0][0]
            if v is None:
                sampled.append((parts, shape, w, float(h(0.0)) * w if _takes_path([f for f, _ in members]) else 0.0))
            else:
                values += v
        errors = np.zeros(batch.n_nodes)
        if sampled:
            exact = False

            def value_of(sub, other=other, sampled=sampled):
                subs = {p: pairwise_kernels(sub, other[p], functional=combination.functionals[p]) for p in needed}
                return sum(w * combination.term(subs, parts, shape)[:, 0] - h0 for parts, shape, w, h0 in sampled)
            v, errors = _shapley(batch, value_of, n_permutations, [seeds[side]])
            values += v
        out.append((values, errors))
    return PairExplanation(value, out[0][0], out[1][0], out[0][1], out[1][1], "learned", exact,
                           0 if exact else n_permutations, base_value=base)
