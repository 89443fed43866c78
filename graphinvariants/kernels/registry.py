"""Kernels by name: one calling convention for every functional.

In the manner of :func:`sklearn.metrics.pairwise.pairwise_kernels`, a name picks the
functional and the remaining keyword arguments are its parameters. Names joined by
``*`` (elementwise product) or ``+`` (mean) name combinations, e.g.
``"power*histogram"``; a parameter is given to every member that takes it, and
``member__param`` (e.g. ``histogram__k=8``) to one member only.
"""

import difflib
import functools
import inspect

from .._utils.validation import random_state_refused
from ..graphs.smiles import MOLECULE_LABEL, is_smiles
from ..embeddings import Combination, GaussianEmbedding, LabelledWalkHistogram, MeanMap, WalkHistogram, WeisfeilerLehman
from ..embeddings import (
    LabelledWalkHistogramOptimalAssignment,
    WalkHistogramOptimalAssignment,
    WeisfeilerLehmanOptimalAssignment,
)
from ..embeddings import ClosedWalkGaussian, ClosedWalkHistogram, NodeCount
from ..embeddings import PropagatedAttributes, RootedSubgraph, ShortestPath
from ..embeddings import FolkloreWL, LocalWL

from ..embeddings import MolecularDescriptors
from .engine import pairwise_kernels

__all__ = [
    "DEFAULT_KERNEL", "KERNELS", "LEARNED", "RECOMMENDED", "kernel_matrix", "kernel_parameters", "make_functional",
    "molecule_parameters", "parse_kernel_spec",
]

_FUNCTIONALS = {
    "power": GaussianEmbedding,
    "histogram": WalkHistogram,
    "labelled_histogram": LabelledWalkHistogram,
    "wl": WeisfeilerLehman,
    "meanmap": MeanMap,
    "wloa": WeisfeilerLehmanOptimalAssignment,
    "histogram_oa": WalkHistogramOptimalAssignment,
    "labelled_histogram_oa": LabelledWalkHistogramOptimalAssignment,
    "closed_histogram": ClosedWalkHistogram,
    "closed_power": ClosedWalkGaussian,
    "wl_closed": functools.partial(WeisfeilerLehman, closed_walks=8),
    "size": NodeCount,
    "attributes": PropagatedAttributes,
    "rooted_subgraph": RootedSubgraph,
    "shortest_path": ShortestPath,
    "fwl2": FolkloreWL,
    "fwl2_ir": functools.partial(FolkloreWL, individualise=True),
    "lwl2": LocalWL,

    "descriptors": MolecularDescriptors,
}

