"""The 0.2 names of the feature map, deprecated in 0.3.0, removed in 0.4.0.

Each is :class:`~graphinvariants.GraphFeatures` under its old name and parameters: the
same fit, the same rows, no code of its own but the mapping of its parameters onto
``GraphFeatures``' (and of ``GraphFeatures``' fitted attributes onto its documented
ones). Constructing one warns with :class:`FutureWarning`, and so does reading its name
from the package (``gi.NystroemGraphKernel``: a module ``__getattr__``).

==============================================================  ==============================================
0.2                                                             0.3
==============================================================  ==============================================
``NystroemGraphKernel(kernel=name, n_components=m, k=k,         ``GraphFeatures(GraphKernel(kernel=name, k=k,
kernel_params=p)``                                              **p), n_landmarks=m, max_samples=None)``
``MeanMapFeatures(k=k, n_features=D, ...)``                     ``GraphFeatures("meanmap:n_features=D", ...)``
``LearnedFeatures(n_components=m)``                             ``GraphFeatures(n_landmarks=m)``
==============================================================  ==============================================

What changed with the one implementation: ``NystroemGraphKernel`` maps a count kernel
(``"wl"``, ``"histogram"``) exactly, one column per label, as ``GraphFeatures`` does,
rather than by ``n_components`` landmarks; its Nystroem columns are ``K(X, landmarks)
U S^{-1/2}`` (one per eigenvalue of the landmarks' matrix above ``1e-12`` of the
largest), a rotation of 0.2's ``K(X, landmarks) K_mm^{-1/2}`` with the same inner
products; and its columns are named as ``GraphFeatures`` names them. ``MeanMapFeatures``
reads the graphs given to ``fit``, and ``transform`` takes graphs (as 0.2) and the
``MeanMapBatch`` of its fitted functional.
"""

import numbers

from sklearn.utils.validation import check_is_fitted

from .._utils.validation import check_int, check_k, refuses_random_state, warn_deprecated
from ..embeddings.meanmap import PROFILES
from ..estimator import GraphKernel
from ..kernels import make_functional
from ..kernels.registry import DEFAULT_KERNEL, LEARNED, parse_kernel_spec
from .maps import DEFAULT_BANDWIDTHS, DEFAULT_LANDMARKS, GraphFeatures, as_collection

__all__ = ["DEPRECATED", "LearnedFeatures", "MeanMapFeatures", "NystroemGraphKernel"]

#: Deprecated name -> what replaces it: the warning at construction, and the one
#: ``graphinvariants.__getattr__`` gives when the name is read from the package.
DEPRECATED = {
    "NystroemGraphKernel": "GraphFeatures(kernel, n_landmarks=m) (for NystroemGraphKernel(kernel=kernel, "
                           "n_components=m))",
    "MeanMapFeatures": "GraphFeatures('meanmap:n_features=D,seed=s') (for MeanMapFeatures(n_features=D, "
                       "seed=s): the same features)",
    "LearnedFeatures": "GraphFeatures (the same map; LearnedFeatures(n_components=m) is "
                       "GraphFeatures(n_landmarks=m))",
}


class _DenseFeatures(GraphFeatures):
    """``GraphFeatures`` whose rows come as a dense array, as 0.2's maps gave them
    (their documented return type), on every graph of ``fit`` (no sample)."""

    max_samples = None
    block_size = 4096
    progress = False

    def transform(self, X):
        """Features of ``X``, a dense ``numpy.ndarray`` of shape ``(len(X), n_features_out_)``."""
        check_is_fitted(self, "n_features_out_")
        return self._transform(as_collection(X, "X")).toarray()

    def fit_transform(self, X, y=None):
        """:meth:`fit`, then :meth:`transform` of the same graphs (read once)."""
        X = as_collection(X, "X")
        return self._transform(X, self._fit(X, y, keep=True)).toarray()

    @property
    def functional_(self):
        """The fitted kernel's functional (``kernel_.functional_``)."""
        return self.kernel_.functional_


class _ComponentsCountLandmarks:
    """0.2's ``n_components``, which counted landmarks: ``GraphFeatures``' ``n_landmarks``
    under its old name (a mixin, before the ``GraphFeatures`` it renames)."""

    _landmarks_word = "n_components"

    @property
    def n_landmarks(self):
        return self.n_components

    @property
    def n_components_(self):
        """Landmarks used (``n_landmarks_``), under the 0.2 name."""
        check_is_fitted(self, "n_features_out_")
        return self.n_landmarks_

    def _check_params(self):
        check_int(self.n_components, "n_components", minimum=1)
        return super()._check_params()


