"""The embedding protocol: what a functional of the power summary provides.

A *functional* turns each graph of a :class:`~graphinvariants.graphs.GraphBatch` into an
embedding (a Gaussian, a histogram, ...) and says how the kernel between two embeddings
is evaluated for a whole tile of pairs at once. The pair engine
(:mod:`graphinvariants.kernels.engine`) knows nothing else about it: it asks the
functional for its batches, lets it prepare (and, when two collections must share a
vocabulary, align) them once, then calls :meth:`Functional.tile` on blocks of pairs.

To add a functional, subclass :class:`Functional` and implement :meth:`embed`,
:meth:`tile` and :meth:`pairs`; see the design page of the documentation for a
walk-through with :class:`~graphinvariants.embeddings.WalkHistogram`.
"""

from abc import ABC, abstractmethod

from ..graphs import as_graph_batch
from ..graphs.adjacency import describe
from ..graphs.batch import check_not_single_graph

__all__ = ["Functional"]


class Functional(ABC):
    """Base class of the functionals of the power summary (the embedding protocol).

    Subclasses set :attr:`batch_type` (the class of their batch of embeddings) and
    implement :meth:`embed`, :meth:`tile` and :meth:`pairs`. The other methods
    have working defaults.

    Attributes
    ----------
    batch_type : type
        Class of the embeddings batch :meth:`embed` returns; inputs of this type are
        accepted as precomputed (after :meth:`check_batch`).
    weight : str or None
        Edge attribute used as weight when graphs are embedded.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import WalkHistogram
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> graphs = [nx.path_graph(5), nx.star_graph(4), nx.cycle_graph(5)]
    >>> pairwise_kernels(graphs, functional=WalkHistogram(k=3)).round(3)
    array([[1.   , 0.201, 0.415],
           [0.201, 1.   , 0.   ],
           [0.415, 0.   , 1.   ]])
    """

    batch_type = type(None)
    weight = None

    @abstractmethod
    def embed(self, batch):
        """Embeddings of every graph of a :class:`GraphBatch`, as one batch object."""

    def check_batch(self, embedded, what):
        """Raise if a precomputed batch does not fit this functional's parameters."""

    def coerce_items(self, items, what):
        """Embeddings for a sequence whose items are not graphs (None: not handled)."""
        return None

    def as_embeddings(self, items, *, what="graphs"):
        """Embeddings of ``items``: a batch of this functional's type is checked and
        returned, anything else goes through :func:`as_graph_batch` and :meth:`embed`."""
        if isinstance(items, self.batch_type):
            self.check_batch(items, what)
            return items
        check_not_single_graph(items, what)
        if not hasattr(items, "batch") and not hasattr(items, "offsets"):
            coerced = self.coerce_items(items, what)
            if coerced is not None:
                return coerced
        return self.embed(self.graph_batch(items, what=what))

    def graph_batch(self, graphs, *, what="graphs"):
        """``graphs`` as a :class:`GraphBatch` holding what this functional reads: its
        edge weight and, for functionals with a ``node_label``, ``edge_label`` or
        ``node_attributes``, those."""
        return as_graph_batch(graphs, weight=self.weight, node_label=getattr(self, "node_label", None),
                              edge_label=getattr(self, "edge_label", None),
                              node_attributes=getattr(self, "node_attributes", None), what=what)

    def prepare(self, embedded, what):
        """Kernel-ready form of one side (computed once per side); default: as is."""
        return embedded

    def align(self, left, right):
        """Make two prepared sides comparable (a shared vocabulary); default: as is."""
        return left, right

    @abstractmethod
    def tile(self, left, right, rows, cols):
        """Kernel values of all pairs ``(left[rows], right[cols])``, shape (len(rows), len(cols))."""

    @abstractmethod
    def pairs(self, left, right, i, j):
        """Kernel values of the pairs ``(left[i[p]], right[j[p]])``, shape (len(i),)."""

    def tile_size(self, n_jobs):
        """Rows and columns per tile of the pair engine."""
        return 256

    def for_pairs(self, n_pairs):
        """This functional with every size-dependent choice fixed as for a matrix of
        ``n_pairs`` pairs, so that blocks of that matrix computed apart (on a cluster)
        give the numbers the whole matrix would; default: itself."""
        return self

    def to_arrays(self, embedded):
        """The batch as a dict of arrays whose first axis is the graph (for storage
        and for collections split across processes), or None if the functional's
        embeddings have no fixed shape."""
        return None

    def from_arrays(self, arrays):
        """Inverse of :meth:`to_arrays`: a batch from a dict of arrays."""
        raise TypeError(f"{type(self).__name__} embeddings cannot be rebuilt from arrays")

    def __repr__(self):
        params = ", ".join(f"{key}={value!r}" for key, value in vars(self).items() if not key.startswith("_"))
        return f"{type(self).__name__}({params})"


def check_not_single(items, single_types, what):
    """Refuse one embedding where a sequence is expected."""
    if isinstance(items, single_types):
        raise TypeError(f"{what} must be a sequence, got a single {describe(items)}; wrap it in a list")
