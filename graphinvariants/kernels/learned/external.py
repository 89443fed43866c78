"""Kernels from elsewhere as candidates of the learned default.

:class:`~graphinvariants.GraphKernel` (``members=...``) and
:class:`~graphinvariants.kernels.learned._combination.LearnedCombination` take, beside the names of
the library's candidates:

* a **GraKeL kernel object** (``grakel.ShortestPath()``; the ``[baselines]`` extra), or
  its class spelled ``"grakel.ShortestPath"`` (the command line's spelling), built with
  its defaults. :func:`to_grakel` converts the graphs: an edge dictionary that lists
  every node, the node labels (the estimator's ``node_label``) when every graph carries
  them and the degrees otherwise, the bond types (``edge_label``) when carried, and for
  GraKeL's attribute kernels (:data:`GRAKEL_ATTRIBUTE_KERNELS`) the node attributes as
  its node labels. The object is cloned (never changed) and used with
  ``normalize=True``, so that GraKeL divides by the diagonals itself, also for new
  graphs;
* any **callable** ``kernel(graphs_a, graphs_b) -> matrix`` of shape
  ``(len(graphs_a), len(graphs_b))``, called with the graphs as given to ``fit`` and
  ``transform`` (a list, a TUDataset ...);
* a **scikit-learn-style transformer**: ``fit(graphs)``, then ``transform(graphs)`` gives
  the matrix against the fitted graphs (cloned when it has ``get_params``).

What is checked, with errors naming the candidate (:class:`ExternalCandidate`): the
training matrix has shape ``(n_train, n_train)``, finite values, is symmetric to
:data:`SYMMETRY_TOLERANCE` (then made exactly symmetric), has a unit diagonal to
:data:`DIAGONAL_TOLERANCE` (then set to exactly 1: a candidate with another diagonal is
refused, with the normalisation to apply; a GraKeL object normalises itself), and no
eigenvalue below ``-PSD_TOLERANCE * largest eigenvalue`` (on the graphs the weights are
learned on, at most ``max_samples`` of them). A matrix against new graphs is checked
for shape and finiteness; its values cannot be checked otherwise.
"""

import numpy as np

__all__ = ["DIAGONAL_TOLERANCE", "ExternalCandidate", "GRAKEL_ATTRIBUTE_KERNELS", "PSD_TOLERANCE",
           "SYMMETRY_TOLERANCE", "external_candidate", "is_external", "to_grakel"]

#: Largest ``|K_ij - K_ji|`` accepted from an external kernel (then symmetrised).
SYMMETRY_TOLERANCE = 1e-10
#: Largest ``|K_ii - 1|`` accepted from an external kernel (then set to 1).
DIAGONAL_TOLERANCE = 1e-9
#: Smallest eigenvalue accepted, relative to the largest: ``lambda_min >= -PSD_TOLERANCE
#: * lambda_max`` (the rounding of an eigensolver on 1,000 graphs is about 1e-13).
PSD_TOLERANCE = 1e-8

#: GraKeL kernels that read continuous node attributes as their node labels.
GRAKEL_ATTRIBUTE_KERNELS = ("PropagationAttr", "ShortestPathAttr", "GraphHopper", "MultiscaleLaplacian")


def _is_grakel(obj):
    return type(obj).__module__.split(".")[0] == "grakel"


def _grakel():
    try:
        import grakel
    except ImportError as error:
        raise ImportError('GraKeL kernels need GraKeL: pip install "graphinvariants[baselines]"') from error
    return grakel


def _is_grakel_kernel_class(value):
    return isinstance(value, type) and hasattr(value, "fit_transform")


def is_external(member):
    """Whether a ``members`` entry is an external kernel (not a library candidate name)."""
    if isinstance(member, str):
        return member.startswith("grakel.")
    return _is_grakel(member) or callable(member) or (hasattr(member, "fit") and hasattr(member, "transform"))