class NystroemGraphKernel(_ComponentsCountLandmarks, _DenseFeatures):
    """Deprecated: :class:`~graphinvariants.GraphFeatures` of a named kernel, under its 0.2 name.

    .. deprecated:: 0.3.0
       ``NystroemGraphKernel(kernel=name, n_components=m)`` is ``GraphFeatures(name,
       n_landmarks=m)`` (its ``n_components`` counted landmarks); the name goes in
       0.4.0. Construction warns with :class:`FutureWarning`.

    Parameters
    ----------
    kernel : str, default="power"
        A kernel name as for :func:`~graphinvariants.kernel_matrix`, combinations
        such as ``"power*histogram"`` included.
    n_components : int, default=100
        Landmark graphs of the Nystroem part, drawn among every graph given to ``fit``
        (more than there are: a warning, and every graph is one).
    k : int, default=5
        Number of power iterations, given to every member of the kernel that takes it;
        kernels without it (``wl``) ignore it.
    kernel_params : dict or None, default=None
        Other parameters of the kernel (``k`` goes in its own parameter).
    seed : None, int or numpy.random.Generator, default=None
        Draws the landmarks, as ``GraphFeatures``' ``seed``.
    n_jobs : int or None, default=None
        Threads of the pair engine.

    Attributes
    ----------
    functional_ : Functional
        The fitted kernel's functional.
    components_ : embeddings batch or None
        Embeddings of the landmarks (None when the kernel is mapped exactly).
    component_indices_ : numpy.ndarray of int64
        Positions of the landmarks in the graphs given to ``fit``.
    n_components_ : int
        Landmarks used.
    normalization_ : numpy.ndarray of shape (m, r)
        ``U S^{-1/2}`` of the landmarks' matrix ``K_mm = U S U^T``.

    Examples
    --------
    >>> import warnings
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(20)]
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     old = gi.NystroemGraphKernel(n_components=10, seed=0)
    >>> old.fit_transform(graphs).shape
    (20, 10)
    """

    @refuses_random_state
    def __init__(self, *, kernel=DEFAULT_KERNEL, n_components=100, k=5, kernel_params=None, seed=None, n_jobs=None):
        warn_deprecated("NystroemGraphKernel", DEPRECATED["NystroemGraphKernel"])
        self.kernel = kernel
        self.n_components = n_components
        self.k = k
        self.kernel_params = kernel_params
        self.seed = seed
        self.n_jobs = n_jobs

    def _graph_kernel(self):
        """``GraphKernel(kernel=kernel, k=k, **kernel_params)``, ``k`` given only if a
        member takes it."""
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
        functional = make_functional(self.kernel, **params)  # checks the name and the other parameters
        members = getattr(functional, "functionals", (functional,))  # a combination's members
        takes_k = any(hasattr(member, "k") for member in members)
        return GraphKernel(kernel=self.kernel, **params, **({"k": k} if takes_k else {}))

    @property
    def components_(self):
        check_is_fitted(self, "n_features_out_")
        return next(iter(self._landmarks.values()), None)

    @property
    def component_indices_(self):
        check_is_fitted(self, "n_features_out_")
        return self.landmark_indices_


