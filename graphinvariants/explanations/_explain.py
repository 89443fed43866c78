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
* **Exact where a descriptor is a sum over atoms**, for a term of the molecular
  descriptors member alone (:mod:`~graphinvariants.explanations._descriptors`): the
  descriptors RDKit gives atom by atom (Crippen logP and MR, TPSA, Labute ASA, the
  molecular weights, the VSA descriptors:
  :data:`~graphinvariants.embeddings.descriptors.ADDITIVE`) are grown from a molecule
  without atoms to the molecule's values, the others held, and each atom gets RDKit's
  part of each such descriptor times the integral of the term's gradient along that
  line; the term at the line's start, which the other descriptors carry, is sampled
  with the terms below. Such a term is named in both ``exact_members`` and
  ``sampled_members``.
* **Sampled**, for the terms with a member whose features are not sums over nodes (node
  attributes, the shortest-path kernel's node pairs, mean maps, the descriptors member's
  non-additive part or its random-feature form, the Nystroem part of :class:`~graphinvariants.GraphFeatures` but for the power kernel's
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
each graph. The pictures are :class:`~graphinvariants.NodeValuesDisplay` and
:class:`~graphinvariants.PairValuesDisplay`.

The parts live beside this module: :mod:`~graphinvariants.explanations._anatomy` (the
model as a sum of terms, and the exact split of each), :mod:`~graphinvariants.explanations._paths`
(the path integrals), :mod:`~graphinvariants.explanations._descriptors` (the descriptors
member's additive part), :mod:`~graphinvariants.explanations._sampled` (Shapley values over
nodes) and :mod:`~graphinvariants.explanations.results` (what is returned).
"""

import numpy as np

from .._utils.validation import check_seed, check_seed_sequence
from ._anatomy import model_anatomy, takes_path
from ._paths import NodeBatch, Shape, TermPaths, check_spread, node_sum_embedding
from ._sampled import DEFAULT_PERMUTATIONS, check_permutations, shapley_values
from .results import Explanation, PairExplanation
from ..embeddings.combination import Combination
from ..estimator import GraphKernel
from ..graphs import GraphBatch
from ..graphs.adjacency import describe
from ..graphs.batch import check_not_single_graph
from ..kernels import pairwise_kernels
from ..kernels.registry import make_functional

__all__ = ["explain", "explain_pair", "node_counts"]


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
    >>> from graphinvariants.explanations import node_counts
    >>> wl = WeisfeilerLehman(n_iter=1)
    >>> nodes = node_counts([nx.path_graph(3)], wl)
    >>> nodes.counts.toarray()
    array([[1., 0., 1., 0.],
           [0., 1., 0., 1.],
           [1., 0., 1., 0.]])
    >>> nodes.counts.sum(axis=0).tolist() == wl.embed(wl.graph_batch([nx.path_graph(3)])).counts.toarray()[0].tolist()
    True
    """
    if not node_sum_embedding(functional):
        raise TypeError(f"{type(functional).__name__} counts are not sums of per-node counts; node_counts takes "
                        "Weisfeiler-Lehman, walk-histogram and rooted-subgraph functionals")
    batch = graphs if isinstance(graphs, GraphBatch) else functional.graph_batch(graphs, what="graphs")
    return functional.embed(NodeBatch(batch))



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
    anatomy, final, base, method = model_anatomy(model)
    check_not_single_graph(graphs, "graphs")
    n_permutations = check_permutations(n_permutations)
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
    sampled_members = [t.label for t in anatomy.terms if not t.exact or t.split is not None]
    seeds = check_seed_sequence(seed).spawn(len(batch))
    if sampled_members:
        sampled, errors = shapley_values(batch, anatomy.sampled_value, n_permutations, seeds)
    for label, (term, failed) in fallback.items():
        # a path integral that did not converge (a power kernel whose covariance is the ridge
        # alone in some direction, against a training graph alike: a needle at t = 1): that
        # term on that graph by sampled Shapley values, of its value less its baseline
        h0 = float(term.shape(0.0)) * float(np.sum(term.coef))
        sub = batch.take(np.asarray(failed))
        v, e = shapley_values(sub, lambda b, term=term, h0=h0: anatomy.term_value(term, b) - h0, n_permutations,
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
    n_permutations = check_permutations(n_permutations)
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
            out.append(shapley_values(batch, value_of, n_permutations, [seeds[side]]))
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
        if not takes_path([p for p, _ in parts]):
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
                base += float(h(0.0)) * w if takes_path([f for f, _ in members]) else 0.0
            v = None
            if takes_path([f for f, _ in members]):
                v = TermPaths(members, h, np.array([w]), batch).node_values()[0][0]
            if v is None:
                sampled.append((parts, shape, w, float(h(0.0)) * w if takes_path([f for f, _ in members]) else 0.0))
            else:
                values += v
        errors = np.zeros(batch.n_nodes)
        if sampled:
            exact = False

            def value_of(sub, other=other, sampled=sampled):
                subs = {p: pairwise_kernels(sub, other[p], functional=combination.functionals[p]) for p in needed}
                return sum(w * combination.term(subs, parts, shape)[:, 0] - h0 for parts, shape, w, h0 in sampled)
            v, errors = shapley_values(batch, value_of, n_permutations, [seeds[side]])
            values += v
        out.append((values, errors))
    return PairExplanation(value, out[0][0], out[1][0], out[0][1], out[1][1], "learned", exact,
                           0 if exact else n_permutations, base_value=base)
