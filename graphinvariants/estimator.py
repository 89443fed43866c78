"""scikit-learn transformer: graphs in, power-kernel matrix out."""

from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .invariants import DEFAULT_RIDGE, batch_power_invariants
from .kernel import power_kernel_matrix

__all__ = ["PowerKernel"]


class PowerKernel(TransformerMixin, BaseEstimator):
    """Power-kernel transformer for lists of graphs.

    ``fit(graphs)`` computes and keeps the invariants of the training graphs;
    ``transform(graphs)`` returns the ``(len(graphs), n_train)`` kernel matrix against
    them and ``fit_transform`` the square training matrix, ready for
    ``sklearn.svm.SVC(kernel="precomputed")``.

    Parameters
    ----------
    k : int, default=5
        Number of power iterations.
    ridge : float, default=DEFAULT_RIDGE
        Relative ridge added to each covariance (see :func:`power_kernel`).
    weight : str or None, default=None
        Edge attribute to use as weight; ``None`` is the 0/1 adjacency.
    n_jobs : int or None, default=None
        Threads for the kernel matrix.

    Attributes
    ----------
    invariants_ : list of PowerInvariants
        Invariants of the training graphs.
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

    def __init__(self, k=5, ridge=DEFAULT_RIDGE, weight=None, n_jobs=None):
        self.k = k
        self.ridge = ridge
        self.weight = weight
        self.n_jobs = n_jobs

    def fit(self, X, y=None):
        """Compute and store the invariants of the training graphs.

        Parameters
        ----------
        X : sequence of graphs or PowerInvariants
        y : ignored

        Returns
        -------
        self
        """
        invariants = batch_power_invariants(X, k=self.k, weight=self.weight)
        if not invariants:
            raise ValueError("PowerKernel.fit needs at least one graph")
        self.invariants_ = invariants
        self.n_train_ = len(invariants)
        return self

    def transform(self, X):
        """Kernel matrix of ``X`` against the training graphs, shape ``(len(X), n_train_)``."""
        check_is_fitted(self, "invariants_")
        return power_kernel_matrix(X, self.invariants_, k=self.k, ridge=self.ridge, weight=self.weight, n_jobs=self.n_jobs)

    def fit_transform(self, X, y=None):
        """Fit, and return the square, symmetric kernel matrix of the training graphs."""
        self.fit(X)
        return power_kernel_matrix(self.invariants_, k=self.k, ridge=self.ridge, n_jobs=self.n_jobs)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.requires_fit = True
        return tags
