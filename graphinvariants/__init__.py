"""graphinvariants: power-kernel graph invariants for NetworkX and igraph graphs.

The data path reads top to bottom, one layer per package or module:

graphs (:mod:`~graphinvariants.graphs`: one graph, a batch of graphs) -> walks
(:mod:`~graphinvariants.walks.summary`: Algorithm 1) -> embeddings
(:mod:`~graphinvariants.embeddings`: the Gaussian and other functionals) -> kernels
(:mod:`~graphinvariants.kernels`: the pair engine) -> estimator, datasets, perturbation,
evaluation, explanations -> cli. Each topic draws its own pictures (a Display in its
``_display.py``), on the drawing helpers of ``_utils/plotting.py``.
"""

#: The version, written only here: pyproject.toml reads it (tool.setuptools.dynamic).
__version__ = "0.3.0"


#: Every public name -> the module that defines it. ``import graphinvariants`` imports
#: none of them (module ``__getattr__``, SPEC 1): each module loads on the first use of
#: one of its names, and the heavy dependencies (scikit-learn, scipy.stats, pandas, the
#: [dask] extra) only with the names that need them; so does any submodule (gi.estimator,
#: gi.distributed, gi.cli). Nothing in the package is imported for a call that does not
#: need it: the NetworkX backend's first WL hash loads numpy and the backend alone.
#: tests/test_imports.py checks.
_LAZY = {
    **dict.fromkeys(["TUDataset", "load_tu"], "datasets"),
    **dict.fromkeys(["DEFAULT_RIDGE", "GaussianBatch", "PowerInvariants", "batch_power_invariants",
                     "load_invariants", "power_invariants", "save_invariants"], "embeddings"),
    **dict.fromkeys(["EvaluationResult", "RegressionResult", "evaluate_estimator", "evaluate_kernel"], "evaluation"),
    **dict.fromkeys(["GraphAdjacency", "GraphBatch", "as_adjacency", "as_graph_batch", "from_edge_arrays",
                     "read_edgelist"], "graphs"),
    **dict.fromkeys(["KERNELS", "bhattacharyya_coefficient", "kernel_matrix", "paired_power_kernel", "power_kernel",
                     "power_kernel_matrix"], "kernels"),
    **dict.fromkeys(["PERTURBATIONS", "PerturbationStudy", "flip_node_pair", "perturbation_sequence",
                     "perturbation_study", "random_flips"], "perturbation"),
    **dict.fromkeys(["InvariantsDisplay", "plot_invariants"], "embeddings._display"),
    **dict.fromkeys(["KernelMatrixDisplay", "plot_kernel_matrix"], "kernels._display"),
    "KernelDecayDisplay": "perturbation._display",
    **dict.fromkeys(["Explanation", "NodeValuesDisplay", "PairExplanation", "PairValuesDisplay", "explain",
                     "explain_pair"], "explanations"),
    **dict.fromkeys(["PowerSummary", "power_summary"], "walks.summary"),
    "closed_walk_profile": "walks.closed",
    **dict.fromkeys(["GraphKernel", "PowerKernel"], "estimator"),
    "GraphFeatures": "features",
    "NearestGraphs": "search",
}


#: The names deprecated in 0.3.0 (removed in 0.4.0) -> their module: reading one warns,
#: every time (so it is not cached in the module's namespace), and constructing or
#: calling one warns again. The three maps are GraphFeatures under their 0.2 names and
#: parameters; kneighbors is NearestGraphs' kernel index asked for kernel values.
_DEPRECATED = {
    "kneighbors": "search._kernel_index",
    "LearnedFeatures": "features.deprecated",
    "MeanMapFeatures": "features.deprecated",
    "NystroemGraphKernel": "features.deprecated",
}


def __getattr__(name):
    import importlib
    import importlib.util

    if name in _DEPRECATED:
        import warnings

        module = importlib.import_module(f"{__name__}.{_DEPRECATED[name]}")
        warnings.warn(f"{name} is deprecated since 0.3.0 and goes in 0.4.0: use {module.DEPRECATED[name]}",
                      FutureWarning, stacklevel=2)
        return getattr(module, name)
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    elif not name.startswith("__") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # looked up once
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "DEFAULT_RIDGE",
    "KERNELS",
    "PERTURBATIONS",
    "EvaluationResult",
    "Explanation",
    "GaussianBatch",
    "GraphAdjacency",
    "GraphBatch",
    "GraphFeatures",
    "GraphKernel",
    "InvariantsDisplay",
    "KernelDecayDisplay",
    "KernelMatrixDisplay",
    "LearnedFeatures",
    "MeanMapFeatures",
    "NearestGraphs",
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
    "from_edge_arrays",
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
    "read_edgelist",
    "RegressionResult",
    "evaluate_estimator",
    "save_invariants",
    "closed_walk_profile",
]
