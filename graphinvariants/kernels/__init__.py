"""Kernels between graphs: the embedding-agnostic pair engine and the named kernels.

* :mod:`~graphinvariants.kernels.engine`: tiles of pairs, Gram, cross, paired and
  row-chunked matrices for any functional.
* :mod:`~graphinvariants.kernels.power`: the paper's power kernel.
* :mod:`~graphinvariants.kernels.registry`: kernels by name (:func:`kernel_matrix`).
* :mod:`~graphinvariants.kernels.topk`: the top-k and its merge, which every search shares.
"""

from .engine import KernelBlocks, kernel_row_chunks, paired_kernels, pairwise_kernels
from .power import bhattacharyya_coefficient, paired_power_kernel, power_kernel, power_kernel_matrix
from .registry import (
    DEFAULT_KERNEL, KERNELS, LEARNED, RECOMMENDED, kernel_matrix, make_functional, molecule_parameters, parse_kernel_spec,
)

__all__ = [
    "DEFAULT_KERNEL",
    "KERNELS",
    "KernelBlocks",
    "LEARNED",
    "RECOMMENDED",
    "bhattacharyya_coefficient",
    "kernel_matrix",
    "kernel_row_chunks",
    "make_functional",
    "molecule_parameters",
    "parse_kernel_spec",
    "paired_kernels",
    "paired_power_kernel",
    "pairwise_kernels",
    "power_kernel",
    "power_kernel_matrix",
]


def __getattr__(name):
    # the learned combination's modules (learned, alignment, ...) are imported by the
    # estimators, not above: gi.kernels.learned still resolves, on first use
    import importlib
    import importlib.util

    if not name.startswith("__") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
