"""What :meth:`NearestGraphs.fit <graphinvariants.NearestGraphs.fit>` reads besides a
collection: an iterator of graphs or SMILES, a file of SMILES (a path or an open text
file), streamed a block of graphs at a time."""

import itertools
import os

import numpy as np

from .._utils.validation import check_working_memory
from ..graphs import GraphBatch
from ..graphs.batch import check_not_single_graph
from ..graphs.smiles import is_smiles, smiles_lines
from ._parts import is_bag

__all__ = ["BYTES_PER_GRAPH", "collection", "graphs_per_block", "is_sized", "streamed"]

#: Bytes that embedding one molecule of a fit that streams is taken to hold at its peak
#: (its graph, the WL rounds, its row): ``working_memory`` sets the block of graphs
#: embedded at a time by it. An estimate from the rows' sizes, not a measured peak.
BYTES_PER_GRAPH = 32 * 2**10


def is_sized(graphs):
    """Whether ``graphs`` is a collection with a length and positions (not a stream)."""
    return hasattr(graphs, "__len__") and hasattr(graphs, "__getitem__")


def streamed(graphs):
    """``(graphs, head)``: a path (``os.PathLike``) or an open text file as the iterator
    of its SMILES (:func:`~graphinvariants.graphs.smiles.smiles_lines`), an iterator as
    itself with its first item read ahead (``head``, a list: what the graphs carry is
    read from it); a collection as it is (``head`` the collection)."""
    if isinstance(graphs, os.PathLike) or (hasattr(graphs, "readline") and hasattr(graphs, "__iter__")):
        graphs = smiles_lines(graphs)
    if graphs is None or is_bag(graphs) or is_sized(graphs) or isinstance(graphs, (str, bytes)) or not hasattr(
            graphs, "__iter__") or isinstance(graphs, GraphBatch) or hasattr(graphs, "batch"):
        return graphs, graphs
    graphs = iter(graphs)
    head = list(itertools.islice(graphs, 1))
    return itertools.chain(head, graphs), head


def graphs_per_block(working_memory):
    """Graphs embedded at a time by a fit that streams, for ``working_memory`` MiB
    (:data:`BYTES_PER_GRAPH` each; at least 64).

    Examples
    --------
    >>> from graphinvariants.search._inputs import graphs_per_block
    >>> graphs_per_block(64), graphs_per_block(1)
    (2048, 64)
    """
    return int(max(64, check_working_memory(working_memory) * 2**20 // BYTES_PER_GRAPH))


def collection(graphs, what):
    """``graphs`` as an indexable collection; SMILES strings become molecules
    (:func:`~graphinvariants.datasets.from_smiles`, the ``[chem]`` extra)."""
    if isinstance(graphs, str):
        raise TypeError(f"{what} must be a collection of graphs or SMILES strings, got one string {graphs!r}; "
                        "wrap it in a list")
    if isinstance(graphs, np.ndarray) and graphs.dtype.kind in "US":
        graphs = graphs.tolist()
    if is_smiles(graphs):  # read where graphs are read (as_graph_batch), so that a kernel or feature map
        return list(graphs)  # named for them reads their atoms and bonds (kernels.molecule_parameters)
    check_not_single_graph(graphs, what)
    if isinstance(graphs, GraphBatch) or isinstance(getattr(graphs, "batch", None), GraphBatch):
        return graphs
    if not hasattr(graphs, "__iter__"):
        raise TypeError(f"{what} must be a collection of graphs, got {graphs!r}")
    return graphs if hasattr(graphs, "__getitem__") and hasattr(graphs, "__len__") else list(graphs)
