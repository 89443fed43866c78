"""Graphs to rows: one feature map for every kernel of the library.

:class:`GraphFeatures` maps every graph to one row whose inner products are the kernel
(or approximate it), for a fixed member (``"wl"``), a combination
(``"power*histogram*wl"``) and the learned default (:class:`~graphinvariants.GraphKernel`)
alike. A weighted sum ``K = sum_c w_c K_c`` is the kernel of the concatenated,
``sqrt(w_c)``-scaled feature maps (a fixed kernel is the sum of one term with weight 1),
so every term is mapped on its own:

* **exact**: a term that is a count member itself (shape ``K^1``): Weisfeiler-Lehman
  (``wl``, ``wl_label``, ``wl_edge_label``), walk histograms (``histogram``,
  ``labelled_histogram``, ``labelled_histogram_edge_label``), closed walks
  (``closed_histogram``), rooted subgraphs, shortest paths, and the optimal-assignment
  forms (``wloa``, ``histogram_oa``, ...) by the unary code of their counts. The columns
  are the labels of the graphs given to ``fit`` (for the assignment kernels,
  ``(label, t)`` up to the largest count seen); a graph's row is its counts on those
  labels divided by the norm of *all* its counts, so its inner product with the row of
  any graph given to ``fit`` is that member's kernel value (to rounding: a sum of
  integer products divided once, about 1e-16 relative). Between two graphs that share
  a label no fitted graph has, the shared label is missing from the inner product.
  The mean map with random features (``"meanmap:n_features=500"``) is exact too: its
  rows are its random features.
* **approximate**: everything else (the power kernel, products of members, the
  Gaussian shapes ``exp(-(2 - 2K) / (s m))``, powers ``K^p`` with ``p > 1``, node
  attributes, external kernels: GraKeL objects, callables and transformers, each by
  its own matrix against the graphs the weights were learned on, of which the
  landmarks' columns are kept, so a block of ``block_size`` graphs costs a
  ``block_size x min(max_samples, n)`` matrix of it), summed with its weights into one
  kernel ``R`` and mapped by Nystroem: ``n_landmarks`` of the graphs are landmarks, and
  a graph's features are ``R(graph, landmarks) U S^{-1/2}`` with ``R(landmarks,
  landmarks) = U S U^T`` (eigenvalues below ``1e-12`` of the largest dropped). Exact
  between landmarks; its error against ``R`` shrinks as ``n_landmarks`` grows.

The learned default's map offers no Gaussian shapes by default
(:data:`DEFAULT_BANDWIDTHS`): a narrow one is nearly the identity matrix, which no fixed
number of landmarks holds, so its features lost up to 5 points against the exact
kernel; given a ``GraphKernel`` with shapes, they are mapped by Nystroem like the rest.

Tensor products (the exact maps of ``K^p`` and of products of count members) are not
built: their number of columns is the product of the members' vocabularies (tens of
thousands each), which no linear model can hold; the Nystroem part covers them.

Features are computed a block of ``block_size`` graphs at a time by
:meth:`GraphFeatures.transform_block`, the one function that both
:meth:`GraphFeatures.transform` and :func:`graphinvariants.distributed.features_to_zarr`
(on Dask) call; a graph's row does not depend on the other graphs of its block, bit for
bit (counts are integers; the Nystroem product is taken in padded chunks of a fixed
shape, so every row goes through the same BLAS kernel).
"""

import copy
import itertools
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from .._utils.blas import fixed_shape_product
from .._utils.progress import quiet_or_bar
from .._utils.validation import check_int, check_n_jobs, check_seed, python_scalar, refuses_random_state
from ..embeddings.assignment import OptimalAssignment, column_maxima, unary_code
from ..embeddings.counts import CountFeatures, FittedCounts
from ..embeddings.wl_vocabulary import GrowingVocabulary, renumbered_rows
from ..estimator import GraphKernel
from ..graphs import GraphBatch
from ..graphs.batch import check_not_single_graph, subset
from ..kernels import pairwise_kernels
from ..kernels.learned.alignment import read_targets
from ..kernels.registry import LEARNED, parse_kernel_spec, shared_parameters

__all__ = ["DEFAULT_BANDWIDTHS", "GraphFeatures", "subset"]

#: The Gaussian shapes offered by the default ``kernel``: none. A narrow Gaussian shape
#: ``exp(-(2 - 2K) / (s m))`` is close to the identity matrix, of full rank, so no few
#: hundred (or thousand) Nystroem components hold it: on Mutagenicity, where the learned
#: default puts 0.87 of its weight on such shapes, an SVC on the features' inner products
#: lost 5.3 and 3.9 points on two folds against the same SVC on the exact kernel (1,000
#: components). Weighting the plain candidates only (count members mapped exactly, the
#: power kernel and its products, which are smooth, by Nystroem) loses nothing there
#: (``benchmarks/studies/learned_features.py``; the docs' large collections page).
DEFAULT_BANDWIDTHS = ()

#: Eigenvalues of the landmarks' matrix below this share of the largest are dropped.
EIGENVALUE_FLOOR = 1e-12

#: A transformed graph more than this share of whose labels (counts in the exactly
#: mapped members) no fitted graph has is reported by a warning: those labels add
#: nothing to its row, so its inner product with itself falls below the kernel's 1.
UNSEEN_WARNING_SHARE = 0.5

#: The pair engine's size-dependent choices (the power kernel's compiled engine) are
#: fixed as for a matrix this large, so that every block makes the same choice.
_FIXED_PAIRS = 2**40

