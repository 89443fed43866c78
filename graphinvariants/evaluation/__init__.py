"""The paper's evaluation protocol (Table 1) for kernels and estimators.

``_protocol`` runs the C-SVM protocol on a precomputed kernel matrix, ``_estimator``
the same protocol (and kernel ridge regression) for kernels fitted on each training
part, both on the checkpointed fold runner of ``_runs``; ``results`` holds what they
return.
"""

from ._estimator import DEFAULT_ALPHA_GRID, evaluate_estimator
from ._protocol import DEFAULT_C_GRID, evaluate_kernel
from .results import EvaluationResult, RegressionResult

__all__ = ["DEFAULT_ALPHA_GRID", "DEFAULT_C_GRID", "EvaluationResult", "RegressionResult", "evaluate_estimator",
           "evaluate_kernel"]
