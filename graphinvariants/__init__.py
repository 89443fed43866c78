"""graphinvariants: power-kernel graph invariants for NetworkX and igraph graphs.

The data path reads top to bottom: graph -> adjacency (:mod:`~graphinvariants.adapters`)
-> power summary (:mod:`~graphinvariants.summary`) -> invariants
(:mod:`~graphinvariants.invariants`) -> kernel (:mod:`~graphinvariants.kernel`) ->
evaluation, perturbation and plots.
"""

from .adapters import GraphAdjacency, as_adjacency
from .datasets import TUDataset, load_tu
from .estimator import PowerKernel
from .evaluation import EvaluationResult, evaluate_kernel
from .invariants import (
    DEFAULT_RIDGE,
    PowerInvariants,
    batch_power_invariants,
    load_invariants,
    power_invariants,
    save_invariants,
)
from .kernel import bhattacharyya_coefficient, paired_power_kernel, power_kernel, power_kernel_matrix
from .perturbation import PERTURBATIONS, flip_node_pair, perturbation_sequence, random_flips
from .plotting import InvariantsDisplay, KernelDecayDisplay, KernelMatrixDisplay, plot_invariants, plot_kernel_matrix
from .study import PerturbationStudy, perturbation_study
from .summary import PowerSummary, power_summary

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_RIDGE",
    "PERTURBATIONS",
    "EvaluationResult",
    "GraphAdjacency",
    "InvariantsDisplay",
    "KernelDecayDisplay",
    "KernelMatrixDisplay",
    "PerturbationStudy",
    "PowerInvariants",
    "PowerKernel",
    "PowerSummary",
    "TUDataset",
    "as_adjacency",
    "batch_power_invariants",
    "bhattacharyya_coefficient",
    "evaluate_kernel",
    "flip_node_pair",
    "load_invariants",
    "load_tu",
    "paired_power_kernel",
    "perturbation_sequence",
    "perturbation_study",
    "plot_invariants",
    "plot_kernel_matrix",
    "power_invariants",
    "power_kernel",
    "power_kernel_matrix",
    "power_summary",
    "random_flips",
    "save_invariants",
]