#: Kernel names accepted by :func:`kernel_matrix`, each with a one-line description.
#: Names joined by ``*`` (elementwise product) or ``+`` (mean) are accepted too.
KERNELS = {
    "power": "the paper's power kernel: Bhattacharyya coefficient of the power summaries' Gaussians (k, ridge, weight, normalization, engine)",
    "histogram": "cosine-normalised histogram of exact walk-count profiles, all prefixes t = 1..k (k, weight)",
    "labelled_histogram": "histogram of walk counts started from node-label indicator vectors (k, node_label, edge_label)",
    "wl": "Weisfeiler-Lehman subtree kernel, degree or node labels, cosine-normalised (n_iter, node_label, closed_walks, edge_label)",
    "meanmap": "kernel mean embedding of node profiles, RBF base kernel, exact or random Fourier features "
               "(k, profile, bandwidth, column_weights, n_features, seed, weight)",
    "wloa": "Weisfeiler-Lehman optimal assignment: histogram intersection of all rounds' colours "
            "(n_iter, node_label, closed_walks, edge_label)",
    "histogram_oa": "optimal assignment over the walk-profile prefixes: their histogram intersection (k, weight)",
    "labelled_histogram_oa": "optimal assignment over the labelled walk-profile prefixes, normalised (k, node_label, edge_label)",
    "closed_power": "Bhattacharyya coefficient of the Gaussians of the log closed-walk profiles log(1 + (A^t)_ii) "
                    "(k, ridge, weight, engine)",
    "closed_histogram": "cosine-normalised histogram of exact closed-walk profiles (A^t)_ii, all prefixes t = 1..k (k, weight)",
    "wl_closed": "Weisfeiler-Lehman started from (degree or node label, closed-walk counts (A^t)_ii, t = 1..closed_walks) "
                 "(n_iter, node_label, closed_walks=8, edge_label)",
    "size": "min(n_G, n_H) / max(n_G, n_H) on node counts: a factor that makes size-blind members see size",
    "attributes": "kernel mean embedding of node attributes propagated along walks [Z, PZ, .., P^k Z], RBF with "
                  "fitted bandwidth (k, propagation, bandwidth, bandwidth_scale, n_features, seed, "
                  "node_attributes)",
    "rooted_subgraph": "counts of the exact isomorphism classes (BLISS canonical forms) of every node's rooted "
                       "neighbourhoods of radius 0..radius, NSPDK-like, cosine-normalised "
                       "(radius, node_label, edge_label, max_nodes)",
    "shortest_path": "shortest-path kernel (Borgwardt and Kriegel): histogram of (label(u), label(v), distance) over the "
                     "ordered connected node pairs, cosine-normalised; GraKeL's ShortestPath (node_label, edge_label)",
    "fwl2": "folklore 2-WL (as strong as 3-WL): counts of the colours of every ordered node pair, all rounds, "
            "cosine-normalised; n**3 per round and graph (n_iter, node_label, edge_label, individualise, working_memory)",
    "fwl2_ir": "folklore 2-WL, then each node of the smallest colour class individualised in turn and refined again: "
               "past 3-WL, separates Cai-Fuerer-Immerman pairs over bases of treewidth 3 "
               "(n_iter, node_label, edge_label, individualise=True, working_memory)",
    "lwl2": "local 2-WL over the node pairs within a radius (delta-2-LWL-like, Morris et al. 2020): neighbours of "
            "either end, cosine-normalised; scales to large sparse graphs (n_iter, radius, node_label, edge_label, "
            "working_memory)",

    "descriptors": "molecules only (needs RDKit, the [chem] extra): RBF kernel on RDKit 2D descriptors (MolLogP, TPSA, "
                   "MolWt, ...) standardised on the fitted molecules, median-heuristic bandwidth (descriptors, "
                   "bandwidth, bandwidth_scale, n_features, seed, node_label, edge_label)",
}


#: The defaults, in one place (docs/kernels.rst, "Defaults"):
#:
#: * the unsupervised calls (kernel_matrix, kneighbors, the CLI's --kernel) default to
#:   DEFAULT_KERNEL, the paper's power kernel; their ``k`` is the power kernel's and
#:   reaches every member of a named combination that takes ``k``;
#: * GraphKernel and GraphFeatures default to LEARNED: a combination of the members the
#:   data supports, weighted by alignment with the training labels (kernels/learned.py);
#: * RECOMMENDED is the best fixed member across MUTAG, ENZYMES, NCI1 and NCI109 under the
#:   paper's protocol (docs/kernels.rst): the product of the power kernel (k=5), the walk
#:   histogram (k=9, fixed: a shared ``k`` does not reach it; ``histogram__k`` does) and
#:   Weisfeiler-Lehman (degree labels, 5 rounds); it is also one of LEARNED's candidates.
DEFAULT_KERNEL = "power"
LEARNED = "learned"
RECOMMENDED = "power*histogram*wl:histogram__k=9"

#: Options of the learned default that are tuples: spelled ``a+b`` (or one value) on the
#: command line.
LEARNED_TUPLES = ("members", "powers", "bandwidths")


