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

Every batch of embeddings records, as its ``params`` (a dict), each parameter that
changed it (``k``, the edge weight, the node label attribute, the normalisation ...:
what :meth:`Functional.embedding_params` returns); a batch given back as precomputed
embeddings is checked against the parameters asked for, and every difference is named
(:func:`check_params`). Arrays made by :meth:`Functional.to_arrays` keep the record as
a fingerprint per graph (``params_hash``).
"""

import hashlib
from abc import ABC, abstractmethod

import numpy as np

from ..graphs.adjacency import describe
from ..graphs.batch import check_graph_collection, check_not_single_graph, holds_batch, read_graph_batch
from ..graphs.files import path_hint
from ..graphs.smiles import is_smiles

__all__ = ["Functional", "check_params", "params_difference", "params_hash"]

#: Every batch class of a functional (filled by :meth:`Functional.__init_subclass__`),
#: so that embeddings of one functional given to another are refused by name.
_BATCH_TYPES = set()


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

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("batch_type") not in (None, type(None)):
            _BATCH_TYPES.add(cls.batch_type)

    @abstractmethod
    def embed(self, batch):
        """Embeddings of every graph of a :class:`GraphBatch`, as one batch object
        whose ``params`` is :meth:`embedding_params`."""

    def embedding_params(self):
        """The parameters that change this functional's embeddings, as a dict.

        Every batch :meth:`embed` returns records them (its ``params``), and
        :meth:`check_batch` compares a precomputed batch's record with them. The
        default is every public attribute; functionals override it to leave out what
        only changes how pairs are evaluated (a ridge, an engine).
        """
        return {key: plain_value(value) for key, value in vars(self).items() if not key.startswith("_")}

    def check_batch(self, embedded, what):
        """Raise ValueError, naming every difference, if a precomputed batch was
        embedded with other parameters than this functional's."""
        check_params(getattr(embedded, "params", None), self.embedding_params(), what)

    def record_of_arrays(self, arrays, what="arrays"):
        """The record of arrays made by :meth:`to_arrays`: this functional's
        :meth:`embedding_params` if their ``params_hash`` matches (None when they carry
        none: arrays made by hand, whose parameters are taken on trust).

        Raises
        ------
        ValueError
            If a graph's fingerprint is not this functional's.
        """
        if "params_hash" not in arrays:
            return None
        stored = np.asarray(arrays["params_hash"]).reshape(-1)
        if stored.size and not np.all(stored == params_hash(self.embedding_params())):
            asked = ", ".join(f"{key}={value!r}" for key, value in self.embedding_params().items())
            raise ValueError(
                f"{what} were embedded with other parameters than {asked} (their params_hash differs); "
                "embed the graphs again with these parameters, or ask for the ones they were embedded with"
            )
        return self.embedding_params()

    def coerce_items(self, items, what):
        """Embeddings for a sequence whose items are not graphs (None: not handled)."""
        return None

    def as_embeddings(self, items, *, what="graphs"):
        """Embeddings of ``items``: a batch of this functional's type is checked and
        returned, anything else goes through :func:`as_graph_batch` and :meth:`embed`.
        One graph where a collection is expected is refused here; the rest is
        :meth:`embed_collection`."""
        check_not_single_graph(items, what)
        return self.embed_collection(items, what=what)

    def embed_collection(self, items, *, what="graphs"):
        """:meth:`as_embeddings` of a collection its caller has checked
        (:func:`~graphinvariants.graphs.batch.check_not_single_graph`, as
        :meth:`as_embeddings` and the estimators' doors do): embeddings given
        (:meth:`given_embeddings`) as they are, else the graphs read once
        (:meth:`read_batch`) and embedded; the collection is not checked again."""
        embedded = self.given_embeddings(items, what=what)
        return self.embed(self.read_batch(items, what=what)) if embedded is None else embedded

    def given_embeddings(self, items, *, what="graphs"):
        """``items`` as embeddings when they are some already (a batch of this
        functional's type, checked; another functional's refused; what
        :meth:`coerce_items` makes of items that are not graphs), else None: the first
        step of :meth:`embed_collection` (the collection checked by the caller)."""
        if isinstance(items, self.batch_type):
            self.check_batch(items, what)
            return items
        check_not_other_batch(self, items, what)
        if not hasattr(items, "batch") and not hasattr(items, "offsets"):
            return self.coerce_items(items, what)
        return None

    def graph_reads(self):
        """What this functional reads of a graph, as the keyword arguments of
        :func:`~graphinvariants.graphs.as_graph_batch`: its edge weight and, for
        functionals with a ``node_label``, ``edge_label`` or ``node_attributes``, those."""
        return {"weight": self.weight, "node_label": getattr(self, "node_label", None),
                "edge_label": getattr(self, "edge_label", None),
                "node_attributes": getattr(self, "node_attributes", None)}

    def graph_batch(self, graphs, *, what="graphs"):
        """``graphs`` as a :class:`GraphBatch` holding what this functional reads
        (:meth:`graph_reads`). Without a weight, a weighted batch is read as its 0/1
        pattern (as inside a combination), so the embeddings are what the
        ``weight=None`` recorded in their ``params`` says. The collection is checked as
        :func:`~graphinvariants.graphs.as_graph_batch` checks it, then read by
        :meth:`read_batch`."""
        if not holds_batch(graphs) and not is_smiles(graphs):
            check_graph_collection(graphs, what)
        return self.read_batch(graphs, what=what)

    def read_batch(self, graphs, *, what="graphs"):
        """:meth:`graph_batch` of a collection its caller has checked (not checked
        again: :func:`~graphinvariants.graphs.batch.read_graph_batch`)."""
        batch = read_graph_batch(graphs, **self.graph_reads(), what=what)
        return batch.unweighted() if self.weight is None else batch

    def fit_sides(self, X, Y):
        """Called by the pair engine before it embeds ``X`` against ``Y`` (``Y`` None: the
        Gram matrix of ``X``). A functional that fits parameters on the graphs it embeds
        fits them here, on what it says it does; returns ``(X, Y)``, possibly read once
        into graph batches. The default fits nothing and returns them unchanged."""
        return X, Y

    def prepare(self, embedded, what):
        """Kernel-ready form of one side (computed once per side); default: as is."""
        return embedded

    def align(self, left, right):
        """Make two prepared sides comparable (a shared vocabulary); default: as is."""
        return left, right

    @abstractmethod
    def tile(self, left, right, rows, cols):
        """Kernel values of all pairs ``(left[rows], right[cols])``, shape (len(rows), len(cols))."""

    def open_tile(self, left, right, rows, cols):
        """:meth:`tile` with some values possibly left for :meth:`finish`: returns
        ``(values, pending)``, ``pending`` the flat positions in ``values`` of the pairs
        whose values are not final. The pair engine gathers those of all its tiles and
        finishes them in one call. The default leaves none."""
        return self.tile(left, right, rows, cols), np.zeros(0, np.int64)

    def finish(self, left, right, i, j):
        """Final values of the pairs ``(left[i[p]], right[j[p]])`` that :meth:`open_tile`
        left pending, shape (len(i),); the same whatever other pairs come with them."""
        raise NotImplementedError(f"{type(self).__name__}.open_tile leaves no pairs to finish")

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


