"""The learned default: a weighted sum of candidate kernels, weighted by centred alignment.

:class:`~graphinvariants.GraphKernel` with ``kernel="learned"`` (its default) fits a
:class:`LearnedCombination`: it builds every member of :data:`CANDIDATES` that the
training graphs support (label members only when every graph carries node labels and
``node_label`` is not None), offers each member, and the products of
:data:`PRODUCTS`, in a few *shapes* (the kernel itself, its elementwise integer powers
``K^p``, and Gaussians of its kernel distance ``exp(-(2 - 2K) / (s * median))``), and
weights the shaped candidates by centred alignment with the training labels
(:mod:`~graphinvariants.kernels.learned.alignment`): once the plain candidates alone and once
every shape, keeping the weighted sum with the smaller leave-one-out error of kernel
ridge regression on those labels (``selection="loo"``). Every candidate is positive semidefinite
with a unit diagonal (Schur's product theorem for ``K^p`` and products;
``exp(2K / h)`` is a limit of sums of such powers), and the weights are non-negative
and sum to 1, so the combination is too.

To add a member to the family, add one line to :data:`CANDIDATES`: its kernel name and
parameters, and what the graphs must carry for it. Kernels from elsewhere (GraKeL
kernels, callables, transformers) join through ``members``
(:mod:`~graphinvariants.kernels.learned.external`): they are candidates like the others, in
every shape, and are not in the products.
"""

import numbers
import warnings

import numpy as np

from ..._utils.blas import one_blas_thread
from ..._utils.validation import check_choice, check_n_jobs, check_seed, check_working_memory, python_scalar
from ...graphs import GraphBatch, as_graph_batch
from ...graphs.attributes import graphs_lacking, set_everywhere
from ...graphs.smiles import holds_molecules, is_smiles, read_smiles
from .alignment import COMBINATIONS, TASKS, alignment_weights, check_max_samples, loo_ridge_error, read_targets
from .blockwise import MatrixBlocks, combine_blockwise
from ..engine import KernelBlocks, pairwise_kernels
from .external import external_candidate, is_external

__all__ = ["CANDIDATES", "PRODUCTS", "SELECTIONS", "LearnedCombination", "canonical_ranks", "graph_digests"]

#: How the learned default chooses between its two weightings (see LearnedCombination).
SELECTIONS = ("loo", None)

#: The members the learned default chooses among: name -> (kernel name, parameters,
#: what every graph must carry). A member that needs ``"node_label"``,
#: ``"edge_label"`` or ``"node_attributes"`` gets the estimator's attribute name for it
#: and is left out when some graph does not carry it (or the name is None); one that
#: needs ``"molecules"`` only when every graph reads as a molecule (element symbols and
#: bond type names as its labels, and RDKit installed:
#: :func:`~graphinvariants.graphs.smiles.holds_molecules`).
CANDIDATES = {
    "power": ("power", {"k": 5}, ()),
    "histogram": ("histogram", {"k": 9}, ()),
    "wl": ("wl", {"n_iter": 5}, ()),
    "wl_label": ("wl", {"n_iter": 5}, ("node_label",)),
    "labelled_histogram": ("labelled_histogram", {"k": 5}, ("node_label",)),
    "wloa": ("wloa", {"n_iter": 5}, ()),
    "wloa_label": ("wloa", {"n_iter": 5}, ("node_label",)),
    "histogram_oa": ("histogram_oa", {"k": 5}, ()),
    "labelled_histogram_oa": ("labelled_histogram_oa", {"k": 3}, ("node_label",)),
    "closed_histogram": ("closed_histogram", {"k": 6}, ()),
    "wl_edge_label": ("wl", {"n_iter": 5}, ("node_label", "edge_label")),
    "labelled_histogram_edge_label": ("labelled_histogram", {"k": 5}, ("node_label", "edge_label")),
    "attributes": ("attributes", {"k": 2}, ("node_attributes",)),
    "descriptors": ("descriptors", {}, ("node_label", "edge_label", "molecules")),
}

#: Elementwise products of members also offered as candidates (their Gram matrix is the
#: product of the members' matrices, so they cost nothing more to compute).
PRODUCTS = {
    "power*histogram*wl": ("power", "histogram", "wl"),
    "power*histogram*wl_label": ("power", "histogram", "wl_label"),
    "attributes*wl_label": ("attributes", "wl_label"),
}


def _shape_names(powers, bandwidths):
    names = [("power", p) for p in powers]
    names += [("gauss", s) for s in bandwidths]
    return names


def _shape_label(candidate, shape):
    kind, value = shape
    if kind == "power":
        return candidate if value == 1 else f"{candidate}^{value}"
    return f"{candidate}:gauss({value:g})"