def external_candidate(member):
    """The :class:`ExternalCandidate` of a ``members`` entry (TypeError if it is none)."""
    if isinstance(member, str):
        name = member.split(".", 1)[1]
        grakel = _grakel()
        kernel = getattr(grakel, name, None)
        if not _is_grakel_kernel_class(kernel) or name == "Kernel":
            import difflib

            classes = sorted(n for n, c in vars(grakel).items() if _is_grakel_kernel_class(c) and n != "Kernel")
            close = difflib.get_close_matches(name, classes, n=3, cutoff=0.6)
            hint = (f"; did you mean {' or '.join(f'grakel.{c}' for c in close)}?" if close else
                    f"; its kernel classes are {', '.join(classes)}")
            raise ValueError(f"member {member!r}: GraKeL has no kernel class {name!r}{hint}")
        return ExternalCandidate(kernel(), "grakel", member)
    if isinstance(member, type) and member.__module__.split(".")[0] == "grakel":  # the class: its defaults
        return ExternalCandidate(member(), "grakel", f"grakel.{member.__name__}")
    if _is_grakel(member):
        return ExternalCandidate(member, "grakel", f"grakel.{type(member).__name__}")
    if hasattr(member, "fit") and hasattr(member, "transform"):
        return ExternalCandidate(member, "transformer", type(member).__name__)
    if callable(member):
        return ExternalCandidate(member, "callable", getattr(member, "__name__", type(member).__name__))
    raise TypeError(f"members must hold candidate names, GraKeL kernels, callables (graphs_a, graphs_b) -> matrix "
                    f"or transformers (fit, transform), got {member!r}")


def to_grakel(batch, *, node_labels=None, edge_labels=None):
    """GraKeL graphs of a :class:`~graphinvariants.graphs.GraphBatch`.

    Parameters
    ----------
    batch : GraphBatch
    node_labels : numpy.ndarray or None, keyword-only
        One label (or attribute row) per node in row order; None: the node degrees.
    edge_labels : numpy.ndarray or None, keyword-only
        One label per stored entry of ``batch.matrix``; None: none.

    Returns
    -------
    list of grakel.Graph
        Each with an edge dictionary that lists every node (isolated ones too), its
        nodes numbered ``0 .. n - 1`` as in the batch.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.graphs import as_graph_batch
    >>> from graphinvariants.kernels.learned.external import to_grakel
    >>> [g] = to_grakel(as_graph_batch([nx.path_graph(3)]))
    >>> g.get_edge_dictionary(), g.get_labels()
    ({0: {1: 1.0}, 1: {0: 1.0, 2: 1.0}, 2: {1: 1.0}}, {0: 1, 1: 2, 2: 1})
    """
    Graph = _grakel().Graph
    A = batch.matrix
    degree = np.diff(A.indptr)
    if node_labels is None:
        node_labels = degree
    out = []
    for g in range(len(batch)):
        a, b = int(batch.offsets[g]), int(batch.offsets[g + 1])
        edges, bonds = {}, {}
        for u in range(a, b):
            row = slice(A.indptr[u], A.indptr[u + 1])
            neighbours = (A.indices[row] - a).tolist()
            edges[u - a] = dict(zip(neighbours, A.data[row].tolist()))
            if edge_labels is not None:
                bonds.update(((u - a, v), label) for v, label in zip(neighbours, _plain(edge_labels[row])))
        labels = dict(enumerate(_plain(node_labels[a:b])))
        out.append(Graph(edges, node_labels=labels, edge_labels=bonds if edge_labels is not None else None))
    return out


def _plain(values):
    values = np.asarray(values)
    return [np.asarray(row) for row in values] if values.ndim > 1 else values.tolist()