@functools.lru_cache(maxsize=None)
def _parameters(cls):
    """The constructor's parameter names, read once per class (signature() is slow, and
    the learned default asks for them for every candidate of every fit)."""
    return tuple(p for p in inspect.signature(cls).parameters if p != "self")


def parse_kernel_spec(spec):
    """``"name:param=value,..."`` -> ``(name, params)``, values read as int, float or text.

    The spelling of kernels on the command line, e.g. ``"histogram:k=7"`` or
    ``"power*histogram:histogram__k=9"``. For the learned default (``"learned"``), a
    value with ``+`` is a tuple, and so is every value of its tuple options
    (:data:`LEARNED_TUPLES`): ``"learned:members=wl+grakel.ShortestPath"``.

    Examples
    --------
    >>> from graphinvariants.kernels import parse_kernel_spec
    >>> parse_kernel_spec("power*histogram:k=4,histogram__k=9")
    ('power*histogram', {'k': 4, 'histogram__k': 9})
    >>> parse_kernel_spec("learned:members=wl+grakel.ShortestPath,powers=1+2,bandwidths=1")
    ('learned', {'members': ('wl', 'grakel.ShortestPath'), 'powers': (1, 2), 'bandwidths': (1,)})
    """
    name, _, rest = spec.partition(":")
    if name.strip() == LEARNED:
        params = {}
        for item in filter(None, rest.split(",")):
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise ValueError(f"kernel {spec!r}: expected name:param=value,..., got {item!r}")
            values = tuple(_spelled_value(part) for part in value.split("+"))
            params[key] = values if "+" in value or key in LEARNED_TUPLES else values[0]
        return LEARNED, params
    if ":" in rest:
        raise ValueError(f"kernel {spec!r} has more than one ':'; write the parameters of every member after "
                         "one ':' at the end, as member__param=value (e.g. 'power*histogram:histogram__k=9')")
    cut = min((rest.find(op) for op in "*+" if op in rest), default=-1)
    if cut >= 0 and name.strip() != LEARNED:  # the learned default joins sequence items by "+"  # "histogram:k=7*power": parameters of one member in the middle of the name
        member = name.replace("+", "*").split("*")[-1].strip()
        moved = ",".join(f"{member}__{item}" for item in filter(None, rest[:cut].split(",")))
        whole = f"{name}{rest[cut:]}"
        example = f"'{whole}:{moved}'" if not {"*", "+"} <= set(whole) else "name:member__param=value"
        raise ValueError(f"kernel {spec!r}: parameters go after the whole name; write {example}")
    params = {}
    for item in filter(None, rest.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"kernel {spec!r}: expected name:param=value,..., got {item!r}")
        params[key] = _spelled_value(value)
    return name.strip(), params


def _spelled_value(value):
    """A spelled parameter value as int, float, None or text."""
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            continue
    return None if value == "None" else value


def _same(given, spelled):
    try:
        return bool(given == spelled)
    except (TypeError, ValueError):  # an array given: never equal to a spelled scalar or text
        return False


def shared_parameters(kernel, **params):
    """The subset of ``params`` that some member of ``kernel`` takes (for parameters such
    as ``k`` that a caller passes to whatever kernel it is given)."""
    spelled = {}
    if ":" in kernel:  # parameters spelled in the name are the caller's choice, not a default's
        kernel, spelled = parse_kernel_spec(kernel)
    names = [name.strip() for name in kernel.replace("+", "*").split("*")]
    accepted = {p for name in names if name in _FUNCTIONALS for p in _parameters(_FUNCTIONALS[name])}
    return {key: value for key, value in params.items() if key in accepted and key not in spelled}


