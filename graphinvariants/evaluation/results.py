"""What an evaluation gives back: :class:`EvaluationResult` (accuracies of the C-SVM
protocol) and :class:`RegressionResult` (RMSE of kernel ridge regression), one figure
per repetition and outer fold, with their mean and standard error."""

from dataclasses import dataclass, field

import numpy as np

__all__ = ["EvaluationResult", "RegressionResult"]


class _OverRepetitions:
    """``mean`` and ``stderr`` of a result whose ``repetition_means`` are one figure per
    repetition (accuracy or RMSE)."""

    @property
    def mean(self):
        """Mean over all folds and repetitions (Python float)."""
        return float(self.repetition_means.mean())

    @property
    def stderr(self):
        """Standard error over repetitions (Python float; 0 for one repetition)."""
        reps = self.repetition_means
        return float(reps.std(ddof=1) / np.sqrt(reps.size)) if reps.size > 1 else 0.0


@dataclass
class EvaluationResult(_OverRepetitions):
    """Outcome of :func:`evaluate_kernel`.

    Attributes
    ----------
    accuracies : numpy.ndarray of shape (n_repeats, n_folds)
        Test accuracy of each outer fold.
    chosen_C : numpy.ndarray of shape (n_repeats, n_folds)
        C picked on the validation part.
    validation_accuracies : numpy.ndarray of shape (n_repeats, n_folds, len(C_grid))
    n_fits : int
        libsvm fits actually run (the shortcut avoids some).
    elapsed : float
        Wall-clock seconds spent on fits in this call (resumed tasks count 0).
    params : dict
        The protocol's parameters.
    n_resumed : int
        Outer folds taken from the checkpoint instead of being run.
    resumed_seconds : float
        Seconds the resumed folds took when they ran (recorded in the checkpoint; 0
        for a record written before seconds were recorded), so that
        ``elapsed + resumed_seconds`` is the time of the whole run.
    resumed_fits : int
        libsvm fits of the resumed folds (``n_fits + resumed_fits``: the whole run's).

    Examples
    --------
    >>> import numpy as np
    >>> import graphinvariants as gi
    >>> result = gi.EvaluationResult(np.array([[0.8, 0.9], [0.7, 0.8]]), np.ones((2, 2)),
    ...                              np.zeros((2, 2, 1)), n_fits=8, elapsed=0.1)
    >>> result.mean, round(result.stderr, 4)
    (0.8, 0.05)
    """

    accuracies: np.ndarray
    chosen_C: np.ndarray
    validation_accuracies: np.ndarray
    n_fits: int
    elapsed: float
    params: dict = field(default_factory=dict)
    n_resumed: int = 0
    resumed_seconds: float = 0.0
    resumed_fits: int = 0

    def __post_init__(self):
        for name in ("accuracies", "chosen_C", "validation_accuracies"):
            setattr(self, name, np.asarray(getattr(self, name), dtype=np.float64))

    def __eq__(self, other):
        if not isinstance(other, EvaluationResult):
            return NotImplemented
        arrays = ("accuracies", "chosen_C", "validation_accuracies")
        return all(np.array_equal(getattr(self, a), getattr(other, a)) for a in arrays) and (
            (self.n_fits, self.elapsed, self.params, self.n_resumed, self.resumed_seconds, self.resumed_fits)
            == (other.n_fits, other.elapsed, other.params, other.n_resumed, other.resumed_seconds,
                other.resumed_fits)
        )

    __hash__ = None

    @property
    def repetition_means(self):
        """Mean test accuracy of each repetition, shape (n_repeats,)."""
        return self.accuracies.mean(axis=1)

    def to_dict(self):
        """JSON-serialisable summary and per-fold details."""
        return {
            "mean_accuracy": self.mean,
            "stderr": self.stderr,
            "accuracies": self.accuracies.tolist(),
            "chosen_C": self.chosen_C.tolist(),
            "validation_accuracies": self.validation_accuracies.tolist(),
            "n_fits": self.n_fits,
            "n_resumed": self.n_resumed,
            "elapsed_seconds": self.elapsed,
            "resumed_seconds": self.resumed_seconds,
            "resumed_fits": self.resumed_fits,
            "params": self.params,
        }

    def __repr__(self):
        return (
            f"<EvaluationResult: accuracy {100 * self.mean:.2f} ({100 * self.stderr:.2f}) % over "
            f"{self.accuracies.shape[0]} x {self.accuracies.shape[1]} folds, {self.n_fits} fits>"
        )


@dataclass
class RegressionResult(_OverRepetitions):
    """Outcome of :func:`evaluate_estimator` for real-valued targets.

    Attributes
    ----------
    rmse : numpy.ndarray of shape (n_repeats, n_folds)
        Root mean squared error on each outer test fold.
    chosen_alpha : numpy.ndarray of shape (n_repeats, n_folds)
        Ridge penalty picked on the inner split.
    elapsed, params, n_resumed, resumed_seconds
        As in :class:`EvaluationResult` (there are no libsvm fits to count).

    Examples
    --------
    >>> import numpy as np
    >>> import graphinvariants as gi
    >>> result = gi.RegressionResult(np.array([[1.0, 2.0], [2.0, 3.0]]), np.ones((2, 2)), elapsed=0.1)
    >>> result.mean, result.stderr
    (2.0, 0.5)
    """

    rmse: np.ndarray
    chosen_alpha: np.ndarray
    elapsed: float
    params: dict = field(default_factory=dict)
    n_resumed: int = 0
    resumed_seconds: float = 0.0

    def __post_init__(self):
        self.rmse = np.asarray(self.rmse, dtype=np.float64)
        self.chosen_alpha = np.asarray(self.chosen_alpha, dtype=np.float64)

    def __eq__(self, other):
        if not isinstance(other, RegressionResult):
            return NotImplemented
        return (np.array_equal(self.rmse, other.rmse) and np.array_equal(self.chosen_alpha, other.chosen_alpha)
                and (self.elapsed, self.params, self.n_resumed, self.resumed_seconds)
                == (other.elapsed, other.params, other.n_resumed, other.resumed_seconds))

    __hash__ = None

    @property
    def repetition_means(self):
        """Mean test RMSE of each repetition, shape (n_repeats,)."""
        return self.rmse.mean(axis=1)

    def to_dict(self):
        """JSON-serialisable summary and per-fold details."""
        return {"mean_rmse": self.mean, "stderr": self.stderr, "rmse": self.rmse.tolist(),
                "chosen_alpha": self.chosen_alpha.tolist(), "n_resumed": self.n_resumed,
                "elapsed_seconds": self.elapsed, "resumed_seconds": self.resumed_seconds, "params": self.params}

    def __repr__(self):
        return (f"<RegressionResult: RMSE {self.mean:.3f} ({self.stderr:.3f}) over "
                f"{self.rmse.shape[0]} x {self.rmse.shape[1]} folds>")
