"""Sums and elementwise products of normalised kernels, as functionals.

Both stay positive semidefinite with a unit diagonal: the product of PSD kernels is
PSD (Schur), and the sum is taken as the mean so that ``K(G, G) = 1``. A combination
embeds every graph once per member and evaluates each tile member by member.

Edge weights: a member that takes a ``weight`` reads it (an edge of weight 0 carries no
walk), and a member that takes none (``wl``, ``labelled_histogram``) sees every edge of
the graph, whatever its weight, exactly as it does alone: a member's kernel inside a
combination is its kernel alone. (A :class:`~graphinvariants.GraphBatch` holds no
zero-weight edges, so a weighted batch given as input has none to show.)
"""

from ..graphs.batch import holds_batch, read_graph_batch
from .base import Functional, check_not_other_batch

__all__ = ["Combination"]


class CombinationBatch(tuple):
    """The members' embedding batches of one collection, in member order."""

    def __len__(self):
        return len(self[0]) if tuple.__len__(self) else 0

    @property
    def members(self):
        return tuple(self)


class Combination(Functional):
    """Elementwise product (``"*"``) or mean (``"+"``) of the kernels of several functionals.

    Parameters
    ----------
    functionals : sequence of Functional
    operation : {"*", "+"}, default="*"

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.embeddings import Combination, GaussianEmbedding, WalkHistogram
    >>> from graphinvariants.kernels import pairwise_kernels
    >>> both = Combination([GaussianEmbedding(k=3), WalkHistogram(k=3)], operation="*")
    >>> graphs = [nx.gnp_random_graph(30, 0.2, seed=s) for s in range(3)]
    >>> K = pairwise_kernels(graphs, functional=both)
    >>> K.shape, bool((K <= 1).all())
    ((3, 3), True)
    """

    batch_type = CombinationBatch

    def __init__(self, functionals, *, operation="*"):
        functionals = tuple(functionals)
        if len(functionals) < 2 or not all(isinstance(f, Functional) for f in functionals):
            raise TypeError("a combination needs at least two functionals")
        if operation not in ("*", "+"):
            raise ValueError(f"operation must be '*' or '+', got {operation!r}")
        self.functionals = functionals
        self.operation = operation

    def embed_collection(self, items, *, what="graphs"):
        """:meth:`Functional.embed_collection`: every member embeds the graphs read
        once (twice when members with and without a weight meet, see below)."""
        if isinstance(items, CombinationBatch):
            self.check_batch(items, what)
            return items
        check_not_other_batch(self, items, what)
        weight, read = self._reads()
        two_reads = weight is not None and any(f.weight is None for f in self.functionals) and not holds_batch(items)
        if two_reads and iter(items) is items:  # a one-shot iterator: read it once
            items = list(items)
        weighted = read_graph_batch(items, weight=weight, **read, what=what)
        # members without a weight see every edge, also those of weight 0, which the
        # weighted batch does not hold: they get the graphs read without weights (a
        # batch given as input holds no zero-weight edge: its pattern is every edge it has)
        pattern = read_graph_batch(items, **read, what=what) if two_reads else weighted.unweighted()
        return self._embed(weighted, pattern)

    def fit_sides(self, X, Y):
        """Members that fit parameters on the graphs (see :meth:`Functional.fit_sides`)
        fit them as they would alone: on the members' embeddings of a precomputed side,
        on the graphs of the others (read once here)."""
        fitting = [i for i, f in enumerate(self.functionals) if type(f).fit_sides is not Functional.fit_sides]
        if not fitting:
            return X, Y
        weight, _ = self._reads()
        sides = []
        for side, what in ((X, "graphs"), (Y, "other")):
            if side is not None and not isinstance(side, CombinationBatch):
                if weight is None:
                    side = self.graph_batch(side, what=what)
                elif iter(side) is side:  # a one-shot iterator: read it once
                    side = list(side)
            sides.append(side)
        for i in fitting:
            self.functionals[i].fit_sides(*(side.members[i] if isinstance(side, CombinationBatch) else side
                                            for side in sides))
        return tuple(sides)

    def _reads(self):
        """The edge weight and the labels and attributes the members read (one of each)."""
        read = {}
        for option, kind in (("node_label", "node labels"), ("edge_label", "edge labels"),
                             ("node_attributes", "node attributes")):
            names = {getattr(f, option, None) for f in self.functionals} - {None}
            if len(names) > 1:
                raise ValueError(f"the members read different {kind}: {sorted(names)}")
            read[option] = names.pop() if names else None
        weights = {f.weight for f in self.functionals} - {None}
        if len(weights) > 1:
            raise ValueError(f"the members use different edge weights: {sorted(weights)}")
        return (weights.pop() if weights else None), read

    def graph_reads(self):
        weight, read = self._reads()
        return {"weight": weight, **read}

    def read_batch(self, graphs, *, what="graphs"):
        """The graphs read with the members' one weight (not as a 0/1 pattern: the
        members without a weight take the pattern in :meth:`embed`)."""
        return read_graph_batch(graphs, **self.graph_reads(), what=what)

    def embed(self, batch):
        # members without a weight see the 0/1 pattern, also of a weighted batch given
        # as input (a batch holds no zero-weight edge: its pattern is every edge it has)
        return self._embed(batch, batch.unweighted())

    def _embed(self, weighted, pattern):
        return CombinationBatch(f.embed(weighted if f.weight is not None else pattern) for f in self.functionals)

    def check_batch(self, embedded, what):
        """Check a precomputed combination batch member by member: same members, in
        the same order, each embedded with its member's parameters."""
        members = embedded.members
        if len(members) != len(self.functionals):
            raise ValueError(
                f"{what} holds the embeddings of {len(members)} members, but {self!r} has {len(self.functionals)}"
            )
        for i, (f, e) in enumerate(zip(self.functionals, members)):
            where = f"{what} (member {i}, {type(f).__name__})"
            if not isinstance(e, f.batch_type):
                raise TypeError(f"{where} holds {type(e).__name__} embeddings, but {f.batch_type.__name__} was expected")
            f.check_batch(e, where)

    def prepare(self, embedded, what):
        return tuple(f.prepare(e, what) for f, e in zip(self.functionals, embedded))

    def align(self, left, right):
        pairs = [f.align(a, b) for f, a, b in zip(self.functionals, left, right)]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)

    def _combine(self, values):
        out = values[0].copy()
        for v in values[1:]:
            if self.operation == "*":
                out *= v
            else:
                out += v
        return out if self.operation == "*" else out / len(values)

    def tile(self, left, right, rows, cols):
        return self._combine([f.tile(a, b, rows, cols) for f, a, b in zip(self.functionals, left, right)])

    def pairs(self, left, right, i, j):
        return self._combine([f.pairs(a, b, i, j) for f, a, b in zip(self.functionals, left, right)])

    def for_pairs(self, n_pairs):
        return Combination([f.for_pairs(n_pairs) for f in self.functionals], operation=self.operation)

    def tile_size(self, n_jobs):
        return min(f.tile_size(n_jobs) for f in self.functionals)

    def __repr__(self):
        return f" {self.operation} ".join(repr(f) for f in self.functionals)