def _check_shape_values(values, name):
    """``values`` as a tuple; a scalar or a repeated value is refused (a repeated shape
    would be one candidate twice, and its two weights one entry of ``weights_``)."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be a sequence, e.g. {name}=({values!r},), got {values!r}")
    values = tuple(values)
    if len(set(values)) < len(values):
        raise ValueError(f"{name} must be distinct, got {values!r}")
    return values


def _check_powers(powers):
    values = _check_shape_values(powers, "powers")
    for p in values:
        if isinstance(p, bool) or not isinstance(p, numbers.Integral) or p < 1:
            raise ValueError(f"powers must be positive integers (an elementwise power is PSD only then), got {p!r}")
    return tuple(int(p) for p in values)


def _check_bandwidths(bandwidths):
    values = _check_shape_values(bandwidths, "bandwidths")
    for s in values:
        if isinstance(s, bool) or not isinstance(s, numbers.Real) or not np.isfinite(s) or s <= 0:
            raise ValueError(f"bandwidths must be finite positive numbers, got {s!r}")
    return tuple(float(s) for s in values)


def _check_no_edge_weight(params):
    """The learned default builds its members from the 0/1 adjacency: a ``weight`` would
    reach the members that take one, and fail far from its cause."""
    weights = sorted(key for key, value in params.items()
                     if (key == "weight" or key.endswith("__weight")) and value is not None)
    if weights:
        raise ValueError(f"the learned default reads no edge weights, got {', '.join(weights)}; name a kernel "
                         "that takes one, e.g. GraphKernel(kernel=\"power\", weight=\"weight\")")


def _median_distance(K):
    """Median squared kernel distance ``2 - 2K`` over the off-diagonal pairs (> 0)."""
    n = K.shape[0]
    d2 = np.clip(2.0 - 2.0 * K[~np.eye(n, dtype=bool)], 0.0, None)
    median = float(np.median(d2)) if d2.size else 0.0
    return median if median > 0 else 1.0


def _apply_shape(K, shape, median):
    kind, value = shape
    if kind == "power":
        return K if value == 1 else K**value
    return np.exp(-np.clip(2.0 - 2.0 * K, 0.0, None) / (value * median))


def _kernel_distance(K, *, out):
    """``clip(2 - 2K, 0)`` of the float64 array ``K``, written into ``out``: the squared
    kernel distance as :func:`_apply_shape` and :func:`_median_distance` compute it (the
    same ufuncs in the same order, so the same values to the last bit)."""
    np.multiply(K, 2.0, out=out)
    np.subtract(2.0, out, out=out)
    return np.clip(out, 0.0, None, out=out)


def _median_of_distances(d, upper):
    """:func:`_median_distance` of ``K`` from ``d = clip(2 - 2K, 0)``, the same value to
    the bit, from the upper triangle alone (``upper``: its flat positions) when ``d`` is
    exactly symmetric: every off-diagonal value is then there twice, and the middle pair
    of the doubled values is one middle value twice (an odd count) or the same middle
    pair (an even one)."""
    n = d.shape[0]
    values = d.take(upper) if np.array_equal(d, d.T) else d[~np.eye(n, dtype=bool)]
    median = float(np.median(values, overwrite_input=True)) if values.size else 0.0
    return median if median > 0 else 1.0


def _weighted_sum(shaped, w):
    """``sum(w[i] * shaped[i] for i in np.flatnonzero(w > 0))``, the same additions in
    the same order (``sum`` starts from 0), into two buffers instead of one fresh
    matrix per term."""
    terms = np.flatnonzero(w > 0)
    total = np.multiply(w[terms[0]], shaped[terms[0]])
    np.add(0, total, out=total)
    term = np.empty_like(total) if len(terms) > 1 else None
    for i in terms[1:]:
        np.multiply(w[i], shaped[i], out=term)
        np.add(total, term, out=total)
    return total


def _layers(shaped, positions):
    """``[shaped[i] for i in positions]``; of a stack, a view when the positions are
    evenly spaced (the plain candidates of every member: one in every number of shapes)."""
    if not isinstance(shaped, np.ndarray):
        return [shaped[i] for i in positions]
    steps = set(np.diff(positions).tolist())
    if len(steps) == 1 and (step := steps.pop()) > 0:
        return shaped[positions[0]:positions[-1] + 1:step]
    return shaped[positions]


def canonical_ranks(batch, y):
    """Each training graph's place in an order that does not depend on the order the
    graphs were given in: by a digest of what the graph stores (its block of the
    adjacency, node and edge labels, node attributes; BLAKE2b, 128 bits), then by its
    label. Graphs that tie store the same graph with the same label, so any order
    among them gives the same matrices and labels.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.graphs import as_graph_batch
    >>> from graphinvariants.kernels.learned._combination import canonical_ranks
    >>> graphs = [nx.path_graph(3), nx.cycle_graph(4), nx.star_graph(3)]
    >>> first = canonical_ranks(as_graph_batch(graphs), [0, 1, 1])
    >>> again = canonical_ranks(as_graph_batch(graphs[::-1]), [1, 1, 0])
    >>> first.tolist() == again[::-1].tolist()
    True
    """
    return _ranks_of(graph_digests(batch), y)


def graph_digests(batch):
    """Each graph's digest as :func:`canonical_ranks` orders by it: BLAKE2b (128 bits)
    of its block of the adjacency (positions relative to the block), node and edge
    labels and node attributes; a ``(len(batch),)`` array of 16-byte strings. A graph's
    digest does not depend on the other graphs of the batch, so the digests of a part
    (:meth:`GraphBatch.take`) are those of the whole at its positions.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.graphs import as_graph_batch
    >>> from graphinvariants.kernels.learned._combination import graph_digests
    >>> digests = graph_digests(as_graph_batch([nx.path_graph(3), nx.cycle_graph(4), nx.path_graph(3)]))
    >>> digests.shape, bool(digests[0] == digests[2]), bool(digests[0] == digests[1])
    ((3,), True, False)
    """
    import hashlib

    A, offsets = batch.matrix, np.asarray(batch.offsets)
    indptr, indices, data = A.indptr, A.indices, A.data
    digests = []
    for g in range(len(offsets) - 1):
        a, b = int(offsets[g]), int(offsets[g + 1])
        s, e = int(indptr[a]), int(indptr[b])
        h = hashlib.blake2b(digest_size=16)
        h.update(np.int64([b - a, e - s]).tobytes())
        h.update((indptr[a:b + 1] - s).astype(np.int64).tobytes())
        h.update((indices[s:e] - a).astype(np.int64).tobytes())
        h.update(data[s:e].tobytes())
        for part, lo, hi in ((batch.node_labels, a, b), (batch.edge_labels, s, e), (batch.node_attributes, a, b)):
            h.update(b"-" if part is None else part[lo:hi].tobytes())
        digests.append(h.digest())
    return np.array(digests, dtype="S16")


def _ranks_of(digests, y):
    """:func:`canonical_ranks` from the graphs' digests."""
    _, labels = np.unique(np.asarray(y), return_inverse=True)
    order = np.lexsort((labels.ravel(), digests))
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return ranks


