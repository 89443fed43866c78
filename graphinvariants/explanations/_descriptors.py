"""The descriptors member's term split over atoms: exact where a descriptor is a sum over atoms.

The member :class:`~graphinvariants.embeddings.MolecularDescriptors` compares molecules by
an RBF kernel of their standardised descriptor rows, divided by the bandwidth:
``K(G, H) = exp(-|p_G - p_H|^2 / 2)``, ``p = (descriptors - mean) / (scale h)``. A term of
a model's output is ``T(G) = sum_j coef_j s(K(G, G_j))`` (``s`` the shape: the kernel, a
power, a Gaussian of the kernel distance). Some descriptors are sums over atoms
(:data:`~graphinvariants.embeddings.descriptors.ADDITIVE`: Crippen logP and MR, TPSA,
Labute ASA, the molecular weights): their column of ``p`` is
``origin_d + sum_v c_vd / (scale_d h)``, ``c_vd`` atom ``v``'s part as RDKit gives it and
``origin_d = -mean_d / (scale_d h)`` the value of a molecule without atoms.

The term is split in two, ``T(G) = [T(p_G) - T(p_start)] + T(p_start)``, where
``p_start`` is ``p_G`` with its additive columns set to the origin:

* the first part is the change of the term as the additive columns grow along the
  straight line from the origin to the molecule's values, the others held at the
  molecule's. Integrated gradients give column ``d`` the share
  ``Delta_d int_0^1 dT/dp_d dt``, and since that column is a sum over atoms, atom ``v``
  gets ``c_vd / (scale_d h)`` of its integral: exact and deterministic, as the count
  members' features are split among the nodes that own them. The integral is of
  scalars only (the kernel to each training molecule along the line is a Gaussian in
  ``t``), by adaptive Gauss-Legendre quadrature checked against the term's change;
* the second, ``T(p_start)``, is what the other descriptors carry: it is split by
  sampled Shapley values over atoms with the other sampled terms, a subgraph's value
  being the term on its own descriptors with the additive ones at the origin.

A value RDKit does not give (imputed as the column's mean) stays where it is, in the
second part; a part RDKit's atoms do not account for (rounding) is shared evenly by
the molecule's atoms, so the parts add up exactly.
"""

import numpy as np

from ._paths import QUADRATURE_ORDER, TOLERANCE

__all__ = ["DescriptorTerm", "MAX_PANELS", "splits_descriptors"]

#: Most panels of the quadrature per molecule and term (the integrand is a smooth
#: Gaussian in ``t``; 1 or 2 panels suffice in practice).
MAX_PANELS = 256


def splits_descriptors(functional):
    """Whether a term of this member alone is split by :class:`DescriptorTerm`: a
    descriptors member in its exact form (no random features) with an additive
    descriptor among its own."""
    additive = getattr(functional, "additive_", None)
    return (getattr(functional, "embedding_kind", None) == "descriptors" and functional.n_features is None
            and additive is not None and bool(np.any(additive)))


class _Profiles:
    """The profiles of the last batch seen, shared by the terms of one member (the
    learned default may weight it in several shapes): ``(p, start)``."""

    def __init__(self, functional):
        self.functional = functional
        params = functional.embedding_params()
        mean, scale = np.asarray(params["attribute_mean"]), np.asarray(params["attribute_scale"])
        self.step = 1.0 / (scale * params["bandwidth"])  # one unit of a raw descriptor, in profile space
        self.origin = -mean * self.step
        self.additive = functional.additive_
        self._last = None

    def __call__(self, batch):
        if self._last is not None and self._last[0] is batch:
            return self._last[1]
        p = np.asarray(self.functional.embed(batch).profiles, dtype=np.float64)
        raw = self.functional.raw_values(batch)
        moved = self.additive[None, :] & np.isfinite(raw)
        start = np.where(moved, self.origin[None, :], p)
        self._last = (batch, (p, start))
        return p, start


