"""The paper's perturbation study: how the power kernel decays as a graph is perturbed.

For each of ``n_graphs`` graphs sampled without replacement, apply ``n_steps`` random
perturbations in sequence and compute the power kernel between each perturbed graph and
the original. Step 0 is the original itself (kernel exactly 1).

Each sampled graph gets its own random stream, ``SeedSequence(seed).spawn(n_graphs)``,
so the study is the same whatever ``n_jobs`` is. The study never builds NetworkX
graphs: it perturbs an indexed edge set, stacks every perturbed graph into one
:class:`~graphinvariants.graphs.GraphBatch`, embeds it in one batched pass, and
evaluates all (original, perturbed) pairs in one call of the pair engine; each
original is embedded and prepared once.

Given one graph instead of a collection (``perturbation_study(G, n_sequences=100)``),
the study runs ``n_sequences`` independent sequences from it, each with its own random
stream ``SeedSequence(seed).spawn(n_sequences)[i]``: a copy of a
:class:`~graphinvariants.perturbation.PerturbedGraph` edits the graph in place and
updates its power invariants incrementally at each step, and the kernel of every step
with the original is evaluated in one paired call.
"""

import csv
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .._utils.validation import check_int, check_k, check_n_jobs, check_ridge, check_seed_sequence
from ..embeddings import DEFAULT_RIDGE, GaussianBatch
from ..graphs import GraphBatch
from ..graphs.adjacency import graph_library
from ..graphs.csr import edges_to_csr
from ..kernels import paired_power_kernel, pairwise_kernels
from ..kernels.registry import make_functional, parse_kernel_spec, shared_parameters
from ._display import KernelDecayDisplay
from .edits import GraphState, check_kind
from .kinds import apply_edit
from .incremental import BALL_FRACTION, PerturbedGraph

__all__ = ["PerturbationStudy", "perturbation_study"]


@dataclass
class PerturbationStudy:
    """Result of :func:`perturbation_study`.

    Attributes
    ----------
    curves : numpy.ndarray of shape (n_graphs, n_steps + 1)
        ``curves[i, t]``: kernel between sampled graph ``i`` after ``t`` perturbations
        and the original; ``curves[:, 0] == 1``. For the study of one graph, one row
        per sequence: shape ``(n_sequences, n_steps + 1)``.
    graph_indices : numpy.ndarray of shape (n_graphs,)
        Positions of the sampled graphs in the input collection.
    params : dict
        ``n_graphs``, ``n_steps``, ``k``, ``kind``, ``seed``, ``ridge``, ``name``,
        ``kernel``.
    baseline : numpy.ndarray of shape (n_graphs,) or None
        For each sampled graph, the median kernel between it and the other graphs of
        the collection (the paper's "property 2" compares a perturbed graph with
        these); None unless asked for with ``baseline=True``, or when the collection
        has a single graph.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(40, 0.1, seed=i) for i in range(10)]
    >>> study = gi.perturbation_study(graphs, n_graphs=5, n_steps=3, seed=0, name="G(40, 0.1)")
    >>> study.curves.shape, study.steps.tolist()
    ((5, 4), [0, 1, 2, 3])
    >>> study.to_dict()["params"]["kind"]
    'flip'
    """

    curves: np.ndarray
    graph_indices: np.ndarray
    params: dict = field(default_factory=dict)
    baseline: np.ndarray = None

    @property
    def crossing_step(self):
        """Number of steps after which the mean kernel with the original first falls
        below the mean of :attr:`baseline` (int), or None if it never does within the
        study: how long a perturbed graph stays closer to its original than the other
        graphs of its collection are (the paper's property 2)."""
        if self.baseline is None:
            return None
        below = np.flatnonzero(self.mean < self.baseline.mean())
        return int(below[0]) if below.size else None

    @property
    def steps(self):
        """Number of perturbations at each column, from 0 to n_steps."""
        return np.arange(self.curves.shape[1])

    @property
    def mean(self):
        """Mean kernel value per step, shape (n_steps + 1,)."""
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
            "baseline": None if self.baseline is None else self.baseline.tolist(),
            "crossing_step": self.crossing_step,
        }

    def to_csv(self, path):
        """Write one row per step: ``step, mean, std, stderr``, then one column per graph."""
        with open(path, "w", newline="") as fh:
            writer = csv.writer(fh)
            columns = ([f"sequence_{i}" for i in range(len(self.curves))] if "n_sequences" in self.params
                       else [f"graph_{i}" for i in self.graph_indices])
            writer.writerow(["step", "mean", "std", "stderr"] + columns)
            for t in self.steps:
                writer.writerow([int(t), self.mean[t], self.std[t], self.stderr[t]] + self.curves[:, t].tolist())

    def plot(self, ax=None, *, label=None, **kwargs):
        """Plot the mean curve with a standard-error band; returns a KernelDecayDisplay."""
        name = label if label is not None else self.params.get("name") or "graphs"
        return KernelDecayDisplay.from_studies({name: self}).plot(ax=ax, **kwargs)

    def __repr__(self):
        name = self.params.get("name") or "graphs"
        rows = "sequences of one graph" if "n_sequences" in self.params else "graphs"
        return (
            f"<PerturbationStudy {name}: {len(self.curves)} {rows} x {self.curves.shape[1] - 1} "
            f"{self.params.get('kind')} steps, final mean kernel {self.mean[-1]:.4f}>"
        )


