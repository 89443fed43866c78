"""Graphs in: one graph as a :class:`GraphAdjacency`, many as a :class:`GraphBatch`.

This is the bottom of the data path; nothing here knows about walks, embeddings or
kernels.
"""

from .adjacency import GraphAdjacency, as_adjacency, from_edge_arrays
from .batch import GraphBatch, as_graph_batch
from .edgelist import read_edgelist

__all__ = ["GraphAdjacency", "GraphBatch", "as_adjacency", "as_graph_batch", "from_edge_arrays", "read_edgelist"]