def _check_sample_labels(y, sample, max_samples):
    """The subsample the weights are learned on must hold two labels when ``y`` does."""
    try:
        one_value = len(np.unique(y[sample])) < 2 and len(np.unique(y)) >= 2
    except TypeError:  # unsortable labels: refused with their own message when aligned
        return
    if one_value:
        value = python_scalar(y[sample[0]])
        raise ValueError(f"the max_samples={max_samples} graphs drawn (with seed) to learn the weights on hold a "
                         f"single label value, {value!r}, though y has more; raise max_samples (None: all graphs) "
                         "or try another seed")


class LearnedCombination:
    """Fitted state of the learned default (built by :class:`~graphinvariants.GraphKernel`).

    Parameters
    ----------
    node_label : str or None
        Node attribute read as the node label (NetworkX, igraph); None refuses every
        label member.
    edge_label : str or None
        Edge attribute read as the edge label (bond types); None refuses the members
        that read edge labels.
    node_attributes : str or None
        Node attribute holding a vector of real numbers; None refuses the attribute
        member.
    combination : {"alignf", "align"}
    task : {"auto", "classification", "regression"}
    powers : tuple of int
        Elementwise powers each candidate is offered in (1: the kernel itself).
    bandwidths : tuple of float
        Multiples of the median training kernel distance for the Gaussian shapes.
    selection : {"loo", None}
        ``"loo"``: weight the plain candidates (the powers ``K^p``) and, apart, every
        shaped candidate, and keep the weighting whose sum has the smaller
        leave-one-out error of kernel ridge regression on the labels
        (:func:`~graphinvariants.kernels.learned.alignment.loo_ridge_error`; a tie keeps every
        shape). None: every shaped candidate, weighted once.
    max_samples : int or None
        Align on at most this many training graphs (drawn with ``seed``); None: all.
    members : tuple or None
        Candidates to choose among (None: every one of :data:`CANDIDATES` the graphs
        support): names of :data:`CANDIDATES`, and external kernels
        (:mod:`~graphinvariants.kernels.learned.external`): GraKeL kernel objects or classes (or
        ``"grakel.ClassName"``), callables ``(graphs_a, graphs_b) -> matrix`` and
        transformers (``fit(graphs)``, ``transform(graphs)``).
    params : dict
        Member parameters: ``k=7`` for every member that takes ``k``,
        ``histogram__k=9`` for one.
    working_memory : float or None
        MiB that the blocks of :meth:`gram` and :meth:`cross` may use beside their
        output matrix (:func:`~graphinvariants.kernels.learned.blockwise.combine_blockwise`);
        None: ``sklearn.get_config()["working_memory"]``.
    seed, n_jobs
        As in the estimator.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.kernels.learned._combination import LearnedCombination
    >>> graphs = [nx.cycle_graph(n) for n in range(5, 11)] + [nx.star_graph(n) for n in range(4, 10)]
    >>> y = [0] * 6 + [1] * 6
    >>> combination = LearnedCombination(node_label=None).fit(graphs, y)
    >>> round(sum(combination.weights.values()), 12)
    1.0
    """

    def __init__(self, *, node_label="label", edge_label="label", node_attributes="attributes", combination="alignf", task="auto", powers=(1,),
                 bandwidths=(0.25, 1.0, 4.0), selection="loo", max_samples=1000, members=None, params=None, seed=None,
                 n_jobs=None, working_memory=None):
        for option, value in (("node_label", node_label), ("edge_label", edge_label),
                              ("node_attributes", node_attributes)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{option} must be None or an attribute name, got {value!r}")
        self.node_label = node_label
        self.edge_label = edge_label
        self.node_attributes = node_attributes
        self.combination = check_choice(combination, "combination", COMBINATIONS)
        self.task = check_choice(task, "task", TASKS)
        self.powers = _check_powers(powers)
        self.bandwidths = _check_bandwidths(bandwidths)
        if not self.powers and not self.bandwidths:
            raise ValueError("give at least one shape: powers or bandwidths")
        if selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {SELECTIONS}, got {selection!r}")
        self.selection = selection
        self.max_samples = check_max_samples(max_samples)
        if isinstance(members, str):
            raise TypeError(f"members must be a sequence of candidate names, e.g. members=({members!r},), "
                            f"got {members!r}")
        if members is not None:
            members = tuple(members)
            unknown = [m for m in members if not is_external(m) and (not isinstance(m, str) or m not in CANDIDATES)]
            if unknown or not members:
                raise ValueError(f"members must name candidates among {sorted(CANDIDATES)} or be external kernels "
                                 f"(GraKeL kernels, 'grakel.ClassName', callables (graphs_a, graphs_b) -> matrix, "
                                 f"transformers), got {list(members)!r}")
            for member in members:  # a GraKeL class spelled by name: known (and GraKeL installed) now
                if isinstance(member, str) and is_external(member):
                    external_candidate(member)
        self.members = members
        self.params = dict(params or {})
        _check_no_edge_weight(self.params)
        check_seed(seed)  # refused at once, also when no subsample is drawn
        self.seed = seed
        self.n_jobs = check_n_jobs(n_jobs)
        if working_memory is not None:
            check_working_memory(working_memory)
        self.working_memory = working_memory

    # -- building ---------------------------------------------------------------------
    def _reads(self):
        """What the graphs may carry and the attribute names to read them by (None: refused)."""
        return {"node_label": self.node_label, "edge_label": self.edge_label,
                "node_attributes": self.node_attributes}

    def graph_reads(self):
        """Option -> the attribute name it is read by (None: refused): ``node_label``,
        ``edge_label``, ``node_attributes``."""
        return self._reads()

    def graph_batch(self, X, what="X", require=None):
        """``(batch, carries)`` of graphs as :meth:`fit` (``require=None``) or
        :meth:`cross` (``require``: what the fitted candidates read) reads them."""
        return self._graph_batch(X, what, require)

    def _graph_batch(self, X, what, require=None):
        """``(batch, carries)``: the graphs as one batch holding what every graph carries
        among node labels, edge labels and node attributes (``carries``: option ->
        bool). With ``require`` (new graphs for a fitted combination), exactly what it
        names is read, and must be there."""
        if is_smiles(X):  # molecules, read once here rather than once per option tried below
            X = read_smiles(X, what=what)
        reads = {option: name for option, name in self._reads().items() if name is not None}
        batch = X if isinstance(X, GraphBatch) else getattr(X, "batch", None)
        if isinstance(batch, GraphBatch):
            held = {"node_label": batch.node_labels, "edge_label": batch.edge_labels,
                    "node_attributes": batch.node_attributes}
            carries = {option: option in reads and held[option] is not None for option in held}
        else:
            graphs = X if hasattr(X, "__len__") else list(X)
            carries = {}
            for option in ("node_label", "edge_label", "node_attributes"):
                if option not in reads:
                    carries[option] = False
                    continue
                if require is not None:  # new graphs: what the chosen candidates read, nothing else
                    carries[option] = option in require
                    continue
                try:  # does every graph carry it? (a graph without it: members without it only)
                    as_graph_batch(graphs, **{option: reads[option]}, what=what)
                    carries[option] = True
                except (TypeError, ValueError) as err:
                    kind = "edge" if option == "edge_label" else "node"
                    if set_everywhere(graphs, reads[option], kind):  # there, but not valid: say so
                        as_graph_batch(graphs, what=what)  # unless the graphs themselves are refused (no nodes)
                        raise type(err)(f"{err} (every graph has {option} {reads[option]!r}, so the learned default "
                                        f"reads it; fix the values, or refuse it with {option}=None)") from None
                    carries[option] = False
                    self._warn_partly_carried(graphs, option, reads[option], what)
            batch = as_graph_batch(graphs, **{o: reads[o] for o in reads if carries[o]}, what=what)
        # molecules: labels that are element symbols and bond types (asked of new graphs only if needed)
        carries["molecules"] = (carries["node_label"] and carries["edge_label"]
                                and (require is None or "molecules" in require) and holds_molecules(batch))
        missing = [option for option in require or () if not carries.get(option)]
        if missing == ["molecules"]:
            raise ValueError(f"the combination was fitted on molecules and reads their descriptors, but {what} are not "
                             "all molecules (node labels element symbols, edge labels bond type names)")
        if missing:
            raise ValueError(f"the combination was fitted on graphs carrying {', '.join(missing)} "
                             f"({', '.join(repr(reads.get(o)) for o in missing)}), but {what} carry none")
        return batch, carries

    def _warn_partly_carried(self, graphs, option, attribute, what):
        """One warning when some graphs carry ``attribute`` and others (or some of their
        nodes or edges) do not: the members that read it are left out."""
        lacking, carrying = graphs_lacking(graphs, attribute, "edge" if option == "edge_label" else "node")
        if not carrying or not lacking:  # carried by none (unlabelled data), or refused for its values
            return
        names = self.members if self.members is not None else tuple(CANDIDATES)
        dropped = [name for name in names if option in CANDIDATES[name][2]]
        if not dropped:
            return
        where = "edge" if option == "edge_label" else "node"
        warnings.warn(f"{len(lacking)} of the {len(graphs)} graphs lack {option} {attribute!r} on some {where} "
                      f"({what}[{lacking[0]}] first), though {carrying} carry it on at least one: the learned "
                      f"default leaves out the members that read it ({', '.join(dropped)}); set it on every {where} "
                      f"of every graph, or say {option}=None to read none", UserWarning, stacklevel=5)

    def candidate_functionals(self, carries):
        """The candidate members (name -> Functional) for graphs carrying what ``carries``
        says (option -> bool: ``node_label``, ``edge_label``, ``node_attributes``)."""
        from ..registry import make_functional, shared_parameters

        if isinstance(carries, bool):  # graphs with or without node labels
            carries = {"node_label": carries}
        molecules = bool(carries.get("molecules"))
        carries = {option: bool(carries.get(option)) and name is not None for option, name in self._reads().items()}
        carries["molecules"] = molecules and carries["node_label"] and carries["edge_label"]
        names = self._names() if self.members is not None else tuple(CANDIDATES)
        chosen = [n for n in names if all(carries.get(need, False) for need in CANDIDATES[n][2])]
        if self.members is not None and len(chosen) < len(names):
            missing = sorted(set(names) - set(chosen))
            needs = sorted({need for n in missing for need in CANDIDATES[n][2] if not carries.get(need)})
            raise ValueError(f"members {missing} need {', '.join(needs)}, but the graphs carry none (some graph "
                             f"lacks it, or it was refused with None)")
        unused = {key for key in self.params}
        functionals = {}
        for name in chosen:
            kernel, defaults, needs = CANDIDATES[name]
            params = dict(defaults)
            for need in needs:  # the estimator's attribute names
                if need in self._reads():
                    params[need] = self._reads()[need]
            takes = shared_parameters(kernel, **{key: None for key in self.params if "__" not in key})
            for key, value in self.params.items():
                if "__" in key:
                    owner, param = key.split("__", 1)
                    if owner == name:
                        params[param] = value
                        unused.discard(key)
                elif key in takes:
                    params[key] = value
                    unused.discard(key)
            functionals[name] = make_functional(kernel, **params)
        if unused:
            raise ValueError(f"parameters {sorted(unused)} reach no member these graphs support: "
                             + "; ".join(self._takers(key, names) for key in sorted(unused)))
        return functionals

    def _takers(self, key, names):
        """Who would take the parameter ``key`` among the candidates ``names``, and what
        they need: ``"k2 reaches only attributes, which needs node_attributes"``."""
        from ..registry import shared_parameters

        owner, _, param = key.rpartition("__")
        takers = [n for n in names if (owner == n if owner else
                                       param in shared_parameters(CANDIDATES[n][0], **{param: None}))]
        if not takers:
            return f"{key} is taken by no member among {', '.join(names)}"
        needs = [f"{n}, which needs {' and '.join(CANDIDATES[n][2]) or 'nothing'}" for n in takers]
        return (f"{key} reaches only {'; '.join(needs)} (each graph must carry it, and its attribute name "
                "must not be None)")

    def _names(self):
        """The library candidate names among ``members``."""
        return tuple(m for m in self.members if isinstance(m, str) and not is_external(m))

    def _externals(self):
        """The external kernels among ``members``, by unique candidate name."""
        out = {}
        for member in self.members or ():
            if is_external(member):
                candidate = external_candidate(member)
                name, copy = candidate.name, 2
                while name in out or name in CANDIDATES:
                    name, copy = f"{candidate.name}#{copy}", copy + 1
                candidate.name = name
                out[name] = candidate
        return out

    def _needs(self, part):
        """What the graphs must carry for one member (a candidate name or an external)."""
        return CANDIDATES[part][2] if part in CANDIDATES else self.externals[part].reads

    def _candidates(self, functionals):
        """(label, parts, shape) of every shaped candidate, in a fixed order (``functionals``:
        the member names, in the order of :data:`CANDIDATES`)."""
        bases = [(name, (name,)) for name in functionals]
        bases += [(name, parts) for name, parts in PRODUCTS.items() if all(p in functionals for p in parts)]
        return [(_shape_label(name, shape), parts, shape)
                for name, parts in bases for shape in _shape_names(self.powers, self.bandwidths)]

    # -- fitting ----------------------------------------------------------------------
    def fit(self, X, y):
        """Embed the training graphs and learn the weights from ``y``; returns self."""
        X = X if hasattr(X, "__len__") else list(X)  # read again by external kernels
        if np.shape(y) == (len(X),):
            read_targets(y, task=self.task)  # refused before any graph is embedded
        batch, y = self.begin_fit(X, y)
        sample = self.draw_sample(y)
        # A member fitted on graphs (with a ``fit`` method) embeds every training graph
        # first, as it fits on them. On a sample, the others embed every training graph
        # after the weights are learned, and only if they have weight: embeddings made to
        # be dropped cost time, and the allocator did not give all their memory back
        # (0.1 GiB of 12,000 graphs, more than the output's 1.3x allows).
        embeddings = {name: f.as_embeddings(batch, what="X") for name, f in self.functionals.items()
                      if sample is None or hasattr(f, "fit")}
        grams = {}
        for name, f in self.functionals.items():
            data = embeddings[name] if sample is None else f.as_embeddings(batch.take(sample), what="X")
            grams[name] = pairwise_kernels(data, functional=f, n_jobs=self.n_jobs)
            del data
        for name, external in self.externals.items():  # fitted on every training graph, checked on the sample
            K = external.fit(X, batch, self.carries)
            grams[name] = K if sample is None else K[np.ix_(sample, sample)]
            del K
            external.check_psd(grams[name])
        self.learn_weights(grams, y if sample is None else y[sample])
        # the members without weight are not read again: their embeddings and matrices go
        needed = set(self.needed_members())
        self.embeddings = {name: embeddings[name] if name in embeddings else f.as_embeddings(batch, what="X")
                           for name, f in self.functionals.items() if name in needed}
        del embeddings
        self._train_grams = None if sample is not None else {name: K for name, K in grams.items() if name in needed}
        return self

    def begin_fit(self, X, y, *, digests=None):
        """The first step of :meth:`fit`: ``(batch, y)`` of the training graphs, checked,
        with the candidate members they support (``functionals``, and the external
        kernels among ``members``: ``externals``, not fitted yet), what every graph
        carries (``carries``), ``n_train``, the graphs' :func:`graph_digests`
        (``digests``: those given, when the caller has them, e.g. sliced from a whole
        collection's) and their :func:`canonical_ranks` (``ranks``) set."""
        batch, carries = self._graph_batch(X, "X")
        if not len(batch):
            raise ValueError("fit needs at least one graph, got none")
        y = np.asarray(y)
        if y.shape != (len(batch),):
            raise ValueError(f"y must have one label per graph, shape ({len(batch)},), got {y.shape}")
        self.externals = self._externals()
        self.functionals = self.candidate_functionals(carries)
        self.carries = carries
        self.n_train = len(batch)
        self.digests = graph_digests(batch) if digests is None else np.asarray(digests)
        if self.digests.shape != (len(batch),):
            raise ValueError(f"digests must hold one digest per graph, shape ({len(batch)},), got {self.digests.shape}")
        self.ranks = _ranks_of(self.digests, y)
        return batch, y

    def draw_sample(self, y):
        """The sorted positions of the training graphs the weights are learned on
        (``max_samples`` of them, drawn with ``seed`` among the graphs in their
        canonical order (:func:`canonical_ranks`), so the same graphs whatever order
        they were given in), or None for all; kept as ``sample``."""
        sample = None
        if self.max_samples is not None and len(y) > self.max_samples:
            rng = check_seed(self.seed)
            drawn = rng.choice(len(y), size=self.max_samples, replace=False)  # places in the canonical order
            sample = np.sort(np.argsort(self.ranks)[drawn])
            _check_sample_labels(y, sample, self.max_samples)
        self.sample = sample
        return sample

    def learn_weights(self, grams, y):
        """Weights of the shaped candidates from the members' Gram matrices of the same
        training graphs (``grams``: member name -> matrix) and their labels.

        The matrix products and eigendecompositions run on one BLAS thread, whatever the
        machine: OpenBLAS splits a product among its threads in ways that change the
        last bits, so the weights would depend on the number of cores; and on the small
        matrices of a cross-validation's parts (about 170 graphs on MUTAG) threads cost
        more than they save (three times the time on 2 cores)."""
        with one_blas_thread():
            return self._learn_weights(grams, y)

    def _learn_weights(self, grams, y):
        candidates = self._candidates(grams)
        self.medians = {}
        order = self._canonical_order(len(y))
        shaped = self._shaped_stack(grams, candidates, order)
        if order is not None:
            if not isinstance(shaped, np.ndarray):  # the stack is made in that order
                rows = np.ix_(order, order)
                shaped = [np.asarray(K)[rows] for K in shaped]
            y = np.asarray(y)[order]
        task = self.task
        if np.ndim(y) == 1 and np.size(y) >= 2:  # "auto" read once (scikit-learn's type_of_target), not four times
            task, _ = read_targets(y, task=task)
        weights, alignments = alignment_weights(shaped, y, combination=self.combination, task=task)
        self.loo_errors = {}
        plain = [i for i, (_, _, shape) in enumerate(candidates) if shape[0] == "power"]
        if self.selection == "loo" and 0 < len(plain) < len(candidates):
            plain_weights, _ = alignment_weights(_layers(shaped, plain), y, combination=self.combination, task=task)
            within_plain = np.zeros(len(candidates))
            within_plain[plain] = plain_weights
            for name, w in (("shaped", weights), ("plain", within_plain)):
                self.loo_errors[name] = loo_ridge_error(_weighted_sum(shaped, w), y, task=task)
            if self.loo_errors["plain"] < self.loo_errors["shaped"]:
                weights = within_plain
        self.weights = {label: float(w) for (label, _, _), w in zip(candidates, weights)}
        self.alignments = {label: float(a) for (label, _, _), a in zip(candidates, alignments)}
        self._chosen = [(label, parts, shape, float(w)) for (label, parts, shape), w in zip(candidates, weights) if w > 0]
        # what new graphs must carry: only what the chosen candidates read
        self.requires = tuple(sorted({need for _, parts, _, _ in self._chosen for p in parts for need in self._needs(p)}))
        return self

    def _canonical_order(self, n):
        """The positions of the ``n`` graphs the weights are learned on, in the canonical
        order (:func:`canonical_ranks`), or None when that is the order given (or the
        weights are learned without :meth:`begin_fit`). The centring sums, inner
        products, eigendecompositions and least squares of the weights run on the
        matrices and labels in that order, so they do not depend on the order the
        graphs were given in and give the same weights to the last bit. (The medians
        of the Gaussian shapes do not depend on it: a median picks values.)"""
        ranks = getattr(self, "ranks", None)
        if ranks is None:
            return None
        sample = getattr(self, "sample", None)
        ranks = ranks if sample is None else ranks[sample]
        if len(ranks) != n:
            return None
        order = np.argsort(ranks, kind="stable")
        return None if np.array_equal(order, np.arange(n)) else order

    def _shaped_stack(self, grams, candidates, order=None):
        """Every candidate's shaped matrix, as :meth:`_shaped` makes it (medians kept),
        with rows and columns in ``order`` (None: as given), in one stacked
        ``(p, n, n)`` array: 48 candidates of 1,000 graphs are 384 MB.

        One allocation of that size is mapped by the allocator and given back to the
        system when freed. Separate ``n x n`` matrices (8 MB each) and their
        temporaries are not: after the first one is freed, glibc raises its threshold
        for mapping, later ones come from the heap, and the heap keeps most of them
        after the weights are learned (0.4 GiB above the data when ``fit`` ended on
        12,000 graphs). Matrices that are not all float64 ``n x n`` take the plain
        route (a list, in the order given; ``alignment_weights`` names a wrong shape).

        Each product of members is formed and put in ``order`` once, in a buffer, and
        shaped from there; its Gaussian shapes share its kernel distance
        ``clip(2 - 2K, 0)``, formed once too, with the median taken from it. Three
        ``n x n`` buffers beside the stack (24 MB for 1,000 graphs)."""
        shapes = {np.shape(K) for K in grams.values()}
        n = next(iter(shapes))[0] if len(shapes) == 1 and len(next(iter(shapes))) == 2 else None
        if (n is None or next(iter(shapes)) != (n, n)
                or not all(isinstance(K, np.ndarray) and K.dtype == np.float64 for K in grams.values())):
            return [self._shaped(grams, parts, shape, fit=True) for _, parts, shape in candidates]
        stack = np.empty((len(candidates), n, n))
        base, product, distance = np.empty((n, n)), np.empty((n, n)), np.empty((n, n))
        flat_order = None if order is None else order[:, None] * n + order[None, :]
        base_key = distance_key = upper = None
        for out, (_, parts, shape) in zip(stack, candidates):
            key = "*".join(parts)
            kind, value = shape
            if key != base_key:  # the product in the order _shaped multiplies, then put in order
                plain = kind == "power" and value == 1  # written straight into its layer, read from there
                source = grams[parts[0]]
                if len(parts) > 1:
                    source = np.multiply(source, grams[parts[1]], out=out if plain and order is None else product)
                    for part in parts[2:]:
                        np.multiply(source, grams[part], out=source)
                if order is not None:  # the indices are in range
                    source = np.take(source, flat_order, out=out if plain else base, mode="clip")
                base_key = key
                if plain and source is out:
                    continue
            if kind == "power":
                np.copyto(out, source)
                if value != 1:
                    out **= value  # the route of K**value, to the bit
                continue
            if distance_key != key:
                _kernel_distance(source, out=distance)
                distance_key = key
                if key not in self.medians:
                    if upper is None:
                        upper = np.flatnonzero(np.triu(np.ones((n, n), dtype=bool), 1))
                    self.medians[key] = _median_of_distances(distance, upper)
            # exp(-d / (s m)) as _apply_shape computes it: (-d) / c and d / (-c) round alike
            np.divide(distance, -(value * self.medians[key]), out=out)
            np.exp(out, out=out)
        return stack

    def _shaped(self, grams, parts, shape, *, fit=False):
        K = grams[parts[0]]
        for part in parts[1:]:
            K = K * grams[part]
        key = "*".join(parts)
        if shape[0] == "gauss" and fit and key not in self.medians:
            self.medians[key] = _median_distance(K)
        return _apply_shape(K, shape, self.medians.get(key, 1.0))

    @property
    def chosen(self):
        """``(label, parts, shape, weight)`` of every candidate with a positive weight,
        in the order :meth:`combine` sums them (``parts``: member names multiplied
        elementwise; ``shape``: ``("power", p)`` or ``("gauss", s)``)."""
        return list(self._chosen)

    def term(self, grams, parts, shape):
        """One candidate's matrix, unweighted, from its members' matrices (member name
        -> matrix of any shape), as :meth:`combine` makes it before weighting."""
        return self._shaped(grams, parts, shape)

    @property
    def members_used(self):
        """Names of the candidates with a positive weight."""
        return [label for label, _, _, _ in self._chosen]

    def combine(self, grams):
        """The learned sum from the members' matrices (member name -> matrix, any shape)."""
        return self._combine(grams)

    def _combine(self, grams):
        out = term = None
        for _, parts, shape, w in self._chosen:
            if out is None:
                out = w * self._shaped(grams, parts, shape)
                continue
            # the same products and sums in the same order, into buffers made once
            # (a Gram matrix of NCI1 is 135 MB: fresh ones cost more than the arithmetic)
            term = np.multiply(self._shaped(grams, parts, shape), w, out=term)
            out += term
        return out

    def needed_members(self):
        """The members the chosen candidates read, in the order of :data:`CANDIDATES`,
        then the external kernels among them."""
        needed = {p for _, parts, _, _ in self._chosen for p in parts}
        return [name for name in [*self.functionals, *self.externals] if name in needed]

    def gram(self):
        """The square matrix of the training graphs, built block by block: the output
        and, per thread, a few blocks within ``working_memory``. It equals
        ``(K + K.T) / 2`` of the whole combination ``K``, with a unit diagonal, to the
        last bit."""
        grams = self._train_grams or {}
        sources = {}
        for name in self.needed_members():
            if name in grams:
                sources[name] = MatrixBlocks(grams[name], symmetric=True)
            elif name in self.externals:  # computed whole by its own code, checked exactly symmetric
                sources[name] = MatrixBlocks(self.externals[name].gram(), symmetric=True)
            else:
                sources[name] = KernelBlocks(self.embeddings[name], functional=self.functionals[name],
                                             n_jobs=self.n_jobs)
        return combine_blockwise(sources, self._combine, symmetric=True, working_memory=self.working_memory,
                                 n_jobs=self.n_jobs)

    def cross(self, X):
        """The matrix of ``X`` against the training graphs, shape ``(len(X), n_train)``,
        built block by block as :meth:`gram` is (an external kernel's matrix whole, by
        its own code)."""
        X = X if hasattr(X, "__len__") else list(X)
        batch, _ = self._graph_batch(X, "X", require=self.requires)
        sources = {name: MatrixBlocks(self.externals[name].cross(X, batch)) if name in self.externals else
                   KernelBlocks(batch, self.embeddings[name], functional=self.functionals[name], n_jobs=self.n_jobs)
                   for name in self.needed_members()}
        return combine_blockwise(sources, self._combine, working_memory=self.working_memory, n_jobs=self.n_jobs)

    def external_cross(self, X, names):
        """The matrices of ``X`` against the training graphs of the external kernels
        ``names`` (name -> array of shape ``(len(X), n_train)``), each by its own code
        and checked, as :meth:`cross` reads them."""
        X = X if hasattr(X, "__len__") else list(X)
        batch, _ = self._graph_batch(X, "X", require=self.requires)
        return {name: self.externals[name].cross(X, batch) for name in names}

    def summary(self, n_shown=None):
        """The candidates with a positive weight, largest first: ``"wl_label 0.623,
        power*histogram*wl 0.311"`` (``n_shown``: at most that many, and how many more)."""
        chosen = sorted(((w, label) for label, _, _, w in self._chosen), key=lambda item: (-item[0], item[1]))
        shown = chosen if n_shown is None else chosen[:n_shown]
        text = ", ".join(f"{label} {w:.3f}" for w, label in shown)
        return text + (f", and {len(chosen) - len(shown)} more" if len(shown) < len(chosen) else "")

    def __repr__(self):
        if not hasattr(self, "_chosen"):
            return (f"<LearnedCombination, not fitted: combination={self.combination!r}, task={self.task!r}, "
                    f"members={self.members!r}>")
        return (f"<LearnedCombination of {len(self._chosen)} of {len(self.weights)} candidates, fitted on "
                f"{self.n_train} graphs: {self.summary()}>")

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_train_grams"] = None  # recomputed on demand; keeps pickles small
        return state