def _checked_options(k, ridge, n_jobs, kind, n_steps):
    """``(k, ridge, n_jobs, n_steps)`` of a study, checked (``kind`` too)."""
    k, ridge, n_jobs = check_k(k), check_ridge(ridge), check_n_jobs(n_jobs)
    check_kind(kind)
    return k, ridge, n_jobs, check_int(n_steps, "n_steps")


def _perturbed_edges(graphs, positions, kind, n_steps, seeds):
    """Edge arrays ``(n, rows, cols, directed)`` of every perturbed graph of a chunk
    (runs in a worker thread); ``positions`` are the graphs' places in the collection."""
    perturbed = []
    for position, (n, rows, cols, directed), seed in zip(positions, graphs, seeds):
        rng = np.random.default_rng(seed)
        state = GraphState.from_edges(n, rows, cols, directed)
        for t in range(n_steps):
            apply_edit(state, kind, rng, f"graph {position} of the collection, step {t + 1}")
            perturbed.append(state.edge_arrays() + (state.directed, state.label_sources()))
    return perturbed


def _declared_directed(graphs, n_graphs):
    """Which graphs say they are directed (NetworkX and igraph graphs do): a directed
    graph whose arcs all come in pairs has a symmetric matrix, yet is perturbed arc
    by arc, as perturbation_sequence does."""
    declared = np.zeros(n_graphs, bool)
    # a batch or a data set (TU graphs are undirected) is read as its matrices say;
    # a data set's items would each be built as a NetworkX graph just to ask
    if getattr(graphs, "batch", None) is None and isinstance(graphs, Sequence) and len(graphs) == n_graphs:
        for g, G in enumerate(graphs):
            if graph_library(G) in ("networkx", "igraph"):
                declared[g] = bool(G.is_directed())
    return declared


def _edges_of(batch, indices, declared):
    """``(n, rows, cols, directed)`` of the chosen graphs of a batch, read off its CSR
    arrays; a graph is directed if ``declared`` says so or its matrix is asymmetric."""
    A, offsets = batch.matrix, batch.offsets
    asymmetric = A != A.T
    owner_of_row = np.repeat(np.arange(len(batch)), batch.sizes)
    directed = declared.copy()
    directed[owner_of_row[asymmetric.tocoo().row]] = True
    out = []
    for g in indices:
        a, b = offsets[g], offsets[g + 1]
        lo, hi = A.indptr[a], A.indptr[b]
        rows = np.repeat(np.arange(b - a), np.diff(A.indptr[a : b + 1]))
        out.append((int(b - a), rows, A.indices[lo:hi].astype(np.int64) - a, bool(directed[g])))
    return out


