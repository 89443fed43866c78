"""Explanations: which nodes (and pairs of nodes) make a kernel value or a prediction."""

from ._display import NodeValuesDisplay, PairValuesDisplay
from ._explain import Explanation, PairExplanation, explain, explain_pair, node_counts

__all__ = ["Explanation", "NodeValuesDisplay", "PairExplanation", "PairValuesDisplay", "explain", "explain_pair",
           "node_counts"]