_INT32_MAX = int(np.iinfo(np.int32).max)




def as_collection(X, what):
    """``X`` as an indexable collection of graphs (a one-shot iterator is read once); a
    batch of precomputed embeddings (with ``take``) as it is."""
    check_not_single_graph(X, what)
    if isinstance(X, GraphBatch) or (hasattr(X, "batch") and isinstance(X.batch, GraphBatch)):
        return X
    if callable(getattr(X, "take", None)) and hasattr(X, "__len__") and not hasattr(X, "__iter__"):
        return X
    if isinstance(X, (str, bytes)) or not hasattr(X, "__iter__"):
        raise TypeError(f"{what} must be a collection of graphs (a list, a GraphBatch or a TUDataset), got {X!r}")
    return X if hasattr(X, "__getitem__") and hasattr(X, "__len__") else list(X)


class _ExactMember:
    """One exact member's map: the fitted graphs' vocabulary (a batch of the member's
    embeddings whose counts are the identity, so that ``merge`` with it gives the place
    of every fitted label in the merged vocabulary), its fitted count map (where a new
    graph's labels sit among the fitted ones, looked up in time set by that graph:
    :meth:`~graphinvariants.embeddings.counts.CountFeatures.count_map`) and, for an
    assignment kernel, the unary width of every label."""

    def __init__(self, name, functional, embedded, weight):
        n_labels = embedded.counts.shape[1]
        probe = copy.copy(embedded)
        probe.counts = sp.csr_array(sp.identity(n_labels, format="csr", dtype=np.float64))
        self.name = name
        self.functional = functional
        self.probe = probe
        self.count_map = functional.count_map(embedded)
        self.assignment = isinstance(functional, OptimalAssignment)
        self.widths = column_maxima(embedded.counts) if self.assignment else None
        self.scale = float(np.sqrt(weight))
        self.n_columns = int(self.widths.sum()) if self.assignment else n_labels
        # a member that reads node or edge labels reports the graphs whose labels the
        # fitted graphs lack; a structural one (degrees, walk counts) has no labels to
        # report, and its rows are exact against the fitted graphs all the same
        self.labelled = (getattr(functional, "node_label", None) is not None
                         or getattr(functional, "edge_label", None) is not None)

    def features(self, block, embedded=None, what="X"):
        """``(rows, unseen, total, missing)``: the rows of ``block`` and, per graph, its
        label counts on labels no fitted graph has, all its label counts, and the part
        of its kernel value with itself (``weight`` times 1) that its row lacks for
        them; ``embedded``: its embeddings if already made (rows of a batch of more
        graphs, see :func:`_rows`)."""
        if embedded is None:
            # every label count of the block with its fitted column (found by the fitted
            # count map, in time set by the block); the norm is that of all counts
            found = self.functional.fitted_counts(block, self.count_map, what=what)
        else:  # rows of the fitted batch itself (fit_transform): its columns are the fitted ones
            counts = sp.csr_array(embedded.counts)
            if not counts.has_canonical_format:
                counts.sum_duplicates()
            found = FittedCounts.of(counts)
        return self._rows(found)

    def _rows(self, found):
        """:meth:`features` of the block whose label counts are ``found`` (a
        :class:`~graphinvariants.embeddings.counts.FittedCounts`). Sums of integer counts
        are exact in any order, so the values are those of the count matrices' own sums."""
        indptr, count, column = found
        n = len(indptr) - 1
        graph = np.repeat(np.arange(n), indptr[1:] - indptr[:-1])
        seen = column >= 0
        kept_graph, kept_count, kept_column = graph[seen], count[seen], column[seen]
        if n == 1 or np.any((kept_column[1:] <= kept_column[:-1]) & (kept_graph[1:] == kept_graph[:-1])):
            order = kept_column.argsort() if n == 1 else np.lexsort((kept_column, kept_graph))  # columns in order
            kept_graph, kept_count, kept_column = kept_graph[order], kept_count[order], kept_column[order]
        lengths = np.bincount(kept_graph, minlength=n)
        kept_indptr = np.concatenate(([0], np.cumsum(lengths)))
        total = np.bincount(graph, weights=count, minlength=n)
        unseen = total - np.bincount(kept_graph, weights=kept_count, minlength=n)
        if self.assignment:  # (min(a, b) is not proportional: no common divisor taken out)
            norms = total  # nodes x levels
            kept = sp.csr_array((np.minimum(kept_count, self.widths[kept_column].astype(np.float64)), kept_column,
                                 kept_indptr), shape=(n, self.count_map.n_columns))
            kept = unary_code(kept, self.widths)
            held = np.diff(kept.indptr).astype(np.float64)
            divisor = norms
            data, kept_column, kept_indptr = kept.data, kept.indices, kept.indptr
            lengths = np.diff(kept_indptr)
        else:
            norms = np.bincount(graph, weights=count * count, minlength=n)
            held = np.bincount(kept_graph, weights=kept_count * kept_count, minlength=n)
            # the counts divided by their greatest common divisor first (exact: integers):
            # proportional counts (K = 1, a graph and two copies of it) then give the same
            # row to the last bit, so they are at distance exactly 0, as K says
            common = _row_gcd(indptr, count)
            data = kept_count / np.repeat(common, lengths)
            divisor = norms / common**2
        full = norms > 0  # (0 for a graph without counts)
        scale = np.divide(self.scale, np.sqrt(divisor), out=np.zeros(n), where=full)
        # integers, exact: the share of K(G, G) on labels no fitted graph has
        missing = self.scale**2 * np.divide(norms - held, norms, out=np.zeros(n), where=full)
        rows = sp.csr_array((data * np.repeat(scale, lengths), kept_column, kept_indptr), shape=(n, self.n_columns))
        if not self.labelled:
            unseen = total = np.zeros(n)
        return rows, unseen, total, missing


