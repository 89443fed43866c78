"""The learned default on many training parts of one collection, at the cost of one kernel.

Cross-validating :class:`~graphinvariants.GraphKernel` (the learned default) fits it on
every outer training part and again on the inner part that chooses ``C``: 200 fits for
10 x 10 folds, each embedding its graphs and computing every member's matrices anew.
Yet a member's kernel value of two graphs reads no label and, for most members, nothing
but the two graphs. :class:`LearnedFolds` computes each such member's Gram matrix over
the whole collection once (:class:`SharedGram`), and fits a part by slicing it: the
subsample's matrices for the weights, the training matrix and the test-against-training
matrix. What reads labels is done per part, by the code :meth:`LearnedCombination.fit`
runs: the subsample (:meth:`~LearnedCombination.draw_sample`), the shapes' medians and the
weights (:meth:`~LearnedCombination.learn_weights`), the sum
(:func:`~graphinvariants.kernels.learned.blockwise.combine_blockwise`).

Exactness: a sliced value equals the one the part's own fit computes, to the last bit,
because (checked, not assumed) every shared member's value is a function of its pair
alone, the same in either order (its Gram matrix is exactly symmetric, so mirrored
tiles change nothing), and the pair engine's size-dependent choice (the power
kernel's compiled or numpy engine, :meth:`Functional.for_pairs`) is made as the part
would make it: one Gram matrix per choice the parts need. Members fitted on the graphs
they are given (a functional with a ``fit`` method: the ``attributes`` member
standardises the attributes and sets its bandwidth on the training graphs) and members
whose Gram matrix is not exactly symmetric are computed per part, as before; so is
every member for a part of graphs that all carry node labels (edge labels, attributes)
where some graph outside it does not (the part has more members than the collection).
External kernels among ``members`` (:mod:`~graphinvariants.kernels.learned.external`: GraKeL
objects, callables, transformers) are fitted and evaluated per part by their own code,
as :meth:`LearnedCombination.fit` does, on the part's graphs as given: what such a
kernel reads of the graphs it is fitted on cannot be checked.

Memory: one ``n x n`` float64 matrix per shared member and engine choice (135 MB each
for NCI1's 4,110 graphs), held for the whole evaluation; the training and test matrices
of a part are built block by block from them.
"""

import threading

import numpy as np

from ...graphs import GraphBatch
from ...graphs.attributes import set_everywhere
from ...graphs.batch import subset
from .blockwise import MatrixBlocks, combine_blockwise
from ..engine import KernelBlocks, pairwise_kernels

__all__ = ["IndexedBlocks", "LearnedFolds", "SharedGram"]


class IndexedBlocks:
    """Rectangles of ``K[np.ix_(rows, cols)]`` without forming it, for
    :func:`~graphinvariants.kernels.learned.blockwise.combine_blockwise`.

    Parameters
    ----------
    K : numpy.ndarray of shape (n, m)
    rows, cols : numpy.ndarray of int
        Positions in ``K`` of the rows and the columns of the matrix it stands for.
    mirrored : bool, keyword-only
        Whether every value equals its mirror image's to the bit (``K`` exactly
        symmetric and ``rows`` the same positions as ``cols``).

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.kernels.learned.folds import IndexedBlocks
    >>> K = np.arange(16.0).reshape(4, 4)
    >>> IndexedBlocks(K, np.array([3, 1]), np.array([0, 2])).block(slice(0, 2), slice(1, 2))
    array([[14.],
           [ 6.]])
    """

    def __init__(self, K, rows, cols, *, mirrored=False):
        self.K, self.rows, self.cols = K, np.asarray(rows), np.asarray(cols)
        self.shape = (len(self.rows), len(self.cols))
        self.tile = 1
        self._mirrored = bool(mirrored)

    def block(self, rows, cols):
        """``K[np.ix_(self.rows[rows], self.cols[cols])]``."""
        return self.K[np.ix_(self.rows[rows], self.cols[cols])]

    def mirrored(self, rows, cols):
        return self._mirrored