class DescriptorTerm:
    """One term ``sum_j coef_j shape(K(G, G_j))`` of a descriptors member, split over atoms.

    Parameters
    ----------
    functional : MolecularDescriptors
        Fitted, exact form (:func:`splits_descriptors`).
    train : MeanMapBatch
        The training molecules' embeddings (one profile row each).
    shape : Shape
    coef : numpy.ndarray of shape (n_train,)
        The readout's coefficients times the term's weight.
    profiles : optional
        Shared with the other terms of the same member (made when not given).

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.embeddings import MolecularDescriptors
    >>> from graphinvariants.explanations._descriptors import DescriptorTerm
    >>> from graphinvariants.explanations._paths import Shape
    >>> f = MolecularDescriptors(descriptors=["MolLogP", "TPSA", "NumHDonors"])
    >>> train = f.as_embeddings(["CCO", "CCCCO", "c1ccccc1", "OCCO"])
    >>> term = DescriptorTerm(f, train, Shape(("power", 1)), np.array([1.0, -0.5, 0.25, 2.0]))
    >>> batch = f.graph_batch(["CCCO", "c1ccccc1O"])
    >>> values = term.node_values(batch)  # the additive columns' part, atom by atom
    >>> rest = term.remainder(batch)  # the part the other descriptors carry
    >>> bool(np.allclose([values[:4].sum(), values[4:].sum()] + rest, term.value(batch), atol=1e-12))
    True
    """

    def __init__(self, functional, train, shape, coef, *, profiles=None):
        coef = np.asarray(coef, dtype=np.float64)
        columns = np.flatnonzero(coef)
        self.functional = functional
        self.shape = shape
        self.coef = coef[columns]
        self.train = np.asarray(train.profiles, dtype=np.float64)[columns]
        self.profiles = _Profiles(functional) if profiles is None else profiles
        self.panels_used = []  # quadrature panels per molecule of the last node_values

    def _term(self, P):
        """The term at profile rows ``P``, one float per row."""
        d2 = np.sum(P * P, axis=1)[:, None] + np.sum(self.train**2, axis=1)[None, :] - 2.0 * P @ self.train.T
        return self.shape(np.exp(-np.clip(d2, 0.0, None) / 2.0)) @ self.coef

    def value(self, batch):
        """The term on every graph of ``batch``."""
        return self._term(self.profiles(batch)[0])

    def remainder(self, batch):
        """The term with the additive descriptors at the origin: the part sampled."""
        return self._term(self.profiles(batch)[1])

    def node_values(self, batch):
        """The additive descriptors' part of the term, one float per node of ``batch``:
        graph by graph they add up to ``value - remainder``."""
        p, start = self.profiles(batch)
        atoms = self.functional.atom_values(batch)
        out = np.zeros(batch.n_nodes)
        self.panels_used = []
        for g in range(len(batch)):
            lo, hi = int(batch.offsets[g]), int(batch.offsets[g + 1])
            delta = p[g] - start[g]
            if hi == lo or not len(self.coef) or not np.any(delta):
                self.panels_used.append(0)
                continue
            integral = self._integral(start[g], delta)
            moved = np.flatnonzero(delta)
            parts = np.nan_to_num(atoms[lo:hi][:, moved]) * self.profiles.step[moved]
            out[lo:hi] = parts @ integral[moved]
            # what the atoms' parts leave of each column's change (rounding, or a value
            # RDKit gives no atoms for): shared evenly
            out[lo:hi] += float((delta[moved] - parts.sum(axis=0)) @ integral[moved]) / (hi - lo)
        return out

    def _integral(self, start, delta):
        """``int_0^1 grad T(start + t delta) dt`` (one float per column)."""
        diff = self.train - start[None, :]  # q_j - start
        a = np.sum(diff * diff, axis=1)
        b = -(diff @ delta)  # delta . (start - q_j)
        c = float(delta @ delta)
        K = lambda t: np.exp(-np.clip(a[None, :] + 2.0 * t[:, None] * b[None, :] + t[:, None] ** 2 * c, 0.0,  # noqa: E731
                                      None) / 2.0)
        F = lambda t: self.shape(K(np.asarray(t, dtype=np.float64))) @ self.coef  # noqa: E731
        ends = self.coef * (self.shape(K(np.array([1.0])))[0] - self.shape(K(np.array([0.0])))[0])
        scale = max(abs(float(ends.sum())), 1e-3 * float(np.abs(ends).sum()))
        u, w = np.polynomial.legendre.leggauss(QUADRATURE_ORDER)
        u, w = (u + 1.0) / 2.0, w / 2.0
        W0, W1 = np.zeros(len(a)), 0.0
        panels, used = [(0.0, 1.0)], 0
        while panels:
            lo, hi = panels.pop()
            t = lo + (hi - lo) * u
            Kt = K(t)
            weights = self.shape.derivative(Kt) * Kt * self.coef[None, :] * (w * (hi - lo))[:, None]  # (m, J)
            w0, w1 = weights.sum(axis=0), float(t @ weights.sum(axis=1))
            used += 1
            change = F([lo, hi])
            if (abs(-(w0 @ b) - c * w1 - float(change[1] - change[0])) <= TOLERANCE * scale * max(hi - lo, 1 / 64)
                    or used + len(panels) >= MAX_PANELS):
                W0, W1 = W0 + w0, W1 + w1
                continue
            panels += [(lo, (lo + hi) / 2), ((lo + hi) / 2, hi)]
        self.panels_used.append(used)
        return diff.T @ W0 - delta * W1
