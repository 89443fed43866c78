"""scikit-learn transformers: graphs in, kernel matrix out.

:class:`PowerKernel` is exactly the paper's kernel; :class:`GraphKernel` takes any kernel
by name (see :data:`graphinvariants.KERNELS`) with its parameters.
"""

from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._validation import check_n_jobs
from .embeddings import DEFAULT_RIDGE
from .kernels import pairwise_kernels
from .kernels.registry import RECOMMENDED, kernel_parameters, make_functional

__all__ = ["GraphKernel", "PowerKernel"]


class _KernelTransformer(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """What both transformers share: fit embeds once, transform compares with it."""

    def _functional(self):
        return make_functional(self.kernel, **self._kernel_parameters())

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
        functional = self._functional()
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
    k : int, default=5
        Number of power iterations.
    ridge : float, default=DEFAULT_RIDGE
        Relative ridge added to each covariance (see :func:`power_kernel`).
    weight : str or None, default=None
        Edge attribute to use as weight; ``None`` is the 0/1 adjacency.
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


class GraphKernel(_KernelTransformer):
    """Kernel transformer for any kernel of :data:`graphinvariants.KERNELS`, by name.

    ``fit(graphs)`` embeds the training graphs once; ``transform(graphs)`` returns the
    ``(len(graphs), n_train)`` kernel matrix against them and ``fit_transform`` the
    square training matrix, for ``sklearn.svm.SVC(kernel="precomputed")``. Kernel
    parameters are estimator parameters, so ``GridSearchCV`` can search over
    ``kernel`` and them together; a parameter the chosen kernel does not take is an
    error at fit, so give each kernel its own grid:
    ``[{"kernel": ["wl"], "n_iter": [3, 5]}, {"kernel": ["histogram"], "k": [5, 7]}]``.
    A name that is no parameter of any kernel (nor ``member__param`` of one) is
    refused at once, by the constructor and by :meth:`set_params`.

    Parameters
    ----------
    kernel : str, default=RECOMMENDED
        A kernel name, or names joined by ``*`` or ``+``. The default is the member
        that did best across MUTAG, ENZYMES, NCI1 and NCI109 under the paper's
        protocol (see the kernels page of the documentation).
    n_jobs : int or None, default=None
        Worker threads for the kernel matrix.
    **params
        Parameters of the kernel, e.g. ``k=7`` or ``histogram__k=9``.

    Attributes
    ----------
    embeddings_ : object
        The training graphs' embeddings (the functional's batch).
    functional_ : Functional
        The functional built from ``kernel`` and the parameters.
    n_train_ : int

    Examples
    --------
    >>> import networkx as nx
    >>> from sklearn.pipeline import Pipeline
    >>> from sklearn.svm import SVC
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(10)]
    >>> graphs += [nx.barabasi_albert_graph(30, 2, seed=i) for i in range(10)]
    >>> y = [0] * 10 + [1] * 10
    >>> model = Pipeline([("kernel", gi.GraphKernel(kernel="wl", n_iter=3)), ("svm", SVC(kernel="precomputed"))])
    >>> model.fit(graphs[::2], y[::2]).score(graphs[1::2], y[1::2])
    1.0
    >>> gi.GraphKernel(kernel="histogram", k=7).get_params()
    {'kernel': 'histogram', 'n_jobs': None, 'k': 7}
    """

    def __init__(self, *, kernel=RECOMMENDED, n_jobs=None, **params):
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


def _check_kernel_parameter_name(key):
    """Refuse a GraphKernel parameter that no kernel takes (it would otherwise be kept
    as an attribute, shadow a method such as ``fit``, and fail far from its cause)."""
    parameters = kernel_parameters()
    if isinstance(key, str):
        member, _, param = key.partition("__")
        if any(key in params for params in parameters.values()) or param in parameters.get(member, ()):
            return
    names = sorted({p for params in parameters.values() for p in params})
    raise ValueError(
        f"GraphKernel has no parameter {key!r}: its parameters are kernel, n_jobs and those of the kernels "
        f"({', '.join(names)}), or member__param for one member of a combination (e.g. histogram__k)"
    )