def _stack_edges(graphs, label_offsets=None, node_labels=None):
    """One GraphBatch of graphs given as ``(n, rows, cols, directed, sources)`` edge
    arrays; with ``node_labels``, node ``i`` of a graph takes the label of node
    ``sources[i]`` of its original, whose labels start at ``label_offsets[graph]``."""
    sizes = np.array([g[0] for g in graphs], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    labels = None
    if node_labels is not None:
        sources = [np.arange(g[0]) if g[4] is None else g[4] for g in graphs]
        labels = node_labels[np.concatenate([start + s for start, s in zip(label_offsets, sources)] or [[]]).astype(np.int64)]
    rows, cols = [], []
    for (_, r, c, directed, _), start in zip(graphs, offsets[:-1]):
        rows.append(r + start)
        cols.append(c + start)
        if not directed:  # mirror here, so that the whole stack is built as directed
            off = r != c
            rows.append(c[off] + start)
            cols.append(r[off] + start)
    total = int(offsets[-1])
    A = edges_to_csr(total, np.concatenate(rows), np.concatenate(cols), directed=True, weighted=False)
    return GraphBatch(A, offsets, node_labels=labels)


def perturbation_study(
    graphs,
    *,
    n_graphs=100,
    n_steps=20,
    k=5,
    kind="flip",
    seed=None,
    ridge=DEFAULT_RIDGE,
    n_jobs=None,
    name=None,
    kernel="power",
    kernel_params=None,
    baseline=False,
    n_flips=None,
    progress=False,
    n_sequences=None,
    ball_fraction=None,
):
    """Run the paper's perturbation study on a collection of graphs, or on one graph.

    Parameters
    ----------
    graphs : sequence of graphs, GraphBatch, TUDataset, or one graph
        NetworkX or igraph graphs, adjacency matrices, or a loaded TU data set.
        Weights are ignored: the study perturbs the 0/1 graph. One graph (a
        NetworkX or igraph graph, a scipy sparse matrix or a
        :class:`~graphinvariants.graphs.GraphAdjacency`, not in a list) runs
        ``n_sequences`` independent sequences of ``n_steps`` perturbations from it,
        each edit made in place and the invariants updated incrementally (see
        :class:`~graphinvariants.perturbation.PerturbedGraph`): the study for one
        large network. A list holding one graph is a collection of one graph.
    n_graphs : int or None, keyword-only
        Graphs sampled without replacement (default 100, as in the paper); ``None``
        uses every graph, in order. Not used for one graph.
    n_steps : int, keyword-only
        Perturbations applied in sequence to each graph (default 20).
    k : int, keyword-only
        Power iterations of the kernel (default 5).
    kind : str, keyword-only
        One of :data:`PERTURBATIONS` (default ``"flip"``, the paper's).
    seed : None, int or numpy.random.Generator, keyword-only
        Seed of the sampling and the perturbations.
    ridge : float, keyword-only
        Relative ridge of the kernel.
    n_jobs : int or None, keyword-only
        Worker threads for the perturbations; the result does not depend on it.
    name : str, optional
        Label stored in ``params`` and used by plots.
    kernel : str, keyword-only
        The kernel compared, a name of :data:`KERNELS` (default ``"power"``, the
        paper's); ``k`` and ``ridge`` go to the members that take them.
    kernel_params : dict, optional
        Further parameters of the kernel (e.g. ``{"n_iter": 3}`` for ``"wl"``).
    baseline : bool, keyword-only
        Also compute, for each sampled graph, the median kernel between it and the other
        graphs of the collection (``PerturbationStudy.baseline`` and ``crossing_step``,
        the paper's property 2). It embeds the whole collection and costs about as much
        as the study itself; default False.
    n_flips : int, optional
        Deprecated spelling of ``n_steps``.
    progress : bool or None, keyword-only
        Show a tqdm progress bar: one step per sampled graph perturbed, one for the
        kernel values, one for the baseline; ``None``: only when standard error is a
        terminal. Default False.
    n_sequences : int, optional
        For one graph: independent sequences of ``n_steps`` perturbations (default
        100, the paper's protocol); sequence ``i`` draws from
        ``SeedSequence(seed).spawn(n_sequences)[i]``, so it does not depend on
        ``n_sequences``' other members or on ``n_jobs``. Only for one graph.
    ball_fraction : float, optional
        For one graph: a power step of an update is incremental while the ball of
        the edit holds at most ``ball_fraction * nnz`` stored entries, and a full
        sparse product beyond (default 0.05; ``float("inf")``: always incremental,
        ``0``: every update from scratch; the result is the same to rounding). See
        :class:`~graphinvariants.perturbation.PerturbedGraph`. Only for one graph.

    Returns
    -------
    PerturbationStudy
        For one graph, ``curves`` has one row per sequence and ``graph_indices`` is
        all zeros.

    Raises
    ------
    ValueError
        If ``n_graphs`` exceeds the number of graphs, or a perturbation cannot proceed
        on a sampled graph (the message says which); for one graph, if ``kernel`` is
        not ``"power"``, or ``n_sequences`` is given with a collection.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(40, 0.1, seed=i) for i in range(30)]
    >>> study = gi.perturbation_study(graphs, n_graphs=10, n_steps=5, seed=0)
    >>> study.curves.shape
    (10, 6)
    >>> float(study.mean[0])
    1.0
    >>> bool(study.mean[5] < study.mean[1] < 1)
    True

    One network, 10 sequences of 5 flips:

    >>> grid = nx.grid_2d_graph(40, 40)
    >>> study = gi.perturbation_study(grid, n_sequences=10, n_steps=5, seed=0)
    >>> study.curves.shape, study.params["n_sequences"]
    ((10, 6), 10)
    """
    if n_flips is not None:
        warnings.warn("n_flips is deprecated; use n_steps", FutureWarning, stacklevel=2)
        n_steps = n_flips
    if is_single_graph(graphs):
        return _one_graph_study(graphs, n_sequences=100 if n_sequences is None else n_sequences, n_steps=n_steps,
                                k=k, kind=kind, seed=seed, ridge=ridge, n_jobs=n_jobs, name=name, kernel=kernel,
                                kernel_params=kernel_params, baseline=baseline, progress=progress,
                                ball_fraction=BALL_FRACTION if ball_fraction is None else ball_fraction)
    for option, value in (("n_sequences", n_sequences), ("ball_fraction", ball_fraction)):
        if value is not None:
            raise ValueError(f"{option} is for the study of one graph; a collection runs one sequence per "
                             "sampled graph (pass the graph itself, not in a list)")
    k, ridge, n_jobs, n_steps = _checked_options(k, ridge, n_jobs, kind, n_steps)
    root = check_seed_sequence(seed)
    functional = make_functional(kernel, **{**shared_parameters(kernel, k=k, ridge=ridge), **(kernel_params or {})})
    if name is None:
        name = getattr(graphs, "name", None)
    batch = functional.graph_batch(graphs)  # with node labels if the kernel reads them
    if len(batch) == 0:
        raise ValueError("the collection has no graphs; the study needs at least one")
    sample_seq, graph_seq = root.spawn(2)
    if n_graphs is None:
        indices = np.arange(len(batch))
    else:
        n_graphs = check_int(n_graphs, "n_graphs", minimum=1)
        if n_graphs > len(batch):
            raise ValueError(f"n_graphs={n_graphs}, but the collection has {len(batch)} graphs")
        indices = np.random.default_rng(sample_seq).choice(len(batch), size=n_graphs, replace=False)
    seeds = graph_seq.spawn(len(indices))
    chosen = _edges_of(batch, indices, _declared_directed(graphs, len(batch)))
    # chunks of graphs, in order (each graph has its own seed: the split changes nothing);
    # with a progress bar, small ones so that it moves
    n_chunks = max(4 * n_jobs if n_jobs > 1 else 1, 20 if progress is not False else 1)
    chunks = [c for c in np.array_split(np.arange(len(chosen)), n_chunks) if len(c)]
    bar = _progress_bar(progress, len(chosen) + 1 + bool(baseline), name)
    from joblib import Parallel, delayed

    parts = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(
        delayed(_perturbed_edges)([chosen[i] for i in c], indices[c], kind, n_steps, [seeds[i] for i in c]) for c in chunks
    )
    perturbed = []
    try:
        bar.set_postfix_str("perturbing")
        for c, part in zip(chunks, parts):
            perturbed.extend(part)
            bar.update(len(c))
        bar.set_postfix_str("kernel values")
        curves, originals, batch = _curves(functional, batch, indices, perturbed, len(chosen), n_steps)
        bar.update(1)
        if baseline:
            bar.set_postfix_str("baseline")
        reference = _baseline(functional, originals, batch, indices, n_jobs) if baseline else None
        bar.update(bool(baseline))
    finally:
        bar.close()
    members = getattr(functional, "functionals", (functional,))
    spelled = parse_kernel_spec(kernel)[1] if ":" in kernel else {}
    params = {"n_graphs": len(indices), "n_steps": n_steps, "kind": kind,
              "k": (kernel_params or {}).get("k", spelled.get("k", k)) if any(hasattr(m, "k") for m in members) else None,
              "seed": "Generator" if isinstance(seed, np.random.Generator) else None if seed is None else int(seed),
              "ridge": ridge, "name": name, "kernel": kernel,
              "kernel_params": {key: _plain(value) for key, value in (kernel_params or {}).items()}}
    return PerturbationStudy(curves, np.asarray(indices), params, reference)


def is_single_graph(graphs):
    """Whether ``graphs`` is one graph (a NetworkX or igraph graph, a scipy sparse
    matrix, a GraphAdjacency) rather than a collection."""
    return graph_library(graphs) in ("networkx", "igraph", "scipy", "adjacency")


def _one_graph_study(G, *, n_sequences, n_steps, k, kind, seed, ridge, n_jobs, name, kernel, kernel_params,
                     baseline, progress, ball_fraction):
    """The study of one graph: ``n_sequences`` sequences of in-place edits, each step's
    invariants updated incrementally, then the kernel of every step with the original."""
    if kernel != "power" or kernel_params:
        raise ValueError(f"the study of one graph compares power invariants (kernel='power'), got kernel={kernel!r}"
                         f"{' with kernel_params' if kernel_params else ''}; for another kernel pass a list "
                         "of graphs")
    k, ridge, n_jobs, n_steps = _checked_options(k, ridge, n_jobs, kind, n_steps)
    n_sequences = check_int(n_sequences, "n_sequences", minimum=1)
    seeds = check_seed_sequence(seed).spawn(n_sequences)
    original = PerturbedGraph(G, k=k, ball_fraction=ball_fraction)
    if kind == "add_node":
        original.reserve(n_steps)
    start = original.invariants()

    def run(i):
        state = original.copy()
        rng = np.random.default_rng(seeds[i])
        means, covs, sizes = np.empty((n_steps, k)), np.empty((n_steps, k, k)), np.empty(n_steps, np.int64)
        for t in range(n_steps):
            apply_edit(state, kind, rng, f"sequence {i}, step {t + 1}")
            inv = state.invariants()
            means[t], covs[t], sizes[t] = inv.mean, inv.covariance, inv.n_nodes
        return means, covs, sizes, (state.n_incremental, state.n_products, state.n_full)

    from joblib import Parallel, delayed

    bar = _progress_bar(progress, n_sequences, name)
    results = []
    try:
        bar.set_postfix_str("perturbing")
        parts = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(
            delayed(run)(i) for i in range(n_sequences))
        for part in parts:
            results.append(part)
            bar.update(1)
    finally:
        bar.close()
    curves = np.ones((n_sequences, n_steps + 1))
    if n_steps:
        means = np.concatenate([r[0] for r in results])
        covs = np.concatenate([r[1] for r in results])
        sizes = np.concatenate([r[2] for r in results])
        perturbed = GaussianBatch(means, covs, sizes)
        originals = GaussianBatch(np.repeat(start.mean[None], len(means), axis=0),
                                  np.repeat(start.covariance[None], len(means), axis=0),
                                  np.full(len(means), start.n_nodes))
        curves[:, 1:] = paired_power_kernel(originals, perturbed, k=k, ridge=ridge).reshape(n_sequences, n_steps)
    params = {"n_graphs": 1, "n_sequences": n_sequences, "n_steps": n_steps, "kind": kind, "k": k,
              "seed": "Generator" if isinstance(seed, np.random.Generator) else None if seed is None else int(seed),
              "ridge": ridge, "name": name, "kernel": kernel, "kernel_params": {},
              "updates": dict(zip(("incremental", "products", "from scratch"),
                                  np.sum([r[3] for r in results], axis=0).tolist()))}
    return PerturbationStudy(curves, np.zeros(n_sequences, np.int64), params, None)


def _progress_bar(progress, total, name):
    """A tqdm bar (``progress`` True: shown; None: shown on a terminal), or one that
    shows nothing."""
    from .._utils.progress import progress_bar

    return progress_bar(progress, total=total, desc=f"perturbation study{f' of {name}' if name else ''}",
                        unit="step", leave=False)


def _curves(functional, batch, indices, perturbed, n_chosen, n_steps):
    """``(curves, originals, 0/1 batch)``: the kernel between each sampled graph and its
    perturbed copies."""
    batch = batch.unweighted()  # the study perturbs the 0/1 graph
    originals = functional.embed(batch.take(indices))
    curves = np.ones((n_chosen, n_steps + 1))
    if perturbed:
        left = functional.prepare(originals, "graphs")
        starts = np.repeat(batch.offsets[indices], n_steps)  # each perturbed graph's original
        stacked = _stack_edges(perturbed, starts, batch.node_labels)
        right = functional.prepare(functional.embed(stacked), "perturbed graphs")
        left, right = functional.align(left, right)
        pairs = np.arange(len(perturbed))
        curves[:, 1:] = functional.pairs(left, right, pairs // n_steps, pairs).reshape(n_chosen, n_steps)
    return curves, originals, batch


def _plain(value):
    """A parameter value as JSON can hold it (numpy scalars and arrays as Python ones)."""
    return value.tolist() if isinstance(value, (np.ndarray, np.generic)) else value


def _baseline(functional, originals, batch, indices, n_jobs):
    """Median kernel between each sampled graph and the other graphs of the collection."""
    if len(batch) < 2:
        return None
    K = pairwise_kernels(originals, batch, functional=functional, n_jobs=n_jobs)
    K[np.arange(len(indices)), indices] = np.nan  # not itself
    return np.nanmedian(K, axis=1)

