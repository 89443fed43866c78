"""The paper's perturbation study: how the power kernel decays as a graph is perturbed.

For each of ``n_graphs`` graphs sampled without replacement, apply ``n_flips`` random
perturbations in sequence and compute the power kernel between each perturbed graph and
the original. Step 0 is the original itself (kernel exactly 1).

Each sampled graph gets its own random stream, ``SeedSequence(seed).spawn(n_graphs)``,
so the study is the same whatever ``n_jobs`` is. The study never builds NetworkX
graphs: it perturbs an indexed edge set and computes all invariants of a chunk of
graphs in one batched pass; each original's invariants are computed once.
"""

import csv
from dataclasses import dataclass, field

import numpy as np

from ._validation import check_k, check_n_jobs, check_ridge
from .adapters import as_adjacency, edges_to_csr
from .invariants import DEFAULT_RIDGE, PowerInvariants, batch_power_invariants, invariants_from_blocks
from .kernel import paired_power_kernel
from .perturbation import GraphState, PerturbationError, _check_kind

__all__ = ["PerturbationStudy", "perturbation_study"]


@dataclass
class PerturbationStudy:
    """Result of :func:`perturbation_study`.

    Attributes
    ----------
    curves : numpy.ndarray of shape (n_graphs, n_flips + 1)
        ``curves[i, t]``: kernel between sampled graph ``i`` after ``t`` perturbations
        and the original; ``curves[:, 0] == 1``.
    graph_indices : numpy.ndarray of shape (n_graphs,)
        Positions of the sampled graphs in the input collection.
    params : dict
        ``n_graphs``, ``n_flips``, ``k``, ``kind``, ``seed``, ``ridge``, ``name``.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(40, 0.1, seed=i) for i in range(10)]
    >>> study = gi.perturbation_study(graphs, n_graphs=5, n_flips=3, seed=0, name="G(40, 0.1)")
    >>> study.curves.shape, study.steps.tolist()
    ((5, 4), [0, 1, 2, 3])
    >>> study.to_dict()["params"]["kind"]
    'flip'
    """

    curves: np.ndarray
    graph_indices: np.ndarray
    params: dict = field(default_factory=dict)

    @property
    def steps(self):
        """Number of perturbations at each column, from 0 to n_flips."""
        return np.arange(self.curves.shape[1])

    @property
    def mean(self):
        """Mean kernel value per step, shape (n_flips + 1,)."""
        return self.curves.mean(axis=0)

    @property
    def std(self):
        """Standard deviation (ddof=1) per step."""
        return self.curves.std(axis=0, ddof=1) if len(self.curves) > 1 else np.zeros(self.curves.shape[1])

    @property
    def stderr(self):
        """Standard error of the mean per step."""
        return self.std / np.sqrt(len(self.curves))

    def to_dict(self):
        """JSON-serialisable dictionary of the parameters, summary and every curve."""
        return {
            "params": dict(self.params),
            "steps": self.steps.tolist(),
            "mean": self.mean.tolist(),
            "std": self.std.tolist(),
            "stderr": self.stderr.tolist(),
            "graph_indices": self.graph_indices.tolist(),
            "curves": self.curves.tolist(),
        }

    def to_csv(self, path):
        """Write one row per step: ``step, mean, std, stderr``, then one column per graph."""
        with open(path, "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["step", "mean", "std", "stderr"] + [f"graph_{i}" for i in self.graph_indices])
            for t in self.steps:
                writer.writerow([int(t), self.mean[t], self.std[t], self.stderr[t]] + self.curves[:, t].tolist())

    def plot(self, ax=None, *, label=None, **kwargs):
        """Plot the mean curve with a standard-error band; returns a KernelDecayDisplay."""
        from .plotting import KernelDecayDisplay

        name = label if label is not None else self.params.get("name") or "graphs"
        return KernelDecayDisplay.from_studies({name: self}).plot(ax=ax, **kwargs)

    def __repr__(self):
        name = self.params.get("name") or "graphs"
        return (
            f"<PerturbationStudy {name}: {len(self.curves)} graphs x {self.curves.shape[1] - 1} "
            f"{self.params.get('kind')} steps, final mean kernel {self.mean[-1]:.4f}>"
        )


def _curves_for(matrices, positions, kind, n_flips, k, ridge, seeds):
    """Kernel curves of a chunk of graphs (runs in a worker).

    ``positions`` are the graphs' places in the sample, for error messages.
    """
    perturbed = []
    for position, matrix, seed in zip(positions, matrices, seeds):
        rng = np.random.default_rng(seed)
        state = GraphState.from_adjacency(matrix)
        for t in range(n_flips):
            try:
                state.apply(kind, rng)
            except PerturbationError as err:
                raise ValueError(f"sampled graph {position}, step {t + 1}: {err}") from None
            perturbed.append(state.edge_arrays() + (state.directed,))
    originals = batch_power_invariants(matrices, k=k)
    left = [inv for inv in originals for _ in range(n_flips)]
    curves = np.ones((len(matrices), n_flips + 1))
    if left:
        values = paired_power_kernel(left, _stack_invariants(perturbed, k), k=k, ridge=ridge)
        curves[:, 1:] = values.reshape(len(matrices), n_flips)
    return curves


def _stack_invariants(graphs, k):
    """Invariants of many graphs given as ``(n, rows, cols, directed)`` edge arrays,
    in one batched pass over their block-diagonal adjacency."""
    sizes = np.array([g[0] for g in graphs])
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    rows, cols = [], []
    for (_, r, c, directed), start in zip(graphs, offsets[:-1]):
        rows.append(r + start)
        cols.append(c + start)
        if not directed:  # mirror here, so that the whole stack is built as directed
            off = r != c
            rows.append(c[off] + start)
            cols.append(r[off] + start)
    total = int(offsets[-1])
    A = edges_to_csr(total, np.concatenate(rows), np.concatenate(cols), None, directed=True, weighted=False)
    means, covs = invariants_from_blocks(A, offsets, k)
    return [PowerInvariants(m, c, int(n)) for m, c, n in zip(means, covs, sizes)]


def perturbation_study(
    graphs,
    *,
    n_graphs=100,
    n_flips=20,
    k=5,
    kind="flip",
    seed=None,
    ridge=DEFAULT_RIDGE,
    n_jobs=None,
    name=None,
):
    """Run the paper's perturbation study on a collection of graphs.

    Parameters
    ----------
    graphs : sequence of graphs or TUDataset
        NetworkX or igraph graphs, adjacency matrices, or a loaded TU data set.
        Weights are ignored: the study perturbs the 0/1 graph.
    n_graphs : int or None, keyword-only
        Graphs sampled without replacement (default 100, as in the paper); ``None``
        uses every graph, in order.
    n_flips : int, keyword-only
        Perturbations applied in sequence to each graph (default 20).
    k : int, keyword-only
        Power iterations of the kernel (default 5).
    kind : str, keyword-only
        One of :data:`PERTURBATIONS` (default ``"flip"``, the paper's).
    seed : None or int, keyword-only
        Seed of the sampling and the perturbations.
    ridge : float, keyword-only
        Relative ridge of the kernel.
    n_jobs : int or None, keyword-only
        Worker processes (joblib); the result does not depend on it.
    name : str, optional
        Label stored in ``params`` and used by plots.

    Returns
    -------
    PerturbationStudy

    Raises
    ------
    ValueError
        If ``n_graphs`` exceeds the number of graphs, or a perturbation cannot proceed
        on a sampled graph (the message says which).

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(40, 0.1, seed=i) for i in range(30)]
    >>> study = gi.perturbation_study(graphs, n_graphs=10, n_flips=5, seed=0)
    >>> study.curves.shape
    (10, 6)
    >>> float(study.mean[0])
    1.0
    >>> bool(study.mean[5] < study.mean[1] < 1)
    True
    """
    from .datasets import TUDataset

    k = check_k(k)
    ridge = check_ridge(ridge)
    n_jobs = check_n_jobs(n_jobs)
    _check_kind(kind)
    if isinstance(n_flips, bool) or not isinstance(n_flips, (int, np.integer)) or n_flips < 0:
        raise ValueError(f"n_flips must be a non-negative integer, got {n_flips!r}")
    if isinstance(graphs, TUDataset):
        name = graphs.name if name is None else name
        matrices = [a.matrix for a in graphs.adjacencies]
    else:
        matrices = [as_adjacency(G).matrix for G in graphs]
    if any(m.shape[0] == 0 for m in matrices):
        raise ValueError("a graph has no nodes; the kernel is undefined for it")
    root = np.random.SeedSequence(seed)
    sample_seq, graph_seq = root.spawn(2)
    if n_graphs is None:
        indices = np.arange(len(matrices))
    else:
        if n_graphs > len(matrices) or n_graphs < 1:
            raise ValueError(f"n_graphs={n_graphs}, but the collection has {len(matrices)} graphs")
        indices = np.random.default_rng(sample_seq).choice(len(matrices), size=n_graphs, replace=False)
    seeds = graph_seq.spawn(len(indices))
    chosen = [matrices[i] for i in indices]
    if n_jobs == 1:
        curves = _curves_for(chosen, range(len(chosen)), kind, int(n_flips), k, ridge, seeds)
    else:
        from joblib import Parallel, delayed

        chunks = [c for c in np.array_split(np.arange(len(chosen)), 4 * n_jobs) if len(c)]
        parts = Parallel(n_jobs=n_jobs)(
            delayed(_curves_for)([chosen[i] for i in c], c, kind, int(n_flips), k, ridge, [seeds[i] for i in c])
            for c in chunks
        )
        curves = np.concatenate(parts)
    params = {"n_graphs": len(indices), "n_flips": int(n_flips), "k": k, "kind": kind, "seed": seed,
              "ridge": ridge, "name": name}
    return PerturbationStudy(curves, np.asarray(indices), params)
