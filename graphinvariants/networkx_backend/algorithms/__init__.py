"""The NetworkX functions the backend runs, one module per NetworkX module
(``networkx/algorithms/graph_hashing.py``, ``networkx/algorithms/walks.py``); each
function carries its own ``can_run`` and ``should_run`` (:mod:`..rules`)."""

from .graph_hashing import weisfeiler_lehman_graph_hash, weisfeiler_lehman_subgraph_hashes
from .walks import number_of_walks

__all__ = ["number_of_walks", "weisfeiler_lehman_graph_hash", "weisfeiler_lehman_subgraph_hashes"]
