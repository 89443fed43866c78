"""The anatomy of a fitted model: its output as a sum of terms, each split over nodes.

:func:`model_anatomy` reads a fitted ``Pipeline`` (a graph kernel of this library, or
:class:`~graphinvariants.GraphFeatures`, then a readout linear in its columns) as
``f(G) = sum_t T_t(G) + b``: one term per member of a named kernel, per chosen
candidate of the learned default, or per exact block of GraphFeatures' columns. An
exact term knows its node values (count members by their per-node counts, the power
kernel and the shapes of the learned default by the path integrals of
:mod:`~graphinvariants.explanations._paths`); the others are evaluated together on
subgraphs by ``sampled_value``, for :func:`~graphinvariants.explanations._sampled.shapley_values`.
A term of the descriptors member alone is both (:mod:`~graphinvariants.explanations._descriptors`):
its additive descriptors' part is exact, and the rest joins the sampled terms.
"""

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from ._descriptors import DescriptorTerm, splits_descriptors
from ._paths import Shape, TermPaths, is_path_member, node_rows, node_sum_embedding, owner_sum
from ..embeddings.assignment import OptimalAssignment
from ..embeddings.combination import Combination
from ..embeddings.counts import squared_norms
from ..estimator import GraphKernel, PowerKernel
from ..kernels import pairwise_kernels
from ..features import GraphFeatures

__all__ = ["model_anatomy", "takes_path"]


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
    split: object = None  # a descriptors term: its DescriptorTerm (exact part here, the rest sampled)


def takes_path(functionals):
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
        self.terms, self._sampled, self._splits = [], [], []
        if transformer.kernel == "learned" and isinstance(transformer, GraphKernel):
            combination = transformer.combination_
            if combination.externals:
                raise TypeError("explain does not take a learned default with external members "
                                f"({sorted(combination.externals)}): their kernels cannot be evaluated on subgraphs")
            self.combination = combination
            for label, parts, shape, w in combination.chosen:
                functionals = [combination.functionals[p] for p in parts]
                members = [(f, combination.embeddings[p]) for f, p in zip(functionals, parts)]
                median = getattr(combination, "medians", {}).get("*".join(parts), 1.0)
                if takes_path(functionals):
                    self.terms.append(_Term(label, True, coef=w * alpha, members=members,
                                            shape=Shape(shape, median)))
                elif len(parts) == 1 and splits_descriptors(functionals[0]):
                    self._split(label, functionals[0], combination.embeddings[parts[0]], Shape(shape, median),
                                w * alpha)
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
            if node_sum_embedding(functional):
                self.terms.append(_Term(str(label), True, functional, embedded, share * alpha))
            elif takes_path([p for p, _ in parts]):
                self.terms.append(_Term(str(label), True, coef=share * alpha, members=parts,
                                        shape=Shape(("power", 1))))
            elif not product and splits_descriptors(functional):
                self._split(str(label), functional, embedded, Shape(("power", 1)), share * alpha)
            else:
                self.terms.append(_Term(str(label), False, functional, embedded, share * alpha))
                self._sampled.append((str(label), functional, embedded, share))

    def _split(self, label, functional, train, shape, coef):
        """A descriptors term: exact in its additive descriptors, the rest sampled (the
        terms of one member share its profiles of a batch)."""
        shared = next((s.profiles for s in self._splits if s.functional is functional), None)
        split = DescriptorTerm(functional, train, shape, coef, profiles=shared)
        self.terms.append(_Term(label, True, functional, train, coef, split=split))
        self._splits.append(split)

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
        if term.split is not None:
            return term.split.node_values(batch), np.zeros(len(batch)), []
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
            return (sum(w * c.term(grams, parts, shape) @ self.alpha for _, parts, shape, w in self._sampled)
                    + sum(split.remainder(batch) for split in self._splits))
        return (sum(share * pairwise_kernels(batch, train, functional=f) @ self.alpha
                    for _, f, train, share in self._sampled)
                + sum(split.remainder(batch) for split in self._splits))


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


def model_anatomy(model):
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
