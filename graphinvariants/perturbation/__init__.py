"""Perturbing graphs: the edits (flip, remove, add, swap, ...), the paper's study, and
one large graph edited in place with its invariants updated incrementally."""

from .edits import PERTURBATIONS, flip_node_pair, perturbation_sequence, random_flips
from .incremental import PerturbedGraph
from .study import PerturbationStudy, perturbation_study

__all__ = [
    "PERTURBATIONS",
    "PerturbationStudy",
    "PerturbedGraph",
    "flip_node_pair",
    "perturbation_sequence",
    "perturbation_study",
    "random_flips",
]