class _RandomMember:
    """A member with random features (the mean map's ``n_features`` form): its rows are
    those features, scaled by the square root of its weight."""

    def __init__(self, name, functional, weight):
        self.name = name
        self.functional = functional
        self.scale = float(np.sqrt(weight))
        self.n_columns = int(functional.n_features)

    def features(self, block, embedded=None, what="X"):
        """``(rows, unseen, total, missing)`` as :meth:`_ExactMember.features` gives
        them; random features have no labels, so none is unseen."""
        if embedded is None:
            embedded = self.functional.as_embeddings(block, what=what)
        none = np.zeros(len(block))
        return sp.csr_array(self.scale * self.functional.features(embedded)), none, none, none


class _OneTerm:
    """A fixed kernel as a weighted sum of one term with weight 1, in the shape of the
    learned default's :class:`~graphinvariants.kernels.learned._combination.LearnedCombination`
    (``functionals``, ``chosen``, ``term``), so that one map serves both."""

    def __init__(self, name, functional):
        self.functionals = {name: functional}
        self.chosen = [(name, (name,), ("power", 1), 1.0)]
        self.weights = {name: 1.0}

    def term(self, grams, parts, shape):
        return grams[parts[0]]


#: ``n_landmarks``' default: no warning when the sample holds fewer graphs (every
#: graph of the sample is then a landmark, as documented).
DEFAULT_LANDMARKS = 300


def _is_random_map(functional):
    return callable(getattr(functional, "random_map", None)) and getattr(functional, "n_features", None) is not None


