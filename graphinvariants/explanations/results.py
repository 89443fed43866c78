"""What an explanation returns: :class:`Explanation` (of a model's output on some
graphs, by :func:`~graphinvariants.explain`) and :class:`PairExplanation` (of one
kernel value, by :func:`~graphinvariants.explain_pair`)."""

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Explanation", "PairExplanation"]


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
        The two parts of ``node_values`` (integrated gradients of the count members, the
        power kernel and the additive descriptors; Shapley estimates).
    node_errors : list of numpy.ndarray
        Standard error of each node's sampled value over the orders drawn (0 where exact).
    member_values : dict
        Each term's value on every graph (term label -> array of shape (n_graphs,)).
    exact_members, sampled_members : list of str
        The terms split exactly and by sampling (a term of the descriptors member is in
        both: its additive descriptors exact, the rest sampled).
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
