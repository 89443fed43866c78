"""scikit-learn transformers: graphs in, kernel matrix out.

:class:`PowerKernel` is exactly the paper's kernel; :class:`GraphKernel` takes any kernel
by name (see :data:`graphinvariants.KERNELS`) with its parameters, and by default
learns a combination of members from the training labels.
"""

from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._utils.validation import check_n_jobs, random_state_refused
from .embeddings import DEFAULT_RIDGE
from .graphs.smiles import is_smiles
from .kernels import pairwise_kernels
from .kernels.learned._combination import CANDIDATES, LearnedCombination
from .kernels.registry import LEARNED, check_kernel_names, kernel_parameters, make_functional, molecule_parameters

__all__ = ["GraphKernel", "PowerKernel"]


class _KernelTransformer(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """What both transformers share: fit embeds once, transform compares with it."""

    def _functional(self, X=None):
        """The functional of the kernel, for training graphs ``X`` (SMILES strings:
        molecules, whose atoms and bonds the members that read labels read)."""
        params = self._kernel_parameters()
        if is_smiles(X):
            params = molecule_parameters(self.kernel, params)
        return make_functional(self.kernel, **params)

    def fit(self, X, y=None):
        """Embed and keep the training graphs (and their kernel-ready form, once).

        Parameters
        ----------
        X : sequence of graphs, GraphBatch, TUDataset, or precomputed embeddings
        y : ignored

        Returns
        -------
        self
        """
        check_n_jobs(self.n_jobs)
        functional = self._functional(X)
        embeddings = functional.as_embeddings(X, what="X")
        if not len(embeddings):
            raise ValueError(f"{type(self).__name__}.fit needs at least one graph")
        functional.prepare(embeddings, "X")  # cached with the embeddings where the functional can
        self.functional_ = functional
        self.embeddings_ = embeddings
        self.n_train_ = len(embeddings)
        self._n_features_out = self.n_train_
        return self

    def transform(self, X):
        """Kernel matrix of ``X`` against the training graphs, shape ``(len(X), n_train_)``."""
        check_is_fitted(self, "embeddings_")
        return pairwise_kernels(X, self.embeddings_, functional=self.functional_, n_jobs=self.n_jobs)

    def fit_transform(self, X, y=None):
        """Fit, and return the square, symmetric kernel matrix of the training graphs."""
        self.fit(X)
        return pairwise_kernels(self.embeddings_, functional=self.functional_, n_jobs=self.n_jobs)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.requires_fit = True
        return tags


class PowerKernel(_KernelTransformer):
    """Power-kernel transformer for collections of graphs.

    ``fit(graphs)`` computes and keeps the invariants of the training graphs (and
    their kernel-ready form, once); ``transform(graphs)`` returns the
    ``(len(graphs), n_train)`` kernel matrix against them and ``fit_transform`` the
    square training matrix, ready for ``sklearn.svm.SVC(kernel="precomputed")``.
    Output column ``j`` is training graph ``j``; :meth:`get_feature_names_out` names
    them ``powerkernel0, powerkernel1, ...`` and ``set_output(transform="pandas")``
    works as for any scikit-learn transformer.

    Parameters
    ----------
    k, ridge, weight
        As in :class:`~graphinvariants.embeddings.GaussianEmbedding` (defaults 5,
        ``DEFAULT_RIDGE`` and None, the 0/1 adjacency).
    n_jobs : int or None, default=None
        Worker threads for the kernel matrix.

    Attributes
    ----------
    invariants_ : GaussianBatch
        Invariants of the training graphs (also ``embeddings_``).
    functional_ : GaussianEmbedding
    n_train_ : int
        Number of training graphs.

    Examples
    --------
    >>> import networkx as nx
    >>> from sklearn.pipeline import Pipeline
    >>> from sklearn.svm import SVC
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(10)]
    >>> graphs += [nx.barabasi_albert_graph(30, 2, seed=i) for i in range(10)]
    >>> y = [0] * 10 + [1] * 10
    >>> model = Pipeline([("kernel", gi.PowerKernel(k=5)), ("svm", SVC(kernel="precomputed"))])
    >>> model.fit(graphs[::2], y[::2]).score(graphs[1::2], y[1::2])
    1.0
    """

    def __init__(self, *, k=5, ridge=DEFAULT_RIDGE, weight=None, n_jobs=None):
        self.k = k
        self.ridge = ridge
        self.weight = weight
        self.n_jobs = n_jobs

    kernel = "power"

    def _kernel_parameters(self):
        return {"k": self.k, "ridge": self.ridge, "weight": self.weight}

    @property
    def invariants_(self):
        """The training graphs' :class:`GaussianBatch` (same as ``embeddings_``)."""
        check_is_fitted(self, "embeddings_")
        return self.embeddings_


#: Options of the learned default (``kernel="learned"``) that are not member parameters.
_LEARNED_OPTIONS = ("node_label", "edge_label", "node_attributes", "combination", "task", "powers", "bandwidths",
                    "selection", "max_samples", "members", "seed", "working_memory")


class GraphKernel(_KernelTransformer):
    """Graph-kernel transformer: by default a combination of members learned from ``y``.

    With ``kernel="learned"`` (the default), ``fit(graphs, y)`` builds every member of
    the candidate family (:data:`graphinvariants.kernels.learned._combination.CANDIDATES`: structure
    members always, node-label members when every graph carries node labels) and
    weights them, each in a few shapes, by centred kernel alignment with the training
    labels (Cortes, Mohri and Rostamizadeh, JMLR 2012): classes (binary or multiclass)
    and real-valued targets alike. Of the weighting of the plain candidates and that of
    every shape, it keeps the one whose sum has the smaller leave-one-out error of
    kernel ridge regression on those labels. The result is a weighted sum of unit-diagonal,
    positive semidefinite kernels with non-negative weights summing to 1, so
    ``K(G, G) = 1`` and every Gram matrix is PSD. ``transform(graphs)`` returns the
    ``(len(graphs), n_train)`` matrix against the training graphs with the learned
    weights, ``fit_transform`` the square training matrix, for
    ``sklearn.svm.SVC(kernel="precomputed")`` or ``KernelRidge(kernel="precomputed")``.
    Only the labels given to ``fit`` are used, so cross-validation that refits the
    pipeline per fold (``cross_val_score``, :func:`~graphinvariants.evaluate_estimator`)
    keeps test labels out.

    With a kernel name (see :data:`graphinvariants.KERNELS`), the transformer is that
    fixed kernel and ``y`` is ignored. Kernel parameters are estimator parameters, so
    ``GridSearchCV`` can search over ``kernel`` and them together; a parameter the
    chosen kernel does not take is an error at fit, so give each kernel its own grid:
    ``[{"kernel": ["wl"], "n_iter": [3, 5]}, {"kernel": ["histogram"], "k": [5, 7]}]``.
    A name that is no parameter of any kernel (nor ``member__param`` of one) is
    refused at once, by the constructor and by :meth:`set_params` (it would become an
    attribute, and could shadow a method). Parameter *values*, ``kernel`` among them,
    are only stored there, as scikit-learn asks (``set_params`` from a grid search
    must not fail), and checked at :meth:`fit`: ``GraphKernel(kernel="WL")`` is
    built, and its ``fit`` says ``unknown kernel 'WL': did you mean 'wl'?``.

    Parameters
    ----------
    kernel : str, default="learned"
        ``"learned"`` (:data:`graphinvariants.kernels.LEARNED`), or a kernel name, or
        names joined by ``*`` or ``+``.
    n_jobs : int or None, default=None
        Worker threads for the kernel matrices.
    **params
        For a named kernel, its parameters (e.g. ``k=7`` or ``histogram__k=9``). For
        ``kernel="learned"``, these options:

        node_label : str or None, default="label"
            Node attribute read as the node label of NetworkX or igraph graphs (a
            TUDataset carries its own). Label members are used when every training
            graph has it; ``None`` refuses them.
        edge_label : str or None, default="label"
            Edge attribute read as the edge label (bond types); the members typed by
            edge labels are used when every training graph has it; ``None`` refuses them.
        node_attributes : str or None, default="attributes"
            Node attribute holding a vector of real numbers; the attribute member is
            used when every training graph has it; ``None`` refuses it. A label or
            attribute on every node (edge) of every graph whose values are not valid
            (NaN, numbers beside strings) is an error naming them, not left out. When
            some graphs carry one and others (or some of their nodes or edges) do not,
            its members are left out with one ``UserWarning`` saying how many graphs
            lack it.
        combination : {"alignf", "align"}, default="alignf"
            Maximise the alignment of the weighted sum (ALIGNF), or weight each
            candidate by its own alignment.
        task : {"auto", "classification", "regression"}, default="auto"
            How ``y`` is read; ``"auto"`` takes non-integer real values as regression.
        powers : tuple of int, default=(1,)
            Elementwise powers ``K^p`` each candidate is offered in (1: itself);
            distinct.
        bandwidths : tuple of float, default=(0.25, 1.0, 4.0)
            Gaussian shapes ``exp(-(2 - 2K) / (s * m))`` each candidate is offered in
            too, ``m`` the median training kernel distance, one per multiple ``s``;
            distinct.
        selection : {"loo", None}, default="loo"
            ``"loo"`` weights the plain candidates and, apart, all shapes, and keeps
            the weighting with the smaller leave-one-out error of kernel ridge
            regression on the training labels; None weights all shapes once.
        max_samples : int or None, default=1000
            Learn the weights on at most this many training graphs, drawn with ``seed``.
        members : tuple or None, default=None
            Restrict the family to these candidates: names of
            :data:`graphinvariants.kernels.learned._combination.CANDIDATES`, and kernels from
            elsewhere (:mod:`graphinvariants.kernels.learned.external`): GraKeL kernel objects
            or classes (or ``"grakel.ClassName"``), callables
            ``(graphs_a, graphs_b) -> matrix``, transformers (``fit``, ``transform``).
            Each must give a symmetric positive semidefinite matrix with a unit
            diagonal (checked on the training graphs; GraKeL's are used with
            ``normalize=True``).
        seed : None, int or numpy.random.Generator, default=None
            Seed of the subsample (used only when there are more than ``max_samples``
            training graphs).
        working_memory : float or None, default=None
            MiB that ``fit_transform`` and ``transform`` may use beside the matrix
            they return: the matrix is built block by block from the members'
            blocks, so memory is the output and these blocks (the values are the same
            whatever the budget); None: ``sklearn.get_config()["working_memory"]``.

        and member parameters: ``k=7`` reaches every candidate member that takes
        ``k`` (power, the histograms, closed walks, attributes), ``n_iter=3`` every WL
        member; ``histogram__k=9`` one candidate (names of
        :data:`graphinvariants.kernels.learned._combination.CANDIDATES`). The members read the
        0/1 adjacency: ``weight`` is refused (name a kernel to use edge weights).

    Attributes
    ----------
    weights_ : dict
        Learned weight of every shaped candidate (``"wl_label"``, ``"power^2"``, ...),
        non-negative, summing to 1 (``kernel="learned"`` only); most are 0. The ones
        above 0 are ``members_``, and the fitted estimator's ``repr`` lists them with
        their weights, largest first. A name is a candidate of
        :data:`~graphinvariants.kernels.learned._combination.CANDIDATES` (a kernel with what it
        reads: ``wl_label`` is ``wl`` on node labels, ``wl_edge_label`` on node and edge
        labels), or a product of :data:`~graphinvariants.kernels.learned._combination.PRODUCTS`
        (``power*histogram*wl``), then its shape: nothing for the kernel itself, ``^p``
        for its elementwise power, ``:gauss(s)`` for the Gaussian of its kernel distance
        with bandwidth ``s`` times the median.
    alignments_ : dict
        Each candidate's centred alignment with the training labels.
    members_ : list of str
        The candidates with a positive weight.
    loo_errors_ : dict
        With ``selection="loo"``, the leave-one-out error of each weighting
        (``"plain"``, ``"shaped"``); the smaller one was kept (empty when there was no
        choice to make).
    combination_ : LearnedCombination
        The fitted combination (``kernel="learned"``); it prints as its positive
        weights.
    embeddings_ : object
        The training graphs' embeddings (per member for ``kernel="learned"``).
    functional_ : Functional
        The functional of a named kernel.
    n_train_ : int

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> from sklearn.svm import SVC
    >>> graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(10)]
    >>> graphs += [nx.barabasi_albert_graph(30, 2, seed=i) for i in range(10)]
    >>> y = [0] * 10 + [1] * 10
    >>> kernel = gi.GraphKernel()  # what a Pipeline's "kernel" step does, step by step
    >>> svm = SVC(kernel="precomputed").fit(kernel.fit_transform(graphs[::2], y[::2]), y[::2])
    >>> float(svm.score(kernel.transform(graphs[1::2]), y[1::2]))
    1.0
    >>> weights = kernel.weights_
    >>> round(sum(weights.values()), 12), min(weights.values()) >= 0
    (1.0, True)
    >>> from sklearn.pipeline import make_pipeline
    >>> fixed = make_pipeline(gi.GraphKernel(kernel="wl", n_iter=3), SVC(kernel="precomputed"))
    >>> fixed.fit(graphs[::2], y[::2]).score(graphs[1::2], y[1::2])
    1.0
    >>> gi.GraphKernel(kernel="histogram", k=7).get_params()
    {'kernel': 'histogram', 'n_jobs': None, 'k': 7}
    """

    def __init__(self, *, kernel=LEARNED, n_jobs=None, **params):
        for key in params:
            _check_kernel_parameter_name(key)
        self.kernel = kernel
        self.n_jobs = n_jobs
        for key, value in params.items():
            setattr(self, key, value)
        self._kernel_params = tuple(sorted(params))

    def get_params(self, deep=True):
        out = {"kernel": self.kernel, "n_jobs": self.n_jobs}
        out.update({key: getattr(self, key) for key in self._kernel_params})
        return out

    def set_params(self, **params):
        for key in params:
            if key not in ("kernel", "n_jobs"):
                _check_kernel_parameter_name(key)
        for key, value in params.items():
            setattr(self, key, value)
            if key not in ("kernel", "n_jobs") and key not in self._kernel_params:
                self._kernel_params = tuple(sorted(self._kernel_params + (key,)))
        return self

    def _kernel_parameters(self):
        return {key: getattr(self, key) for key in self._kernel_params}

    def __repr__(self, N_CHAR_MAX=700):
        """The parameters, as scikit-learn prints them, then what ``fit`` learned: the
        candidates with a positive weight, largest first (at most five named)."""
        text = super().__repr__(N_CHAR_MAX=N_CHAR_MAX)
        if "combination_" in self.__dict__:
            return f"{text} fitted on {self.n_train_} graphs: {self.combination_.summary(n_shown=5)}"
        if "embeddings_" in self.__dict__:
            return f"{text} fitted on {self.n_train_} graphs"
        return text

    def _functional(self, X=None):
        if isinstance(self.kernel, str):
            check_kernel_names(self.kernel, also=(LEARNED,))  # the registry's names, and this class's default
        return super()._functional(X)

    def learned_combination(self):
        """The unfitted :class:`~graphinvariants.kernels.learned._combination.LearnedCombination` that
        ``fit`` fits for ``kernel="learned"``, with this estimator's options and member
        parameters.

        Examples
        --------
        >>> import graphinvariants as gi
        >>> gi.GraphKernel(max_samples=500).learned_combination().max_samples
        500
        """
        params = self._kernel_parameters()
        options = {key: params.pop(key) for key in _LEARNED_OPTIONS if key in params}
        return LearnedCombination(**options, params=params, n_jobs=self.n_jobs)

    def fit(self, X, y=None):
        """Embed the training graphs and, for ``kernel="learned"``, learn the weights.

        Parameters
        ----------
        X : sequence of graphs, GraphBatch or TUDataset, or list of SMILES strings
            SMILES strings are molecules: a named kernel's members that read labels
            read their atoms and bonds unless told otherwise
            (:func:`~graphinvariants.kernels.molecule_parameters`), and the learned
            default's label members are used.
        y : array_like of shape (n_graphs,)
            Class labels or regression targets; required by ``kernel="learned"``,
            ignored by a named kernel.

        Returns
        -------
        self
        """
        if self.kernel != LEARNED:
            for name in ("combination_", "weights_", "alignments_", "members_", "loo_errors_"):
                self.__dict__.pop(name, None)
            return super().fit(X, y)
        check_n_jobs(self.n_jobs)
        if y is None:
            raise ValueError('GraphKernel(kernel="learned") learns its combination from the training labels: '
                             'call fit(graphs, y), or name a fixed kernel, e.g. GraphKernel(kernel="wl")')
        combination = self.learned_combination().fit(X, y)
        self.__dict__.pop("functional_", None)
        self.combination_ = combination
        self.weights_ = combination.weights
        self.alignments_ = combination.alignments
        self.members_ = combination.members_used
        self.loo_errors_ = combination.loo_errors
        self.embeddings_ = combination.embeddings
        self.n_train_ = combination.n_train
        self._n_features_out = self.n_train_
        return self

    def transform(self, X):
        """Kernel matrix of ``X`` against the training graphs, shape ``(len(X), n_train_)``."""
        check_is_fitted(self, "embeddings_")
        if hasattr(self, "combination_"):
            return self.combination_.cross(X)
        return super().transform(X)

    def fit_transform(self, X, y=None):
        """Fit, and return the square, symmetric kernel matrix of the training graphs.

        For ``kernel="learned"`` this is ``fit(X, y).transform(X)`` up to rounding (the
        weighted sums run in another order), with the diagonal set to exactly 1 and the
        matrix made exactly symmetric.
        """
        self.fit(X, y)
        if hasattr(self, "combination_"):
            return self.combination_.gram()
        return pairwise_kernels(self.embeddings_, functional=self.functional_, n_jobs=self.n_jobs)


def _check_kernel_parameter_name(key):
    """Refuse a GraphKernel parameter that no kernel takes (it would otherwise be kept
    as an attribute, shadow a method such as ``fit``, and fail far from its cause)."""
    parameters = kernel_parameters()
    if key in _LEARNED_OPTIONS:
        return
    if isinstance(key, str) and (key == "random_state" or key.endswith("__random_state")):
        raise random_state_refused("GraphKernel")
    if isinstance(key, str):
        member, _, param = key.partition("__")
        if any(key in params for params in parameters.values()) or param in parameters.get(member, ()):
            return
        if member in CANDIDATES and param in parameters[CANDIDATES[member][0]]:  # one learned candidate
            return
    names = sorted({p for params in parameters.values() for p in params})
    raise ValueError(
        f"GraphKernel has no parameter {key!r}: its parameters are kernel, n_jobs, the options of the learned default "
        f"({', '.join(_LEARNED_OPTIONS)}) and those of the kernels ({', '.join(names)}), or member__param "
        "for one member of a combination or one candidate of the learned default (e.g. histogram__k, "
        "wl_label__n_iter)"
    )