class GraphFeatures(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Rows whose inner products are a graph kernel: any kernel, exact where it can be.

    ``fit(graphs, y=None)`` fits the kernel on at most ``max_samples`` of the graphs
    (drawn with ``seed``; the learned default learns its weights there, from ``y``),
    takes the vocabulary of the exactly mapped terms from every graph given, and fits
    the Nystroem map of the rest on ``n_landmarks`` landmarks drawn from that sample;
    ``transform(graphs)`` returns a sparse ``(len(graphs), n_features_out_)`` matrix, a
    block of ``block_size`` graphs at a time. A linear model on these features
    (``LinearSVC``, ``SGDClassifier``, ``RidgeClassifier``) stands in for an SVM on the
    kernel, in time linear in the number of graphs. What is exact and what is
    approximated: see :mod:`graphinvariants.features`.

    Parameters
    ----------
    kernel : str or GraphKernel, default="learned"
        ``"learned"`` (the learned default, weighting its plain candidates: no Gaussian
        shapes, see :data:`~graphinvariants.features.maps.DEFAULT_BANDWIDTHS`), a kernel
        name of :data:`graphinvariants.KERNELS` or a combination, with parameters
        spelled in it (``"wl:n_iter=3"``, ``"learned:members=wl+power"``), or an unfitted
        :class:`~graphinvariants.GraphKernel` (cloned at ``fit``; a learned one's
        ``max_samples`` is replaced by this transformer's).
    n_landmarks : int, default=300
        Landmarks of the Nystroem part (at most the graphs of the sample: ``fit`` warns
        when a value other than the default is more); unused when every term is mapped
        exactly. The Nystroem part has one column per eigenvalue of the landmarks'
        matrix kept, at most ``n_landmarks_`` (:meth:`get_feature_names_out` names them
        ``nystroem_*``).
    max_samples : int or None, default=1000
        Fit the kernel (learn the weights) on at most this many of the graphs given to
        ``fit`` (None: all; the learned default's cost grows as its square).
    block_size : int, default=4096
        Graphs per block of ``fit`` and ``transform``: memory grows with it, never with
        the number of graphs (beyond the output itself).
    progress : bool, default=False
        Show tqdm progress bars over the blocks.
    seed : None, int or numpy.random.Generator, default=None
        Draws the sample, the landmarks, and the random map of a kernel that has one
        and was given no seed of its own (``"meanmap:n_features=500"``).
    n_jobs : int or None, default=None
        Threads of the pair engine.

    Attributes
    ----------
    kernel_ : GraphKernel
        The kernel, fitted on the sample.
    weights_ : dict
        Weight of every term of the kernel (the learned default's ``weights_``; a fixed
        kernel is one term of weight 1).
    sample_indices_ : numpy.ndarray of int64
        Positions (in the graphs given to ``fit``) of the sample.
    exact_ : list of str
        The terms mapped exactly.
    approximate_ : list of str
        The terms in the Nystroem part.
    exact_weight_ : float
        Their total weight (``1 - exact_weight_`` is approximated).
    landmark_indices_ : numpy.ndarray of int64
        Positions of the landmarks in the graphs given to ``fit``.
    normalization_ : numpy.ndarray of shape (m, r)
        ``U S^{-1/2}`` of the landmarks' matrix, ``m`` landmarks, ``r`` eigenvalues kept.
    n_landmarks_ : int
        Landmarks used (``m``; 0 when every term is exact).
    n_features_out_ : int
        Columns of the output (scikit-learn's ``n_components`` of a kernel
        approximation): the exact terms' columns, then the ``r`` Nystroem ones.

    Warns
    -----
    UserWarning
        Once per ``transform`` (or ``transform_block``) call when some graph has more
        than half of its labels (its counts in the exactly mapped members) unseen:
        how many graphs, what share of their labels, and their rows' inner products
        with themselves.

    Notes
    -----
    The columns of an exact member are the labels of the graphs given to ``fit``. A
    label that none of them has adds nothing to a row, while the row is still divided
    by the norm of all the graph's counts; so a graph whose labels no fitted graph has
    gets a row whose inner product with itself is far below the learned kernel's
    ``K(G, G) = 1`` (an edgeless graph with MUTAG's atom labels, under features fitted
    on MUTAG: 0.146), and between two such graphs the labels they share are left out.
    Against the fitted graphs the exact members stay exact. Fit on graphs that carry
    the labels the transformed graphs will have.

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.svm import LinearSVC
    >>> import graphinvariants as gi
    >>> # every star size twice: the graphs held out have the labels of the fitted ones
    >>> graphs = [nx.cycle_graph(n) for n in range(6, 26)] + [nx.star_graph(5 + n // 2) for n in range(20)]
    >>> y = [0] * 20 + [1] * 20
    >>> features = gi.GraphFeatures(n_landmarks=10, seed=0).fit(graphs[::2], y[::2])
    >>> X = features.transform(graphs)
    >>> X.shape[0], X.shape[1] == features.n_features_out_
    (40, True)
    >>> model = make_pipeline(gi.GraphFeatures(n_landmarks=10, seed=0), LinearSVC())
    >>> model.fit(graphs[::2], y[::2]).score(graphs[1::2], y[1::2])
    1.0
    >>> wl = gi.GraphFeatures("wl:n_iter=3").fit(graphs)  # a count member: exact, no landmarks
    >>> F = wl.transform(graphs[:3])
    >>> np.allclose((F @ F.T).toarray(), gi.kernel_matrix(graphs[:3], kernel="wl", n_iter=3), atol=1e-12)
    True
    """

    #: The parameter that counts landmarks, as warnings name it (the 0.2 names say n_components).
    _landmarks_word = "n_landmarks"

    @refuses_random_state
    def __init__(self, kernel=LEARNED, *, n_landmarks=300, max_samples=1000, block_size=4096, progress=False,
                 seed=None, n_jobs=None):
        self.kernel = kernel
        self.n_landmarks = n_landmarks
        self.max_samples = max_samples
        self.block_size = block_size
        self.progress = progress
        self.seed = seed
        self.n_jobs = n_jobs

    # -- fitting ------------------------------------------------------------------------
    def _graph_kernel(self):
        """The unfitted GraphKernel that ``kernel`` names."""
        kernel = self.kernel
        if isinstance(kernel, GraphKernel):
            return kernel
        if not isinstance(kernel, str):
            raise TypeError(f"kernel must be a kernel name or a GraphKernel, got {kernel!r}")
        name, params = parse_kernel_spec(kernel)
        if name == LEARNED:
            return GraphKernel(**{"bandwidths": DEFAULT_BANDWIDTHS, **params})
        return GraphKernel(kernel=name, **params)

    def _check_params(self):
        kernel = self._graph_kernel()
        if self.max_samples is not None:
            check_int(self.max_samples, "max_samples", minimum=10)
        check_int(self.n_landmarks, "n_landmarks", minimum=1)
        check_int(self.block_size, "block_size", minimum=1)
        if not isinstance(self.progress, (bool, np.bool_)):
            raise TypeError(f"progress must be True or False, got {self.progress!r}")
        check_n_jobs(self.n_jobs)
        return kernel

    def fit(self, X, y=None):
        """Fit the kernel (learn the weights), the vocabulary of the exact terms and the
        Nystroem map.

        Parameters
        ----------
        X : sequence of graphs, GraphBatch or TUDataset
        y : array_like of shape (n_graphs,), optional
            Class labels or regression targets; required by the learned default,
            ignored by a fixed kernel.

        Returns
        -------
        self
        """
        self._fit(as_collection(X, "X"), y, keep=False)
        return self

    def _fit(self, X, y, *, keep):
        """:meth:`fit`; returns the exact members' embeddings of ``X`` when ``keep``
        (for :meth:`fit_transform`), else an empty list."""
        kernel = self._check_params()
        learned = kernel.kernel == LEARNED
        n = len(X)
        if n == 0:
            raise ValueError(f"{type(self).__name__}.fit needs at least one graph")
        if learned:
            if y is None:
                raise ValueError("the learned default learns its weights from the training labels: call "
                                 "fit(graphs, y), or name a fixed kernel, e.g. GraphFeatures(\"wl\")")
            y = np.asarray(y)
            if y.shape != (n,):
                raise ValueError(f"y must have one label per graph, shape ({n},), got {y.shape}")
            read_targets(y, task=kernel.get_params().get("task", "auto"))  # before any graph is embedded
        rng = check_seed(self.seed)
        if self.max_samples is None or n <= self.max_samples:
            sample = np.arange(n, dtype=np.int64)
        else:
            sample = np.sort(rng.choice(n, size=self.max_samples, replace=False)).astype(np.int64)
            if learned:
                _check_sample_labels(y, sample, self.max_samples)
        sample_graphs = subset(X, sample)
        kernel = clone(kernel)
        if learned:
            kernel.set_params(max_samples=None)
        elif "seed" in shared_parameters(kernel.kernel, seed=None) and "seed" not in kernel.get_params():
            # a random map of the kernel's own (the mean map's random features): drawn with this seed
            kernel.set_params(seed=int(rng.integers(2**63)))
        if kernel.n_jobs is None:
            kernel.set_params(n_jobs=self.n_jobs)
        with quiet_or_bar(self.progress, total=3, desc="fit", unit="step") as bar:
            kernel.fit(sample_graphs, y[sample] if learned else None)
            self.kernel_ = kernel
            bar.update()
            combination = kernel.combination_ if learned else _OneTerm(kernel.kernel, kernel.functional_)
            self._combination = combination
            exact, approximate = [], []
            for label, parts, shape, weight in combination.chosen:
                functional = combination.functionals.get(parts[0])  # None: an external kernel
                is_exact = len(parts) == 1 and shape == ("power", 1) and (
                    isinstance(functional, CountFeatures) or _is_random_map(functional))
                (exact if is_exact else approximate).append((label, parts, shape, weight))
            # the exact members' vocabulary: the labels of every graph given
            self._exact, kept = [], []
            for label, parts, shape, weight in exact:
                functional = combination.functionals[parts[0]]
                if _is_random_map(functional):
                    self._exact.append(_RandomMember(label, functional, weight))
                    if keep:
                        kept.append(None)
                    continue
                embedded = functional.as_embeddings(X, what="X")
                self._exact.append(_ExactMember(label, functional, embedded, weight))
                if keep:
                    kept.append(embedded)
                del embedded
            bar.update()
            self._approximate = approximate
            self._fit_nystroem(combination, approximate, sample, sample_graphs, rng)
            bar.update()
        self.weights_ = dict(combination.weights)
        self.sample_indices_ = sample
        self.exact_ = [label for label, *_ in exact]
        self.approximate_ = [label for label, *_ in approximate]
        self.exact_weight_ = float(sum(weight for *_, weight in exact))
        self.n_features_out_ = sum(m.n_columns for m in self._exact) + self.normalization_.shape[1]
        self._n_features_out = self.n_features_out_
        return kept

    def _fit_nystroem(self, combination, approximate, sample, sample_graphs, rng):
        members = sorted({p for _, parts, _, _ in approximate for p in parts})
        self._functionals = {name: combination.functionals[name].for_pairs(_FIXED_PAIRS) for name in members
                             if name in combination.functionals}
        # external kernels (GraKeL objects, callables, transformers): their own matrix
        # against the graphs the weights were learned on, of which the landmarks are columns
        self._externals = [name for name in members if name not in combination.functionals]
        if not approximate:
            self.landmark_indices_ = np.zeros(0, dtype=np.int64)
            self.normalization_ = np.zeros((0, 0))
            self._landmarks = {}
            self._landmark_columns = np.zeros(0, dtype=np.int64)
            self.n_landmarks_ = 0
            return
        m = min(check_int(self.n_landmarks, "n_landmarks", minimum=1), len(sample))
        chosen = np.sort(rng.permutation(len(sample))[:m]).astype(np.int64)
        landmarks = subset(sample_graphs, chosen)
        self._landmarks = {name: f.as_embeddings(landmarks, what="X") for name, f in self._functionals.items()}
        self._landmark_columns = chosen
        # the landmarks against themselves by the cross path, as transform computes them
        W = self._rest(self._side(landmarks))
        W = (W + W.T) / 2
        values, vectors = np.linalg.eigh(W)
        keep = values > EIGENVALUE_FLOOR * max(float(values[-1]), 0.0)
        self.normalization_ = vectors[:, keep] / np.sqrt(values[keep])
        self.landmark_indices_ = sample[chosen]
        self.n_landmarks_ = m
        if m < self.n_landmarks and self.n_landmarks != DEFAULT_LANDMARKS:
            warnings.warn(f"{self._landmarks_word}={self.n_landmarks} asked, but the sample holds {len(sample)} graphs: {m} "
                          f"landmarks (every graph of the sample), and {int(keep.sum())} Nystroem columns (one per "
                          f"eigenvalue of their kernel matrix above {EIGENVALUE_FLOOR:g} of the largest; "
                          "n_landmarks_, and the columns get_feature_names_out names nystroem_*)",
                          UserWarning, stacklevel=4)

    def _side(self, block, what="X"):
        """What :meth:`_rest` reads of ``block``: member name -> its embeddings (library
        members) or its matrix against the landmarks (external kernels)."""
        side = {name: f.as_embeddings(block, what=what) for name, f in self._functionals.items()}
        if self._externals:
            crossed = self.kernel_.combination_.external_cross(block, self._externals)
            side.update((name, K[:, self._landmark_columns]) for name, K in crossed.items())
        return side

    def _rest(self, side):
        """The approximated part of the kernel (weighted sum of its terms) of ``side``
        (:meth:`_side`) against the landmarks."""
        grams = {name: pairwise_kernels(side[name], self._landmarks[name], functional=f,
                                        n_jobs=check_n_jobs(self.n_jobs))
                 for name, f in self._functionals.items()}
        grams.update((name, side[name]) for name in self._externals)
        out = None
        for _, parts, shape, weight in self._approximate:
            term = weight * self._combination.term(grams, parts, shape)
            out = term if out is None else out + term
        return out

    # -- features -------------------------------------------------------------------------
    def transform_block(self, block):
        """Features of one block of graphs (sparse CSR, float64); a graph's row does not
        depend on the other graphs of the block. :meth:`transform` and the Dask path
        (:func:`graphinvariants.distributed.features_to_zarr`) call this.

        Parameters
        ----------
        block : sequence of graphs, GraphBatch or TUDataset

        Returns
        -------
        scipy.sparse.csr_array of shape (len(block), n_features)
            ``n_features`` is :attr:`n_features_out_`.
        """
        check_is_fitted(self, "n_features_out_")
        out, unseen = self._block(block)
        self._warn_unseen(out, [unseen], stacklevel=3)
        return out

    def _block(self, block, embedded=None, what="X"):
        """``(features, unseen)``: :meth:`transform_block` without its warning, and per
        graph its label counts (in the exact members) on labels no fitted graph has, all
        of them, and what its row lacks of ``K(G, G)`` for them (an array of shape (3,
        len(block)), see :meth:`transform_with_missing`); ``embedded``: the exact
        members' embeddings of the block when made already (by :meth:`fit`, in
        :meth:`fit_transform`)."""
        unseen = np.zeros((3, len(block)))
        if len(block) == 0:  # an empty partition
            return sp.csr_array((0, self.n_features_out_)), unseen
        if embedded is None:
            embedded = [None] * len(self._exact)
        parts = []
        for member, e in zip(self._exact, embedded):
            rows, *counts = member.features(block, e, what)
            parts.append(rows)
            unseen += counts
        if self._approximate:
            parts.append(sp.csr_array(fixed_shape_product(self._rest(self._side(block, what)), self.normalization_)))
        if not parts:
            return sp.csr_array((len(block), 0)), unseen
        out = parts[0] if len(parts) == 1 else sp.csr_array(sp.hstack(parts, format="csr"))  # (a fresh matrix)
        out.sort_indices()
        return _small_indices(out), unseen

    def _warn_unseen(self, features, unseen, *, stacklevel):
        """One warning for the graphs (rows of ``features``; ``unseen``: :meth:`_block`'s
        counts of every block) more than :data:`UNSEEN_WARNING_SHARE` of whose labels
        are unseen."""
        unseen, total, _ = np.hstack(unseen) if unseen else np.zeros((3, 0))
        mostly = np.flatnonzero(unseen > UNSEEN_WARNING_SHARE * total)
        if not len(mostly):
            return
        rows = features[mostly]
        selves = np.asarray(rows.multiply(rows).sum(axis=1)).reshape(-1)
        warnings.warn(f"{len(mostly)} of the {len(total)} graphs transformed have mostly labels that no graph given "
                      f"to fit has: {unseen[mostly].sum() / total[mostly].sum():.0%} of their label counts in the "
                      f"exactly mapped members {[m.name for m in self._exact if getattr(m, 'labelled', False)]} "
                      "are unseen, and an unseen label adds nothing to a row, "
                      f"so their features' inner products with themselves are {selves.min():.3g} to "
                      f"{selves.max():.3g}, not the kernel's 1; fit on graphs that carry their labels",
                      UserWarning, stacklevel=stacklevel)

    def transform(self, X):
        """Features of ``X``, a block of ``block_size`` graphs at a time.

        Parameters
        ----------
        X : sequence of graphs, GraphBatch or TUDataset

        Returns
        -------
        scipy.sparse.csr_array of shape (len(X), n_features)
            ``n_features`` is :attr:`n_features_out_`.
        """
        check_is_fitted(self, "n_features_out_")
        return self._transform(as_collection(X, "X"))

    def transform_with_missing(self, X, *, what="X"):
        """Features of ``X`` and, per graph, the part of its kernel value with itself
        that its row lacks: the exactly mapped members' labels that no graph given to
        ``fit`` has add nothing to a row, while they count in the norm it is divided by.

        A row's inner product with the row of any graph given to ``fit`` is the exact
        members' kernel value all the same; its inner product with itself is
        ``K(G, G) - missing`` there (for a fixed count kernel, ``1 - missing``), to
        rounding. :class:`~graphinvariants.NearestGraphs` adds it back as a column of
        the query's own, so that a kernel name's distances are ``sqrt(2 - 2 K)``.

        Parameters
        ----------
        X : sequence of graphs, GraphBatch or TUDataset
        what : str, keyword-only, default="X"
            The name errors give the graphs (a caller's own argument name).

        Returns
        -------
        features : scipy.sparse.csr_array of shape (len(X), n_features)
            As :meth:`transform` gives them.
        missing : numpy.ndarray of float64, shape (len(X),)
            0 for a graph all of whose labels were seen at ``fit``; for a member of
            weight ``w``, ``w`` times the share of the graph's squared norm (for an
            assignment kernel, of its count total) on unseen labels, summed over
            members (exact integer ratios, rounded once).

        Examples
        --------
        >>> import networkx as nx
        >>> import graphinvariants as gi
        >>> features = gi.GraphFeatures("wl:n_iter=1").fit([nx.path_graph(4)])
        >>> X, missing = features.transform_with_missing([nx.path_graph(5), nx.star_graph(3)])
        >>> # the path's middle label (2; 2, 2): 1 of its squared norm 22; the star's degree 3,
        >>> # (1; 3) three times and (3; 1, 1, 1): 1 + 9 + 1 of 20
        >>> missing.round(4).tolist()
        [0.0455, 0.55]
        >>> (X.multiply(X).sum(axis=1) + missing).round(12).tolist()
        [1.0, 1.0]
        """
        check_is_fitted(self, "n_features_out_")
        return self._transform(as_collection(X, what), missing=True, what=what)

    def _transform(self, X, embedded=None, missing=False, what="X"):
        n = len(X)
        starts = range(0, n, self.block_size)
        blocks, unseen = [], []
        for start in quiet_or_bar(self.progress, starts, desc="features", unit="block"):
            stop = min(n, start + self.block_size)
            rows = None if embedded is None else [None if e is None else _rows(e, start, stop) for e in embedded]
            block, counts = self._block(subset(X, np.arange(start, stop)), rows, what)
            blocks.append(block)
            unseen.append(counts)
        if not blocks:
            out = sp.csr_array((0, self.n_features_out_))
            return (out, np.zeros(0)) if missing else out
        out = _small_indices(blocks[0] if len(blocks) == 1 else sp.csr_array(sp.vstack(blocks, format="csr")))
        if missing:  # (the search adds what is missing back: no warning)
            return out, np.hstack(unseen)[2]
        self._warn_unseen(out, unseen, stacklevel=5)  # transform is wrapped by scikit-learn's set_output
        return out

    def fit_transform(self, X, y=None):
        """:meth:`fit`, then :meth:`transform` of the same graphs: the same rows, bit for
        bit, but the exact members embed the graphs once (``fit`` embeds them all for
        the vocabulary; their rows are taken from those embeddings, which stay in
        memory until the rows are made: on 90,000 Mutagenicity copies 2.97 GiB peak
        instead of 2.50, below the 3.2 GiB that ``LinearSVC`` then takes on them)."""
        if self._streams(y):
            return self._fit_transform_stream(X)
        X = as_collection(X, "X")
        embedded = self._fit(X, y, keep=True)
        return self._transform(X, embedded)

    # -- a fit that streams ---------------------------------------------------------------
    def _streams(self, y):
        """Whether :meth:`fit_transform` streams: a fixed Weisfeiler-Lehman kernel
        (``"wl"``, ``"wl_label"``, ``"wl_edge_label"``, without closed walks), whose
        vocabulary grows batch by batch
        (:class:`~graphinvariants.embeddings.wl_vocabulary.GrowingVocabulary`)."""
        from ..embeddings.wl import WeisfeilerLehman

        kernel = self._check_params()
        if kernel.kernel == LEARNED or not isinstance(kernel.kernel, str) or "*" in kernel.kernel or (
                "+" in kernel.kernel):
            return False
        try:
            functional = kernel._functional([])
        except Exception:  # (refused parameters: the one-batch path says why)
            return False
        return type(functional) is WeisfeilerLehman and not functional.closed_walks

    def _fit_transform_stream(self, X):
        """:meth:`fit_transform` a block of ``block_size`` graphs at a time, over any
        iterable: each block is embedded, its new labels join the vocabulary (columns
        in first-seen order) and its rows are kept (CSR, int32 columns); at the end the
        columns are renumbered as one batch of all the graphs numbers them, so the rows
        and the fitted map are those of the one-batch fit, bit for bit. The kernel is
        fitted on the sample a sized collection draws as :meth:`fit` does, or on the
        first ``max_samples`` graphs of an iterable without a length (its
        ``sample_indices_``; no row depends on it). Nothing per graph is kept but its
        row."""

        kernel = clone(self._check_params())
        rng = check_seed(self.seed)
        sized = hasattr(X, "__len__") and hasattr(X, "__getitem__")
        if sized:
            X = as_collection(X, "X")
            n = len(X)
            if n == 0:
                raise ValueError(f"{type(self).__name__}.fit needs at least one graph")
            if self.max_samples is None or n <= self.max_samples:
                sample = np.arange(n, dtype=np.int64)
            else:
                sample = np.sort(rng.choice(n, size=self.max_samples, replace=False)).astype(np.int64)
            blocks = (subset(X, np.arange(a, min(n, a + self.block_size))) for a in range(0, n, self.block_size))
        else:
            check_not_single_graph(X, "X")
            if isinstance(X, (str, bytes)) or not hasattr(X, "__iter__"):
                raise TypeError(f"X must be a collection or an iterable of graphs, got {X!r}")
            blocks = _blocks(iter(X), self.block_size, self.max_samples)
        first = next(blocks, None)
        if first is None or len(first) == 0:
            raise ValueError(f"{type(self).__name__}.fit needs at least one graph")
        if not sized:
            sample = np.arange(min(len(first), self.max_samples or len(first)), dtype=np.int64)
        sample_graphs = subset(X if sized else first, sample)
        if kernel.n_jobs is None:
            kernel.set_params(n_jobs=self.n_jobs)
        kernel.fit(sample_graphs)
        self.kernel_ = kernel
        combination = _OneTerm(kernel.kernel, kernel.functional_)
        (label, parts, _, weight), = combination.chosen
        functional = combination.functionals[parts[0]]
        vocabulary = GrowingVocabulary(functional)
        member = None
        pieces, n_rows = [], 0
        for block in quiet_or_bar(self.progress, itertools.chain([first], blocks), desc="fit", unit="block"):
            embedded = functional.as_embeddings(block, what="X")
            counts = vocabulary.counts(embedded)
            if member is None:  # a row's values depend on its own counts only
                member = _ExactMember(label, functional, embedded, weight)
            embedded.counts = counts
            rows, *_ = member.features(block, embedded)
            rows = sp.csr_array(rows)
            pieces.append((rows.data, rows.indices.astype(np.int32), np.diff(rows.indptr).astype(np.int64)))
            n_rows += rows.shape[0]
            del embedded, counts, rows
        fitted, place = vocabulary.canonical()
        del vocabulary
        self._combination = combination
        self._exact = [_ExactMember(label, functional, fitted, weight)]
        self._approximate = []
        self._fit_nystroem(combination, [], sample, sample_graphs, rng)
        self.weights_ = dict(combination.weights)
        self.sample_indices_ = sample
        self.exact_ = [label]
        self.approximate_ = []
        self.exact_weight_ = float(weight)
        self.n_features_out_ = self._exact[0].n_columns
        self._n_features_out = self.n_features_out_
        return renumbered_rows(pieces, place.astype(np.int32), n_rows, self.n_features_out_)

    def get_feature_names_out(self, input_features=None):
        """Names of the output's columns: ``{member}_{j}`` for the ``j``-th column of an
        exactly mapped member (its ``j``-th fitted label, in the vocabulary's order),
        then ``nystroem_{j}`` for the Nystroem part's columns (as many as the landmarks'
        matrix has eigenvalues kept, at most :attr:`n_landmarks_`).

        Returns
        -------
        numpy.ndarray of str, one name per column of the output

        Examples
        --------
        >>> import networkx as nx
        >>> import graphinvariants as gi
        >>> graphs = [nx.path_graph(n) for n in range(3, 9)]
        >>> gi.GraphFeatures("wl:n_iter=1").fit(graphs).get_feature_names_out()[:3].tolist()
        ['wl_0', 'wl_1', 'wl_2']
        """
        check_is_fitted(self, "n_features_out_")
        names = [f"{m.name}_{j}" for m in self._exact for j in range(m.n_columns)]
        names += [f"nystroem_{j}" for j in range(self.normalization_.shape[1])]
        return np.asarray(names, dtype=object)

    def digest(self):
        """SHA-256 hex digest of what makes this fitted map's rows: its class, its
        parameters (not ``n_jobs``, ``progress`` or ``block_size``, which change no
        row) and its fitted state (weights, the exact members' vocabularies, the
        landmarks' embeddings and the Nystroem normalisation). Two maps with one
        digest give the same rows; a Zarr store records the digest of the map that
        wrote it (:func:`~graphinvariants.distributed.features_to_zarr`), and
        :class:`~graphinvariants.NearestGraphs` refuses to search it with another.

        Returns
        -------
        str

        Examples
        --------
        >>> import networkx as nx
        >>> import graphinvariants as gi
        >>> graphs = [nx.path_graph(n) for n in range(3, 9)]
        >>> a, b = gi.GraphFeatures("wl").fit(graphs), gi.GraphFeatures("wl").fit(graphs)
        >>> a.digest() == b.digest(), a.digest() == gi.GraphFeatures("wl").fit(graphs[:3]).digest()
        (True, False)
        """
        from ..graphs.identity import content_digest

        check_is_fitted(self, "n_features_out_")
        params = {k: v for k, v in self.get_params(deep=False).items() if k not in ("n_jobs", "progress", "block_size")}
        # objects by their attributes (their pickled bytes depend on how they were made)
        members = [(type(x).__name__, vars(x)) for x in
                   (m.probe if hasattr(m, "probe") else m.functional for m in self._exact)]
        landmarks = {name: (type(x).__name__, vars(x)) for name, x in self._landmarks.items()}
        return content_digest(type(self).__name__, params, self.n_features_out_, self.weights_, self.exact_,
                              self.approximate_, members, [m.scale for m in self._exact], self.normalization_,
                              landmarks, self.landmark_indices_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.requires_fit = True
        tags.target_tags.required = self.kernel == LEARNED or (
            isinstance(self.kernel, GraphKernel) and self.kernel.kernel == LEARNED)
        tags.non_deterministic = self.seed is None
        return tags


def _blocks(items, size, first_size):
    """Lists of ``size`` items of an iterator (the first one of at least ``first_size``)."""
    block = list(itertools.islice(items, max(size, first_size or 0)))
    while block:
        yield block
        block = list(itertools.islice(items, size))


def _rows(embedded, start, stop):
    """Graphs ``start:stop`` of a batch of count embeddings: the same vocabulary, their
    rows of the counts. Merged with a member's fitted vocabulary (which holds every
    label of these graphs) they give the counts, hence the rows, that embedding the
    graphs alone gives: the merged vocabulary is the same sorted set of labels."""
    piece = copy.copy(embedded)
    piece.counts = sp.csr_array(embedded.counts[start:stop])
    return piece


def _row_gcd(indptr, count):
    """Greatest common divisor of every row's counts (the entries ``indptr[g]:indptr[g +
    1]`` of ``count``, integral floats; 1 for an empty row), as float64."""
    out = np.ones(len(indptr) - 1)
    lengths = indptr[1:] - indptr[:-1]
    full = np.flatnonzero(lengths)
    if len(full):
        values = np.abs(count.astype(np.int64))
        out[full] = np.gcd.reduceat(values, indptr[:-1][full]).astype(np.float64)
    return np.maximum(out, 1.0)


def _small_indices(matrix):
    """``matrix`` with int32 indices where they fit (scikit-learn's linear models
    refuse int64 ones)."""
    limit = _INT32_MAX
    if matrix.nnz <= limit and max(matrix.shape) <= limit:
        matrix.indices = matrix.indices.astype(np.int32, copy=False)
        matrix.indptr = matrix.indptr.astype(np.int32, copy=False)
    return matrix


def _check_sample_labels(y, sample, max_samples):
    try:
        one_value = len(np.unique(y[sample])) < 2 and len(np.unique(y)) >= 2
    except TypeError:
        return
    if one_value:
        raise ValueError(f"the max_samples={max_samples} graphs drawn (with seed) to learn the weights on "
                         f"hold a single label value, {python_scalar(y[sample[0]])!r}, though y has more; raise "
                         "max_samples or try another seed")