class SharedGram:
    """One member's Gram matrix over a whole collection, for slicing by parts of it.

    ``matrix(n_pairs)`` is the Gram matrix computed by the functional as fixed for a
    matrix of ``n_pairs`` pairs (:meth:`Functional.for_pairs`: what a part with that
    many pairs would choose), computed at the first request and kept (thread-safe);
    None when that matrix is not exactly symmetric (then slices of it could differ from
    a part's own matrix, whose pairs below the diagonal tiles are mirrored).

    Parameters
    ----------
    functional : Functional
        Not fitted on graphs (no ``fit`` method).
    batch : GraphBatch
        The whole collection.
    n_jobs : int or None
        Threads of the pair engine.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import WalkHistogram
    >>> from graphinvariants.graphs import as_graph_batch
    >>> from graphinvariants.kernels.learned.folds import SharedGram
    >>> gram = SharedGram(WalkHistogram(k=3), as_graph_batch([nx.path_graph(n) for n in range(3, 7)]))
    >>> gram.matrix(4).shape
    (4, 4)
    """

    def __init__(self, functional, batch, n_jobs=None):
        self.functional = functional
        self.embeddings = functional.as_embeddings(batch, what="graphs")
        self.n_jobs = n_jobs
        self._grams = {}
        self._lock = threading.Lock()

    def __getstate__(self):  # folds sent to other processes (joblib, Dask) compute their own
        state = dict(self.__dict__)
        state["_grams"], state["_lock"] = {}, None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def matrix(self, n_pairs):
        variant = self.functional.for_pairs(n_pairs)
        key = repr(variant)
        with self._lock:
            if key not in self._grams:
                K = pairwise_kernels(self.embeddings, functional=variant, n_jobs=self.n_jobs)
                self._grams[key] = K if np.array_equal(K, K.T) else None
            return self._grams[key]




