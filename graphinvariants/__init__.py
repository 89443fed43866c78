"""graphinvariants: power-kernel graph invariants for NetworkX and igraph graphs.

The data path reads top to bottom, one layer per package or module:

graphs (:mod:`~graphinvariants.graphs`: one graph, a batch of graphs) -> walks
(:mod:`~graphinvariants.walks`: Algorithm 1) -> embeddings
(:mod:`~graphinvariants.embeddings`: the Gaussian and other functionals) -> kernels
(:mod:`~graphinvariants.kernels`: the pair engine) -> estimator, datasets, perturbation,
evaluation -> plotting -> cli.
"""

from .datasets import TUDataset, load_tu
from .embeddings import (
    DEFAULT_RIDGE,
    GaussianBatch,
    PowerInvariants,
    batch_power_invariants,
    load_invariants,
    power_invariants,
    save_invariants,
)
from .approximation import MeanMapFeatures, NystroemGraphKernel
from .estimator import GraphKernel, PowerKernel
from .scale import LearnedFeatures
from .explanations import Explanation, PairExplanation, explain, explain_pair
from .evaluation import EvaluationResult, RegressionResult, evaluate_estimator, evaluate_kernel
from .graphs import GraphAdjacency, GraphBatch, as_adjacency, as_graph_batch
from .kernels import (
    KERNELS,
    bhattacharyya_coefficient,
    kernel_matrix,
    kneighbors,
    paired_power_kernel,
    power_kernel,
    power_kernel_matrix,
)
from .perturbation import (
    PERTURBATIONS,
    PerturbationStudy,
    flip_node_pair,
    perturbation_sequence,
    perturbation_study,
    random_flips,
)
from .plotting import InvariantsDisplay, KernelDecayDisplay, KernelMatrixDisplay, plot_invariants, plot_kernel_matrix
from .plotting import NodeValuesDisplay, PairValuesDisplay
from .walks import PowerSummary, power_summary
from .closed_walks import closed_walk_profile

__version__ = "0.2.0"


def __getattr__(name):
    # graphinvariants.dask needs the [dask] extra: imported on first use of gi.dask,
    # never by "import graphinvariants"
    if name == "dask":
        import importlib

        return importlib.import_module(f"{__name__}.dask")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "DEFAULT_RIDGE",
    "KERNELS",
    "PERTURBATIONS",
    "EvaluationResult",
    "Explanation",
    "GaussianBatch",
    "GraphAdjacency",
    "GraphBatch",
    "GraphKernel",
    "InvariantsDisplay",
    "KernelDecayDisplay",
    "KernelMatrixDisplay",
    "LearnedFeatures",
    "MeanMapFeatures",
    "NodeValuesDisplay",
    "NystroemGraphKernel",
    "PairValuesDisplay",
    "PairExplanation",
    "PerturbationStudy",
    "PowerInvariants",
    "PowerKernel",
    "PowerSummary",
    "TUDataset",
    "as_adjacency",
    "as_graph_batch",
    "batch_power_invariants",
    "bhattacharyya_coefficient",
    "evaluate_kernel",
    "explain",
    "explain_pair",
    "flip_node_pair",
    "kernel_matrix",
    "kneighbors",
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
    "RegressionResult",
    "evaluate_estimator",
    "save_invariants",
    "closed_walk_profile",
]
