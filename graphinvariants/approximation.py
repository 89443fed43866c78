"""Explicit feature maps that approximate a graph kernel.

Inner products of the features approximate the kernel, so a linear model
(:class:`sklearn.svm.LinearSVC`, :class:`sklearn.linear_model.SGDClassifier`) trained
on them stands in for a kernel SVM, in time linear in the number of graphs rather than
quadratic.

* :class:`NystroemGraphKernel` is :class:`sklearn.kernel_approximation.Nystroem` for
  graphs, for any kernel: ``n_components`` training graphs are the landmarks, and a
  graph's features are its kernel values against them times ``K_mm^{-1/2}``.
* :class:`MeanMapFeatures` is the explicit random-feature map of the ``"meanmap"``
  kernel (as :class:`sklearn.kernel_approximation.RBFSampler` is for the RBF kernel):
  no landmarks, and its inner products are that kernel with ``n_features`` (to rounding).
"""

import numbers
import warnings
from collections.abc import Sequence

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._utils.validation import check_int, check_k, check_n_jobs, check_seed, refuses_random_state, warn_deprecated
from .graphs import GraphBatch
from .graphs.adjacency import graph_library
from .graphs.batch import check_not_single_graph
from .embeddings.meanmap import PROFILES, MeanMap
from .kernels import make_functional, pairwise_kernels
from .kernels.registry import DEFAULT_KERNEL, parse_kernel_spec

__all__ = ["MeanMapFeatures", "NystroemGraphKernel"]

#: Eigenvalues of the landmarks' kernel matrix are clipped from below at this value
#: before the inverse square root, as in scikit-learn's Nystroem.
_EIGENVALUE_FLOOR = 1e-12