class MeanMapFeatures(_DenseFeatures):
    """Deprecated: :class:`~graphinvariants.GraphFeatures` of the mean map with random
    features, under its 0.2 name.

    .. deprecated:: 0.3.0
       ``MeanMapFeatures(n_features=D)`` is ``GraphFeatures("meanmap:n_features=D")``;
       the name goes in 0.4.0. Construction warns with :class:`FutureWarning`.

    A graph's features are the mean, over its nodes, of ``n_features`` random Fourier
    features of its node profiles, scaled to unit length: their inner products are
    ``kernel_matrix(graphs, kernel="meanmap", n_features=..., seed=...)`` with the same
    parameters and an int ``seed`` (to rounding).

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
        The random map: an int is the mean map's own seed; a Generator (advanced) or
        None draws one at ``fit``.

    Attributes
    ----------
    functional_ : graphinvariants.embeddings.MeanMap
        The fitted functional; its ``random_map()`` is the map.
    random_weights_ : numpy.ndarray of shape (k, n_features)
        Frequencies ``W`` of the map.
    random_offset_ : numpy.ndarray of shape (n_features,)
        Phases ``b`` of the map.

    Examples
    --------
    >>> import warnings
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(10)]
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     F = gi.MeanMapFeatures(n_features=200, seed=0).fit_transform(graphs)

    The same features under the 0.3 name, the int seed being the mean map's own:

    >>> new = gi.GraphFeatures("meanmap:n_features=200,seed=0")
    >>> F.shape, bool((new.fit_transform(graphs) == F).all())
    ((10, 200), True)
    """

    kernel = "meanmap"
    n_landmarks = DEFAULT_LANDMARKS  # unused: random features are mapped exactly

    @refuses_random_state
    def __init__(self, *, k=5, n_features=500, profile="log", bandwidth=1.0, column_weights=None, weight=None,
                 seed=None):
        warn_deprecated("MeanMapFeatures", DEPRECATED["MeanMapFeatures"])
        self.k = k
        self.n_features = n_features
        self.profile = profile
        self.bandwidth = bandwidth
        self.column_weights = column_weights
        self.weight = weight
        self.seed = seed

    n_jobs = None

    def _graph_kernel(self):
        """``GraphKernel(kernel="meanmap", ...)``; an int ``seed`` is the mean map's own
        (so the features are ``kernel_matrix(..., seed=seed)``'s), else GraphFeatures
        draws one."""
        n_features = check_int(self.n_features, "n_features", minimum=1)
        if self.profile not in PROFILES:
            raise ValueError(f"profile must be one of {PROFILES}, got {self.profile!r}")
        own = {"seed": self.seed} if isinstance(self.seed, numbers.Integral) else {}
        return GraphKernel(kernel="meanmap", k=self.k, n_features=n_features, profile=self.profile,
                           bandwidth=self.bandwidth, column_weights=self.column_weights, weight=self.weight, **own)

    @property
    def random_weights_(self):
        return self.functional_.random_map()[0]

    @property
    def random_offset_(self):
        return self.functional_.random_map()[1]


class LearnedFeatures(_ComponentsCountLandmarks, GraphFeatures):
    """Deprecated: :class:`~graphinvariants.GraphFeatures` of the learned default, under its 0.2 name.

    .. deprecated:: 0.3.0
       ``LearnedFeatures(n_components=m)`` is ``GraphFeatures(n_landmarks=m)`` (its
       ``n_components`` counted landmarks, not the output's columns, as scikit-learn's
       word means); the name goes in 0.4.0. Construction warns with
       :class:`FutureWarning`.

    Parameters
    ----------
    kernel : GraphKernel or None, default=None
        The learned default (None: ``GraphKernel(bandwidths=())``).
    n_components : int, default=300
        Landmarks of the Nystroem part (``GraphFeatures``' ``n_landmarks``).
    max_samples, block_size, progress, seed, n_jobs
        As for :class:`~graphinvariants.GraphFeatures`.

    Examples
    --------
    >>> import warnings
    >>> import graphinvariants as gi
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     old = gi.LearnedFeatures(n_components=50)
    >>> caught[0].category.__name__, old.n_landmarks
    ('FutureWarning', 50)
    """

    @refuses_random_state
    def __init__(self, *, kernel=None, max_samples=1000, n_components=300, block_size=4096, progress=False,
                 seed=None, n_jobs=None):
        warn_deprecated("LearnedFeatures", DEPRECATED["LearnedFeatures"])
        self.kernel = kernel
        self.max_samples = max_samples
        self.n_components = n_components
        self.block_size = block_size
        self.progress = progress
        self.seed = seed
        self.n_jobs = n_jobs

    def _graph_kernel(self):
        kernel = GraphKernel(bandwidths=DEFAULT_BANDWIDTHS) if self.kernel is None else self.kernel
        if not isinstance(kernel, GraphKernel):
            raise TypeError(f"kernel must be None or a GraphKernel, got {kernel!r}")
        if kernel.kernel != LEARNED:
            raise ValueError(f"kernel must be the learned default (GraphKernel(kernel={LEARNED!r})), got "
                             f"kernel={kernel.kernel!r}; for a fixed kernel use GraphFeatures")
        return kernel

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