class LearnedFolds:
    """The learned default fitted on parts of one collection from shared member Grams.

    Parameters
    ----------
    graphs : sequence of graphs, TUDataset or GraphBatch
        The whole collection (indexable).
    make_combination : callable
        Returns a fresh, unfitted :class:`~graphinvariants.kernels.learned._combination.LearnedCombination`
        with the estimator's parameters (for :class:`~graphinvariants.GraphKernel`, the
        combination its clone would fit), called once per part so that a seed given as
        a Generator draws per part as a fresh clone would.

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from graphinvariants.kernels.learned._combination import LearnedCombination
    >>> from graphinvariants.kernels.learned.folds import LearnedFolds
    >>> graphs = [nx.cycle_graph(n) for n in range(5, 13)] + [nx.star_graph(n) for n in range(4, 12)]
    >>> y = np.array([0] * 8 + [1] * 8)
    >>> folds = LearnedFolds(graphs, lambda: LearnedCombination(node_label=None))
    >>> train, test = np.arange(0, 16, 2), np.arange(1, 16, 2)
    >>> K_train, K_test, combination = folds.fit_part(y, train, test)
    >>> K_train.shape, K_test.shape, round(sum(combination.weights.values()), 12)
    ((8, 8), (8, 8), 1.0)
    >>> direct = LearnedCombination(node_label=None).fit([graphs[i] for i in train], y[train])
    >>> bool(np.array_equal(K_train, direct.gram()))
    True
    """

    def __init__(self, graphs, make_combination):
        self.graphs = graphs
        self.make_combination = make_combination
        template = make_combination()
        is_batch = hasattr(graphs, "batch") or isinstance(graphs, GraphBatch)
        X = graphs if is_batch else list(graphs)
        batch, _ = template.begin_fit(X, np.zeros(len(X)))
        held = {"node_label": batch.node_labels, "edge_label": batch.edge_labels,
                "node_attributes": batch.node_attributes}
        kinds = {"node_label": "node", "edge_label": "edge", "node_attributes": "node"}
        reads = template.graph_reads()
        # A part of a data set or batch carries what the whole does (it is taken from
        # it). A part of graphs may carry what some other graph lacks (every one of its
        # graphs has it): that part gains members, and is fitted from its own graphs.
        self.carriers = {} if is_batch else {
            option: np.array([set_everywhere([G], reads[option], kinds[option]) for G in X])
            for option in held if reads[option] is not None and held[option] is None}
        self.carriers = {option: flags for option, flags in self.carriers.items() if flags.any()}
        self.batch = batch
        self.digests = template.digests  # a graph's digest reads that graph alone: sliced for every part
        self.shared = {name: SharedGram(f, batch, template.n_jobs) for name, f in template.functionals.items()
                       if not hasattr(f, "fit")}

    def _blocks(self, name, rows, cols, own_graphs=False):
        """The shared member's matrix of positions ``rows x cols``, or None (the member
        is computed per part)."""
        shared = None if own_graphs else self.shared.get(name)
        K = shared.matrix(len(rows) * len(cols)) if shared is not None else None
        if K is None:
            return None
        return IndexedBlocks(K, rows, cols, mirrored=rows is cols)

    def fit_part(self, y, train, test):
        """Fit on the graphs at ``train`` with ``y[train]``: ``(K_train, K_test,
        combination)``, the training matrix (``fit_transform``), the matrix of the graphs
        at ``test`` against them (``transform``) and the fitted combination. No label
        outside ``train`` is read."""
        train, test = np.asarray(train), np.asarray(test)
        combination = self.make_combination()
        own_graphs = any(flags[train].all() for flags in self.carriers.values())
        graphs = subset(self.graphs, train) if own_graphs else self.batch.take(train)
        batch, y_train = combination.begin_fit(graphs, np.asarray(y)[train],
                                               digests=None if own_graphs else self.digests[train])
        combination.embeddings = {}

        def embedded(name):  # a member computed per part, as fit computes it
            if name not in combination.embeddings:
                combination.embeddings[name] = combination.functionals[name].as_embeddings(batch, what="X")
            return combination.embeddings[name]

        for name in combination.functionals:  # first the training graphs, as in fit (a fitted member fits on them)
            if own_graphs or name not in self.shared:
                embedded(name)
        sample = combination.draw_sample(y_train)
        part = train if sample is None else train[sample]
        grams = {}
        for name, f in combination.functionals.items():
            shared = self._blocks(name, part, part, own_graphs)
            if shared is not None:
                grams[name] = shared.block(slice(None), slice(None))
            else:
                data = embedded(name) if sample is None else f.as_embeddings(batch.take(sample), what="X")
                grams[name] = pairwise_kernels(data, functional=f, n_jobs=combination.n_jobs)
        external_grams = {}
        if combination.externals:  # fitted per part by their own code, on the graphs as given
            train_graphs = subset(self.graphs, train)
            for name, external in combination.externals.items():
                K = external.fit(train_graphs, batch, combination.carries)
                grams[name] = K if sample is None else K[np.ix_(sample, sample)]
                del K
                external.check_psd(grams[name])
        combination.learn_weights(grams, y_train if sample is None else y_train[sample])
        needed = combination.needed_members()
        for name in needed:
            if name in combination.externals:  # as gram() gets it: the fit's matrix, or computed again
                external_grams[name] = grams[name] if sample is None else combination.externals[name].gram()
        del grams
        options = {"working_memory": combination.working_memory, "n_jobs": combination.n_jobs}
        square = {}
        for name in needed:
            if name in external_grams:
                square[name] = MatrixBlocks(external_grams[name], symmetric=True)
            else:
                square[name] = self._blocks(name, train, train, own_graphs) or KernelBlocks(
                    embedded(name), functional=combination.functionals[name], n_jobs=combination.n_jobs)
        K_train = combine_blockwise(square, combination.combine, symmetric=True, **options)
        del square, external_grams
        test_graphs = subset(self.graphs, test) if own_graphs or combination.externals else None
        if not own_graphs:
            test_batch = self.batch.take(test)
        else:
            test_batch, _ = combination.graph_batch(test_graphs, "X", require=combination.requires)
        cross = {}
        for name in needed:
            if name in combination.externals:
                cross[name] = MatrixBlocks(combination.externals[name].cross(test_graphs, test_batch))
            else:
                cross[name] = self._blocks(name, test, train, own_graphs) or KernelBlocks(
                    test_batch, embedded(name), functional=combination.functionals[name], n_jobs=combination.n_jobs)
        K_test = combine_blockwise(cross, combination.combine, **options)
        return K_train, K_test, combination