class _RandomGraphFeatures(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Base of the transformers from graphs to random features: their input is a
    collection of graphs (not a 2-D array), they are fitted before use, and they are
    random unless ``seed`` is given."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.requires_fit = True
        tags.non_deterministic = self.seed is None
        return tags


class NystroemGraphKernel(_RandomGraphFeatures):
    """Approximate a graph kernel with features from a subset of the training graphs.

    ``fit(graphs)`` draws ``n_components`` of the training graphs at random (the
    landmarks), computes their kernel matrix ``K_mm`` and keeps
    ``normalization_ = K_mm^{-1/2}`` (by SVD, eigenvalues below ``1e-12`` clipped, as in
    :class:`sklearn.kernel_approximation.Nystroem`). ``transform(graphs)`` returns the
    ``(len(graphs), n_components)`` features ``K(graphs, landmarks) @ normalization_.T``,
    whose inner products approximate the kernel; with every training graph as a
    landmark they reproduce the training kernel matrix.

    Parameters
    ----------
    kernel : str, default="power"
        A kernel name as for :func:`~graphinvariants.kernel_matrix`, combinations
        such as ``"power*histogram"`` included.
    n_components : int, default=100
        Number of landmark graphs. More than the number of training graphs gives a
        warning and uses all of them.
    k : int, default=5
        Number of power iterations, given to every member of the kernel that takes
        it (``power``, ``histogram``); kernels without it (``wl``) ignore it.
    kernel_params : dict or None, default=None
        Other parameters of the kernel, for example ``{"ridge": 1e-10}`` or
        ``{"weight": "weight"}`` (``k`` goes in its own parameter).
    seed : None, int or numpy.random.Generator, default=None
        Draws the landmarks. An int gives the same landmarks at every fit; a Generator
        is used as it is and advanced (so two fits differ); ``None`` draws fresh
        entropy. A legacy ``numpy.random.RandomState``, which scikit-learn accepts,
        is refused: pass ``np.random.default_rng(seed)`` or an int.
    n_jobs : int or None, default=None
        Worker threads for the kernel values (``-1``: all cores).

    Attributes
    ----------
    functional_ : Functional
        The kernel's functional, made once at ``fit`` and used by ``transform``: its
        random parameters (``"meanmap"`` with ``seed`` None or a Generator in
        ``kernel_params``) are drawn once, so the features of every call share them.
    components_ : embeddings batch
        Embeddings of the landmark graphs (a :class:`~graphinvariants.GaussianBatch`
        for ``"power"``).
    component_indices_ : numpy.ndarray of int64, shape (m,), m = ``n_components_``
        Positions of the landmarks in the training collection.
    normalization_ : numpy.ndarray of shape (m, m), m = ``n_components_``
        ``K_mm^{-1/2}``.
    n_components_ : int
        Number of landmarks actually used.

    See Also
    --------
    PowerKernel : the exact kernel matrix, for ``SVC(kernel="precomputed")``.
    sklearn.kernel_approximation.Nystroem : the same for vectors.

    Examples
    --------
    >>> import networkx as nx
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.svm import LinearSVC
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(20)]
    >>> graphs += [nx.barabasi_albert_graph(30, 2, seed=i) for i in range(20)]
    >>> y = [0] * 20 + [1] * 20
    >>> nystroem = gi.NystroemGraphKernel(n_components=10, seed=0)
    >>> nystroem.fit_transform(graphs).shape
    (40, 10)
    >>> model = make_pipeline(gi.NystroemGraphKernel(n_components=10, seed=0), LinearSVC())
    >>> model.fit(graphs[::2], y[::2]).score(graphs[1::2], y[1::2])
    1.0
    """

    @refuses_random_state
    def __init__(self, *, kernel=DEFAULT_KERNEL, n_components=100, k=5, kernel_params=None, seed=None, n_jobs=None):
        warn_deprecated("NystroemGraphKernel", "GraphFeatures(kernel, n_landmarks=m) (for "
                                               "NystroemGraphKernel(kernel=kernel, n_components=m))")
        self.kernel = kernel
        self.n_components = n_components
        self.k = k
        self.kernel_params = kernel_params
        self.seed = seed
        self.n_jobs = n_jobs

    def _functional(self):
        params = self.kernel_params
        if params is None:
            params = {}
        elif not isinstance(params, dict):
            raise TypeError(f"kernel_params must be None or a dict, got {params!r}")
        if "k" in params:
            raise ValueError("give k as NystroemGraphKernel(k=...), not in kernel_params")
        if isinstance(self.kernel, str) and "k" in parse_kernel_spec(self.kernel)[1]:
            raise ValueError(f"kernel={self.kernel!r} spells k in its name; give it as NystroemGraphKernel(k=...)")
        k = check_k(self.k)
        without_k = make_functional(self.kernel, **params)  # checks the name and the other parameters
        members = getattr(without_k, "functionals", (without_k,))  # a combination's members
        if not any(hasattr(member, "k") for member in members):
            return without_k  # no member takes k (e.g. "wl")
        return make_functional(self.kernel, k=k, **params)

    def fit(self, X, y=None):
        """Draw the landmarks and compute the normalisation ``K_mm^{-1/2}``.

        Parameters
        ----------
        X : collection of graphs
            A sequence of graphs, a GraphBatch, a TUDataset, or precomputed
            embeddings of the kernel's functional.
        y : ignored

        Returns
        -------
        self

        Warns
        -----
        UserWarning
            If ``n_components`` is larger than the number of graphs.
        """
        functional = self._functional()
        n_components = check_int(self.n_components, "n_components", minimum=1)
        n_jobs = check_n_jobs(self.n_jobs)
        rng = check_seed(self.seed)
        source, n_samples = _training_collection(functional, X)
        if n_samples == 0:
            raise ValueError("NystroemGraphKernel.fit needs at least one graph")
        if n_components > n_samples:
            warnings.warn(
                f"n_components={n_components} > n_samples={n_samples}. This is not possible.\n"
                "n_components was set to n_samples, which results in inefficient evaluation "
                "of the full kernel.",
                UserWarning,
                stacklevel=2,
            )
            n_components = n_samples
        indices = rng.permutation(n_samples)[:n_components].astype(np.int64)
        landmarks = _take(functional, source, indices)
        K_mm = pairwise_kernels(landmarks, functional=functional, n_jobs=n_jobs)
        U, S, Vt = np.linalg.svd(K_mm)
        S = np.maximum(S, _EIGENVALUE_FLOOR)
        self.normalization_ = (U / np.sqrt(S)) @ Vt
        self.functional_ = functional
        self.components_ = landmarks
        self.component_indices_ = indices
        self.n_components_ = n_components
        self._n_features_out = n_components
        return self

    def fit_transform(self, X, y=None):
        """:meth:`fit` then :meth:`transform` on the same graphs, read once (so a
        one-shot iterator works too).

        Parameters
        ----------
        X : collection of graphs
            As for :meth:`fit`.
        y : ignored

        Returns
        -------
        numpy.ndarray of shape (n_graphs, m), m = ``n_components_``
        """
        if not isinstance(X, (Sequence, GraphBatch)) and hasattr(X, "__next__"):
            X = list(X)
        return self.fit(X, y).transform(X)

    def transform(self, X):
        """Features of ``X``, shape ``(len(X), n_components_)``.

        Parameters
        ----------
        X : collection of graphs
            As for :meth:`fit`.

        Returns
        -------
        numpy.ndarray of shape (n_graphs, m), m = ``n_components_``
        """
        check_is_fitted(self, "normalization_")
        # the fitted functional, not a new one: a new MeanMap seeded by None would draw
        # another random map than the landmarks were embedded with
        C = pairwise_kernels(X, self.components_, functional=self.functional_, n_jobs=check_n_jobs(self.n_jobs))
        return C @ self.normalization_.T


def _training_collection(functional, X):
    """``(source, n)``: graphs (a GraphBatch, or a list of graphs) when ``X`` holds graphs,
    so that only the landmarks are embedded; otherwise its embeddings."""
    if isinstance(X, GraphBatch):
        return X, len(X)
    if isinstance(getattr(X, "batch", None), GraphBatch):
        return X.batch, len(X.batch)
    if not isinstance(X, functional.batch_type):
        if not isinstance(X, Sequence) or isinstance(X, (str, bytes)):
            check_not_single_graph(X, "X")
            X = list(X)  # a one-shot iterator: read it once
        if len(X) and all(graph_library(item) is not None for item in X):
            return list(X), len(X)
    embedded = functional.as_embeddings(X, what="X")
    return embedded, len(embedded)


def _take(functional, source, indices):
    """Embeddings of the items of ``source`` at ``indices``."""
    if isinstance(source, GraphBatch):
        return functional.as_embeddings(source.take(indices), what="X")
    if isinstance(source, list):
        return functional.as_embeddings([source[i] for i in indices], what="X")
    if hasattr(source, "take"):
        return source.take(indices)
    arrays = functional.to_arrays(source)
    if arrays is None:
        raise TypeError(
            f"precomputed {type(source).__name__} embeddings cannot be subset; pass the graphs instead"
        )
    return functional.from_arrays({key: value[indices] for key, value in arrays.items()})


class MeanMapFeatures(_RandomGraphFeatures):
    """Random Fourier features of the mean-map kernel, for linear models.

    A graph's features are the mean, over its nodes, of ``n_features`` random Fourier
    features of the node profiles (:class:`~graphinvariants.embeddings.MeanMap` with
    ``n_features``), scaled to unit length. Their inner products are, to rounding,
    ``kernel_matrix(graphs, kernel="meanmap", n_features=..., seed=...)``
    with the same parameters and an int ``seed``, and approach the exact mean-map
    kernel as ``n_features`` grows. Unlike :class:`NystroemGraphKernel`, ``fit`` needs no
    training graphs: it draws the random map, and ``transform`` costs one pass over
    each graph's nodes.

    Parameters
    ----------
    k : int, default=5
        Number of power iterations (length of each node's profile).
    n_features : int, default=500
        Number of random Fourier features ``D``.
    profile : {"log", "l1", "counts"}, default="log"
        Node profiles, as for :class:`~graphinvariants.embeddings.MeanMap`.
    bandwidth : float, default=1.0
        RBF bandwidth of the base kernel between node profiles.
    column_weights : array_like of shape (k,), optional
        Multiplies column ``t`` of the profiles before the base kernel.
    weight : str or None, default=None
        Edge attribute used as weight.
    seed : None, int or numpy.random.Generator, default=None
        Draws the random map at ``fit``. An int gives the same map at every fit; a
        Generator is advanced (two fits differ); ``None`` draws fresh entropy.

    Attributes
    ----------
    functional_ : graphinvariants.embeddings.MeanMap
        The fitted functional; its :meth:`~graphinvariants.embeddings.MeanMap.random_map`
        is the map.
    random_weights_ : numpy.ndarray of shape (k, n_features)
        Frequencies ``W`` of the map.
    random_offset_ : numpy.ndarray of shape (n_features,)
        Phases ``b`` of the map.

    See Also
    --------
    NystroemGraphKernel : features for any kernel, from landmark graphs.
    sklearn.kernel_approximation.RBFSampler : the same construction for vectors.

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.svm import LinearSVC
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(20)]
    >>> graphs += [nx.barabasi_albert_graph(30, 2, seed=i) for i in range(20)]
    >>> y = [0] * 20 + [1] * 20
    >>> features = gi.MeanMapFeatures(n_features=200, seed=0).fit_transform(graphs)
    >>> features.shape
    (40, 200)
    >>> K = gi.kernel_matrix(graphs, kernel="meanmap", n_features=200, seed=0)
    >>> bool(np.allclose(features @ features.T, K, atol=1e-12))
    True
    >>> model = make_pipeline(gi.MeanMapFeatures(n_features=200, seed=0), LinearSVC())
    >>> model.fit(graphs[::2], y[::2]).score(graphs[1::2], y[1::2])
    1.0
    """

    @refuses_random_state
    def __init__(self, *, k=5, n_features=500, profile="log", bandwidth=1.0, column_weights=None, weight=None,
                 seed=None):
        warn_deprecated("MeanMapFeatures", "GraphFeatures('meanmap:n_features=D', seed=...) (for "
                                           "MeanMapFeatures(n_features=D))")
        self.k = k
        self.n_features = n_features
        self.profile = profile
        self.bandwidth = bandwidth
        self.column_weights = column_weights
        self.weight = weight
        self.seed = seed

    def fit(self, X=None, y=None):
        """Check the parameters and draw the random map.

        Parameters
        ----------
        X : ignored
            Accepted for the scikit-learn API (a Pipeline passes the training graphs).
        y : ignored

        Returns
        -------
        self
        """
        n_features = check_int(self.n_features, "n_features", minimum=1)
        if self.profile not in PROFILES:
            raise ValueError(f"profile must be one of {PROFILES}, got {self.profile!r}")
        rng = check_seed(self.seed)
        seed = self.seed if isinstance(self.seed, numbers.Integral) else int(rng.integers(2**63))
        self.functional_ = MeanMap(
            self.k, profile=self.profile, bandwidth=self.bandwidth, column_weights=self.column_weights,
            n_features=n_features, seed=seed, weight=self.weight,
        )
        self.random_weights_, self.random_offset_ = self.functional_.random_map()
        self._n_features_out = n_features
        return self

    def transform(self, X):
        """Unit-length mean random features of ``X``.

        Parameters
        ----------
        X : collection of graphs
            A sequence of graphs, a GraphBatch, a TUDataset, or embeddings of
            :attr:`functional_` (a ``MeanMapBatch`` with the same parameters).

        Returns
        -------
        numpy.ndarray of shape (n_graphs, n_features)
        """
        check_is_fitted(self, "functional_")
        return self.functional_.features(self.functional_.as_embeddings(X, what="X"))
