"""Benchmark data: the TU Dortmund graph-classification collections.

The loader reads files into a :class:`~graphinvariants.graphs.GraphBatch`; it computes
no invariants (that is the job of the embeddings, which accept a data set directly).
"""

from .synthetic import CSL_SKIPS, csl_graphs, strongly_regular_pair
from .tu import DataNotFoundError, TUDataset, default_data_home, load_tu, read_tu_folder, safe_extract

__all__ = ["DataNotFoundError", "TUDataset", "default_data_home", "load_tu", "read_tu_folder", "safe_extract",
           "CSL_SKIPS", "csl_graphs", "strongly_regular_pair"]
