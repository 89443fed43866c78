"""graphinvariants as a NetworkX backend (docs/networkx_backend.rst).

NetworkX finds it through the entry point ``networkx.backends`` (name
``graphinvariants``, object :class:`~graphinvariants.networkx_backend.interface.BackendInterface`),
and its description (``networkx.backend_info``) in the tiny package
``_graphinvariants_nx``, which imports nothing, so that ``import networkx`` does not
import graphinvariants. The backend runs NetworkX's own functions of our subject with
NetworkX's exact answers: ``weisfeiler_lehman_graph_hash``,
``weisfeiler_lehman_subgraph_hashes`` and ``number_of_walks``.
"""

from .graph import BackendGraph
from .interface import BackendInterface

__all__ = ["BackendGraph", "BackendInterface"]