def molecule_parameters(kernel, params):
    """``params`` for ``kernel`` over molecules read from SMILES strings: the members that
    take ``node_label`` or ``edge_label`` read the element and the bond type
    (``"label"``), unless ``params`` (or the name, ``"wl:node_label=None"``) says otherwise.

    A kernel named by string reads node degrees by default (the published figures on
    the TU sets are for that); a list of SMILES strings has no structure but its atoms
    and bonds, so degrees alone would put ``"CCS"`` at distance 0 from ``"CCO"`` and
    cyclohexane on benzene. :func:`kernel_matrix`, :func:`~graphinvariants.kneighbors`,
    :class:`~graphinvariants.GraphKernel` and :class:`~graphinvariants.NearestGraphs`
    call this when they are given SMILES strings (graphs, even molecules from
    :func:`~graphinvariants.datasets.from_smiles`, are read as the parameters say).

    Examples
    --------
    >>> from graphinvariants.kernels import molecule_parameters
    >>> molecule_parameters("power*wl", {"k": 4})
    {'k': 4, 'node_label': 'label', 'edge_label': 'label'}
    >>> molecule_parameters("wl", {"node_label": None}), molecule_parameters("power", {})
    ({'node_label': None, 'edge_label': 'label'}, {})
    """
    if not isinstance(kernel, str) or kernel == LEARNED:  # the learned default reads "label" already
        return dict(params)
    taken = shared_parameters(kernel, node_label=MOLECULE_LABEL, edge_label=MOLECULE_LABEL)
    out = dict(params)
    for key, value in taken.items():
        out.setdefault(key, value)
    return out


def check_kernel_names(names, *, also=()):
    """Refuse the first of ``names`` that is neither a kernel of :data:`KERNELS` nor in
    ``also`` (names a caller takes besides, such as ``"learned"``), with the closest
    names ignoring case ("did you mean 'wl'?" for ``"WL"``) and the whole list.

    ``names`` is a list of names, or a kernel as spelled for :func:`kernel_matrix`
    (``"power*histogram:histogram__k=9"``), whose members are checked.

    Raises
    ------
    ValueError

    Examples
    --------
    >>> from graphinvariants.kernels.registry import check_kernel_names
    >>> check_kernel_names("power*powr")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown kernel 'powr': did you mean 'power'? Choose among [...] (or combine them with * or +)
    """
    if isinstance(names, str):
        names = [name.strip() for name in names.partition(":")[0].replace("+", "*").split("*")]
    known = list(_FUNCTIONALS) + [name for name in also if name not in _FUNCTIONALS]
    for name in names:
        if name in known:
            continue
        by_key = {}
        for other in known:
            by_key.setdefault(other.casefold(), other)
        close = difflib.get_close_matches(str(name).casefold(), list(by_key), n=3, cutoff=0.6)
        hint = f": did you mean {' or '.join(repr(by_key[key]) for key in close)}? Choose" if close else "; choose"
        raise ValueError(f"unknown kernel {name!r}{hint} among {sorted(known)} (or combine them with * or +)")


