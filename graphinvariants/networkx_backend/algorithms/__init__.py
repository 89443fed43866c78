"""The NetworkX functions the backend runs, one module per NetworkX module
(``networkx/algorithms/graph_hashing.py``, ``networkx/algorithms/walks.py``)."""

from . import graph_hashing, walks

__all__ = ["graph_hashing", "walks"]
