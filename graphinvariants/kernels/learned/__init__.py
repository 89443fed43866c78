"""The learned default: a weighted combination of members, chosen by kernel alignment."""

from ._combination import CANDIDATES, PRODUCTS, SELECTIONS, LearnedCombination, canonical_ranks, graph_digests

__all__ = ["CANDIDATES", "PRODUCTS", "SELECTIONS", "LearnedCombination", "canonical_ranks", "graph_digests"]
