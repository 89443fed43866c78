"""graphinvariants.evaluation: the paper's protocol, and the learned default evaluated at the cost of one kernel."""

import numpy as np

import graphinvariants as gi

from .common import tu


class Protocol:
    """The protocol (``reps`` x 10 folds, k = 5, C in 1e-7 .. 1e7) on the power kernel: ``evaluate_kernel`` (joblib over
    outer folds, the exact large-C shortcut) against a serial run without the shortcut. The docs' figures: 10
    repetitions."""

    params = (["MUTAG", "ENZYMES", "NCI1", "NCI109"], [1, 10], ["evaluate_kernel", "serial, no shortcut"])
    param_names = ["data set", "repetitions", "path"]
    timeout = 4 * 3600

    def setup(self, name, reps, path):
        self.ds = tu(name)
        self.K = gi.power_kernel_matrix(gi.batch_power_invariants(self.ds, k=5))
        fast = path == "evaluate_kernel"
        self.options = {"shortcut": fast, "n_jobs": 2 if fast else 1}

    def time_protocol(self, name, reps, path):
        gi.evaluate_kernel(self.K, self.ds.y, n_repeats=reps, seed=0, **self.options)


class _Fresh(gi.GraphKernel):
    """The learned default refitted from the graphs on every part (the path before: ``evaluate_estimator`` fits a
    subclass like any other estimator)."""


class Learned:
    """The learned default under the paper's protocol, one thread: a fixed member (``wl``; shared / fixed at most 3),
    ``GraphKernel(seed=0)`` by ``evaluate_estimator`` (member matrices once, weights per part: shared) and refitted per
    part (fresh). ``track_accuracy`` in %; shared and fresh agree fold by fold."""

    params = (["MUTAG", "NCI1"], [1, 10], ["fixed wl", "shared", "fresh"])
    param_names = ["data set", "repetitions", "path"]
    timeout = 4 * 3600
    number, repeat = 1, 1

    def setup(self, name, reps, path):
        self.ds = ds = tu(name)
        options = {"n_repeats": reps, "n_folds": 10, "seed": 0, "n_jobs": 1}
        self.call = {"fixed wl": lambda: gi.evaluate_kernel(gi.GraphKernel(kernel="wl").fit_transform(ds), ds.y,
                                                            **options),
                     "shared": lambda: gi.evaluate_estimator(ds, ds.y, kernel=gi.GraphKernel(seed=0), **options),
                     "fresh": lambda: gi.evaluate_estimator(ds, ds.y, kernel=_Fresh(seed=0), **options)}[path]

    def time_protocol(self, name, reps, path):
        self.call()

    def track_accuracy(self, name, reps, path):
        return float(100 * np.mean(self.call().accuracies))