def plain_value(value):
    """``value`` in a form that compares by value and prints plainly (arrays as tuples,
    numpy scalars as Python numbers)."""
    if isinstance(value, np.ndarray):
        return tuple(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return tuple(plain_value(v) for v in value)
    return value


def check_params(recorded, asked, what):
    """Raise ValueError if a batch's record of parameters differs from those asked for.

    Parameters
    ----------
    recorded : dict or None
        The batch's ``params``; a parameter it does not record (a batch built by hand
        from arrays) is taken on trust, and so is everything when it is None.
    asked : dict
        :meth:`Functional.embedding_params` of the functional that uses the batch.
    what : str
        Name of the argument, for the message.

    Examples
    --------
    >>> from graphinvariants.embeddings.base import check_params
    >>> check_params({"k": 3, "weight": None}, {"k": 7, "weight": None}, "other")
    Traceback (most recent call last):
        ...
    ValueError: other was embedded with k=3, but k=7 was asked for; embed the graphs again with these parameters, or ask for the ones they were embedded with
    """
    difference = params_difference(recorded, asked)
    if difference:
        raise ValueError(
            f"{what} was embedded with {difference}; "
            "embed the graphs again with these parameters, or ask for the ones they were embedded with"
        )


def params_difference(recorded, asked):
    """``"k=3, but k=7 was asked for"``: the parameters a record and those asked for
    disagree on ("" if none; parameters the record lacks are not compared)."""
    differ = [key for key, value in asked.items() if recorded and key in recorded and recorded[key] != value]
    if not differ:
        return ""
    made = ", ".join(f"{key}={recorded[key]!r}" for key in differ)
    wanted = ", ".join(f"{key}={asked[key]!r}" for key in differ)
    return f"{made}, but {wanted} {'was' if len(differ) == 1 else 'were'} asked for"


def params_hash(params):
    """A 52-bit fingerprint of a record of parameters, the same in every process and
    session: stored with arrays of embeddings (one per graph), where a dict cannot go.
    Below ``2**53``, it survives a trip through float64 (a table of embeddings stored
    as one float array) exactly.

    Examples
    --------
    >>> from graphinvariants.embeddings.base import params_hash
    >>> params_hash({"k": 3}) == params_hash({"k": 3}), params_hash({"k": 3}) == params_hash({"k": 4})
    (True, False)
    """
    text = repr(sorted((key, plain_value(value)) for key, value in params.items()))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") >> 12


def check_not_other_batch(functional, items, what):
    """Refuse the embeddings of another functional, naming both (they would otherwise
    be read as a collection of graphs and fail deep inside)."""
    if isinstance(items, tuple(_BATCH_TYPES)) and not isinstance(items, functional.batch_type):
        raise TypeError(
            f"{what} holds precomputed {type(items).__name__} embeddings, but {functional!r} embeds into "
            f"{functional.batch_type.__name__}; pass the graphs, or embeddings of this kernel"
        )


def check_not_single(items, single_types, what):
    """Refuse one embedding where a sequence is expected (and a path)."""
    if isinstance(items, single_types):
        raise TypeError(f"{what} must be a sequence, got a single {describe(items)}; wrap it in a list")
    if path_hint(items):
        raise TypeError(f"{what} must be a sequence, got {describe(items)}{path_hint(items)}")