class ExternalCandidate:
    """An external kernel fitted on training graphs, with its checks.

    Parameters
    ----------
    kernel : GraKeL kernel, callable or transformer
    kind : {"grakel", "callable", "transformer"}
    name : str
        Its candidate name in the weights (``"grakel.ShortestPath"``, the callable's
        ``__name__``, the transformer's class name).

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from graphinvariants.graphs import as_graph_batch
    >>> from graphinvariants.kernels.learned.external import external_candidate
    >>> def doubled(graphs_a, graphs_b):
    ...     return 2.0 * np.eye(len(graphs_a), len(graphs_b))
    >>> candidate = external_candidate(doubled)
    >>> graphs = [nx.path_graph(3), nx.cycle_graph(4)]
    >>> candidate.fit(graphs, as_graph_batch(graphs), {})
    Traceback (most recent call last):
        ...
    ValueError: candidate 'doubled' gave a diagonal from 2 to 2; the learned default combines kernels with a unit diagonal: normalise it, K[i, j] / sqrt(K[i, i] * K[j, j]) (GraKeL: normalize=True)
    """

    def __init__(self, kernel, kind, name):
        self.kernel = kernel
        self.kind = kind
        self.name = name
        self.reads = ()

    def __repr__(self):
        return f"ExternalCandidate({self.name!r}, {self.kind})"

    def _grakel_input(self, batch):
        """GraKeL graphs of a batch: labels (or attributes) and bonds as ``reads`` says."""
        if "node_attributes" in self.reads:
            labels = batch.node_attributes
        else:
            labels = batch.node_labels if "node_label" in self.reads else None
        return to_grakel(batch, node_labels=labels,
                         edge_labels=batch.edge_labels if "edge_label" in self.reads else None)

    def fit(self, graphs, batch, carries):
        """Fit on the training graphs (``graphs`` as given, ``batch`` their GraphBatch,
        ``carries``: what every graph carries) and return the checked square matrix
        (its eigenvalues are checked apart, by :meth:`check_psd`, on the graphs the
        weights are learned on)."""
        from sklearn.base import clone

        if self.kind == "grakel":
            attributes = type(self.kernel).__name__ in GRAKEL_ATTRIBUTE_KERNELS
            if attributes and not carries.get("node_attributes"):
                raise ValueError(f"candidate {self.name!r} reads node attributes, but the graphs carry none "
                                 "(some graph lacks them, or they were refused with node_attributes=None)")
            needs = ("node_attributes",) if attributes else ("node_label",)
            self.reads = tuple(o for o in needs + ("edge_label",) if carries.get(o))
            self.fitted_ = clone(self.kernel)
            self.fitted_.set_params(normalize=True)  # GraKeL's set_params returns None
            with np.errstate(all="ignore"):
                K = self.fitted_.fit_transform(self._grakel_input(batch))
        elif self.kind == "transformer":
            self.fitted_ = clone(self.kernel) if hasattr(self.kernel, "get_params") else self.kernel
            self.fitted_.fit(graphs)
            K = self.fitted_.transform(graphs)
        else:
            K = self.kernel(graphs, graphs)
        self.graphs_, self.batch_, self.n_train_ = graphs, batch, len(batch)
        return self.check_gram(K)

    def cross(self, graphs, batch):
        """The checked matrix of new graphs against the training graphs."""
        if self.kind == "grakel":
            with np.errstate(all="ignore"):
                K = self.fitted_.transform(self._grakel_input(batch))
        elif self.kind == "transformer":
            K = self.fitted_.transform(graphs)
        else:
            K = self.kernel(graphs, self.graphs_)
        return self._checked(K, (len(batch), self.n_train_))

    def gram(self):
        """The checked square matrix of the training graphs, again (after unpickling)."""
        if self.kind == "grakel":
            with np.errstate(all="ignore"):
                K = self.fitted_.transform(self._grakel_input(self.batch_))
        elif self.kind == "transformer":
            K = self.fitted_.transform(self.graphs_)
        else:
            K = self.kernel(self.graphs_, self.graphs_)
        return self.check_gram(K)

    def _checked(self, K, shape):
        K = np.asarray(K.toarray() if hasattr(K, "toarray") else K, dtype=np.float64)
        if K.shape != shape:
            raise ValueError(f"candidate {self.name!r} gave a matrix of shape {K.shape}, expected {shape}")
        if not np.all(np.isfinite(K)):
            raise ValueError(f"candidate {self.name!r} gave a matrix with {int(np.sum(~np.isfinite(K)))} values that "
                             "are NaN or infinite (a graph whose kernel with itself is 0?)")
        return K

    def check_gram(self, K):
        """The square training matrix, checked (see the module), exactly symmetric with
        a unit diagonal."""
        n = self.n_train_
        K = self._checked(K, (n, n))
        asymmetry = float(np.abs(K - K.T).max()) if n else 0.0
        if asymmetry > SYMMETRY_TOLERANCE:
            raise ValueError(f"candidate {self.name!r} gave a matrix that is not symmetric: max |K - K.T| = "
                             f"{asymmetry:.3g} > {SYMMETRY_TOLERANCE:g}")
        K = (K + K.T) / 2
        diagonal = np.diag(K)
        if n and np.abs(diagonal - 1).max() > DIAGONAL_TOLERANCE:
            raise ValueError(f"candidate {self.name!r} gave a diagonal from {diagonal.min():.6g} to "
                             f"{diagonal.max():.6g}; the learned default combines kernels with a unit diagonal: "
                             "normalise it, K[i, j] / sqrt(K[i, i] * K[j, j]) (GraKeL: normalize=True)")
        np.fill_diagonal(K, 1.0)
        return K

    def check_psd(self, K):
        """ValueError if ``K`` has an eigenvalue below ``-PSD_TOLERANCE * its largest``."""
        if not len(K):
            return
        values = np.linalg.eigvalsh(K)
        if values[0] < -PSD_TOLERANCE * max(values[-1], 1.0):
            raise ValueError(f"candidate {self.name!r} is not positive semidefinite: its smallest eigenvalue on the "
                             f"{len(K)} training graphs is {values[0]:.3g} (largest {values[-1]:.3g}; tolerance "
                             f"{PSD_TOLERANCE:g} times the largest)")
