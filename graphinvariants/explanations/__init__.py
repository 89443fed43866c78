"""Explanations: which nodes (and pairs of nodes) make a kernel value or a prediction."""

from ._explain import Explanation, PairExplanation, explain, explain_pair, node_counts

__all__ = ["Explanation", "PairExplanation", "explain", "explain_pair", "node_counts"]
