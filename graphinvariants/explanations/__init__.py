"""Explanations: which nodes (and pairs of nodes) make a kernel value or a prediction.

The results (:class:`Explanation`, :class:`PairExplanation`) and their pictures
(:class:`NodeValuesDisplay`, :class:`PairValuesDisplay`) load with the package;
:func:`explain`, :func:`explain_pair` and :func:`node_counts` read fitted scikit-learn
models, so they load scikit-learn, and are imported from ``explanations/_explain.py``
on first use (module ``__getattr__``, SPEC 1), as is the path algebra
(:class:`TermPaths`, ``explanations/_paths.py``).
"""

import importlib

from ._display import NodeValuesDisplay, PairValuesDisplay
from .results import Explanation, PairExplanation

__all__ = ["Explanation", "NodeValuesDisplay", "PairExplanation", "PairValuesDisplay", "TermPaths", "explain",
           "explain_pair", "node_counts"]

#: Names imported from their module on first use: name -> module of this package.
_LAZY = {"explain": "_explain", "explain_pair": "_explain", "node_counts": "_explain", "TermPaths": "_paths"}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value  # looked up once
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
