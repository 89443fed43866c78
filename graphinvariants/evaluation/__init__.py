"""The paper's evaluation protocol (Table 1) for kernels and estimators."""

from ._protocol import (
    DEFAULT_ALPHA_GRID, DEFAULT_C_GRID, EvaluationResult, RegressionResult, evaluate_estimator, evaluate_kernel,
)

__all__ = ["DEFAULT_ALPHA_GRID", "DEFAULT_C_GRID", "EvaluationResult", "RegressionResult", "evaluate_estimator",
           "evaluate_kernel"]