def make_functional(kernel, **params):
    """The :class:`~graphinvariants.embeddings.Functional` behind a kernel name.

    Raises
    ------
    ValueError
        If a name is unknown or a parameter belongs to no member (the message lists
        the names, or the parameters the kernels take).

    Examples
    --------
    >>> from graphinvariants.kernels import make_functional
    >>> make_functional("histogram", k=3)
    WalkHistogram(k=3, weight=None)
    >>> make_functional("power*histogram", k=4, histogram__k=8)
    GaussianEmbedding(k=4, ridge=1e-12, weight=None, normalization='l1', engine='auto') * WalkHistogram(k=8, weight=None)
    >>> make_functional("histogram:k=8")  # parameters may be spelled in the name
    WalkHistogram(k=8, weight=None)
    """
    if not isinstance(kernel, str):
        raise TypeError(f"kernel must be a name (str), got {kernel!r}")
    if ":" in kernel:  # parameters spelled in the name, e.g. RECOMMENDED
        kernel, spelled = parse_kernel_spec(kernel)
        for key, value in spelled.items():
            if key in params and not _same(params[key], value):
                raise ValueError(f"kernel {kernel + ':' + ','.join(f'{k}={v}' for k, v in spelled.items())!r} "
                                 f"spells {key}={value!r} in its name but {key}={params[key]!r} is given; "
                                 "give it in one place")
        params = {**spelled, **params}
    if any(key == "random_state" or key.endswith("__random_state") for key in params):
        raise random_state_refused(f"kernel {kernel!r}")
    operations = {op for op in "*+" if op in kernel}
    if len(operations) > 1:
        raise ValueError(f"kernel {kernel!r} mixes '*' and '+'; use one operation per name")
    names = [name.strip() for name in kernel.split(operations.pop())] if operations else [kernel.strip()]
    check_kernel_names(names)
    if len(set(names)) != len(names):
        raise ValueError(f"kernel {kernel!r} names a member twice")
    member_params = {name: {} for name in names}
    for key, value in params.items():
        if "__" in key:
            name, param = key.split("__", 1)
            if name not in member_params or param not in _parameters(_FUNCTIONALS[name]):
                raise ValueError(f"{key!r} names no parameter of a member of {kernel!r}")
            member_params[name][param] = value
            continue
        takers = [name for name in names if key in _parameters(_FUNCTIONALS[name])]
        if not takers:
            accepted = sorted({p for name in names for p in _parameters(_FUNCTIONALS[name])})
            raise ValueError(f"kernel {kernel!r} takes the parameters {accepted}, not {key!r}")
        for name in takers:
            member_params[name].setdefault(key, value)
    functionals = [_FUNCTIONALS[name](**member_params[name]) for name in names]
    if len(functionals) == 1:
        return functionals[0]
    return Combination(functionals, operation="*" if "*" in kernel else "+")


def kernel_matrix(graphs, other=None, *, kernel=DEFAULT_KERNEL, n_jobs=None, **params):
    """Kernel matrix of a collection of graphs for a kernel given by name.

    Parameters
    ----------
    graphs : collection of graphs
        Any sequence of graphs, a GraphBatch or a TUDataset (or precomputed
        embeddings of that kernel's functional), or a list of SMILES strings:
        molecules, whose atoms and bonds the members that read labels read
        (:func:`molecule_parameters`).
    other : collection of graphs, optional
        If given, the ``len(graphs) x len(other)`` cross matrix; otherwise the square,
        symmetric matrix of ``graphs`` (unit diagonal).
    kernel : str, keyword-only
        A name of :data:`KERNELS` (default ``"power"``, the paper's), or names joined
        by ``*`` or ``+``.
    n_jobs : int or None, keyword-only
        Worker threads over tiles of pairs.
    **params
        Parameters of the kernel (for example ``k``); ``member__param`` for one member
        of a combination.

    Returns
    -------
    numpy.ndarray of shape (len(graphs), len(other))

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> graphs = [nx.path_graph(4), nx.path_graph(5), nx.cycle_graph(4)]
    >>> gi.kernel_matrix(graphs, kernel="histogram", k=2).round(3)
    array([[1.   , 0.959, 0.354],
           [0.959, 1.   , 0.603],
           [0.354, 0.603, 1.   ]])
    >>> gi.kernel_matrix(graphs, kernel="wl", n_iter=2).round(3)
    array([[1.   , 0.807, 0.236],
           [0.807, 1.   , 0.415],
           [0.236, 0.415, 1.   ]])
    """
    if is_smiles(graphs) or is_smiles(other):
        params = molecule_parameters(kernel, params)
    functional = make_functional(kernel, **params)
    return pairwise_kernels(graphs, other, functional=functional, n_jobs=n_jobs)


def kernel_parameters():
    """The parameters of every kernel of :data:`KERNELS`, by kernel name.

    Examples
    --------
    >>> from graphinvariants.kernels.registry import kernel_parameters
    >>> kernel_parameters()["wl"]
    ('n_iter', 'node_label', 'closed_walks', 'edge_label')
    """
    return {name: tuple(_parameters(cls)) for name, cls in _FUNCTIONALS.items()}
