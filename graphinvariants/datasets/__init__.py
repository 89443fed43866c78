"""Benchmark data: the TU Dortmund graph-classification collections, and molecules.

The loader reads files into a :class:`~graphinvariants.graphs.GraphBatch`; it computes
no invariants (that is the job of the embeddings, which accept a data set directly).
"""

from .cfi import cfi_graph, cfi_pair
from .molecules import TU_MOLECULES, as_molecules, atom_symbols, from_mol, from_smiles, to_mol
from .perturbed import perturbed_copies
from .synthetic import CSL_SKIPS, csl_graphs, strongly_regular_pair
from .srg import SRG25_GRAPH6, srg25_graphs
from .tu import DataNotFoundError, TUDataset, default_data_home, load_tu, read_tu_folder, safe_extract

__all__ = [
    "CSL_SKIPS", "cfi_graph", "cfi_pair", "DataNotFoundError", "TUDataset", "as_molecules", "atom_symbols", "csl_graphs", "default_data_home",
    "from_mol", "from_smiles",
    "load_tu", "perturbed_copies", "read_tu_folder", "safe_extract", "strongly_regular_pair", "TU_MOLECULES", "to_mol",
    "SRG25_GRAPH6", "srg25_graphs",
]
