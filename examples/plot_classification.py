"""
Graph classification with scikit-learn
======================================

:class:`graphinvariants.GraphKernel` turns a list of graphs into a kernel matrix, so it
fits in a :class:`~sklearn.pipeline.Pipeline` with a precomputed-kernel SVM, and works with
:func:`~sklearn.model_selection.cross_val_score` and
:class:`~sklearn.model_selection.GridSearchCV`. Its default learns, on each training
part, a weighted sum of candidate kernels from the training labels (the README's
recommendation); :class:`graphinvariants.PowerKernel` is the paper's kernel alone.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC

import graphinvariants as gi

mutag = gi.load_tu("MUTAG")  # a sequence of NetworkX graphs, with the class labels in .y
graphs, y = list(mutag), mutag.y

model = Pipeline([("kernel", gi.GraphKernel(seed=0)), ("svm", SVC(kernel="precomputed", C=10))])
cv = StratifiedKFold(10, shuffle=True, random_state=0)
scores = cross_val_score(model, graphs, y, cv=cv)  # the kernel is fitted on each training part
print(f"10-fold accuracy: {scores.mean():.3f} +/- {scores.std():.3f}")

# %%
# Fitted on all graphs, the kernel prints the candidates it weighted (largest first):
print(model.fit(graphs, y).named_steps["kernel"])

# %%
# The paper's power kernel has one parameter, the number of power iterations ``k``.
# Tune ``k`` and ``C`` together, and plot the cross-validated accuracy of every pair. On
# MUTAG the differences between the settings are small next to the spread over the folds.
model = Pipeline([("kernel", gi.PowerKernel(k=5)), ("svm", SVC(kernel="precomputed", C=10))])
k_grid, C_grid = [1, 2, 3, 4, 5, 6], [1, 10, 100]
search = GridSearchCV(model, {"kernel__k": k_grid, "svm__C": C_grid}, cv=cv)
search.fit(graphs, y)
print("best:", search.best_params_, f"accuracy {search.best_score_:.3f}")

results = search.cv_results_
fig, ax = plt.subplots(layout="constrained")
for C in C_grid:
    rows = np.flatnonzero(results["param_svm__C"] == C)
    ks = np.asarray(results["param_kernel__k"][rows], dtype=int)
    mean = results["mean_test_score"][rows]
    stderr = results["std_test_score"][rows] / np.sqrt(cv.get_n_splits())
    ax.errorbar(ks, mean, yerr=stderr, marker="o", capsize=3, label=f"C = {C:g}")
ax.set_xlabel("power iterations k")
ax.set_ylabel("10-fold accuracy (bars: one standard error)")
ax.set_title("MUTAG: power kernel + SVM, grid search over k and C")
ax.set_xticks(k_grid)
legend = ax.legend()

# %%
# The paper's full protocol (10 x 10-fold, C chosen on an inner validation split) is
# :func:`graphinvariants.evaluate_kernel`; here with two repetitions.
K = gi.power_kernel_matrix(mutag, k=5)
print(gi.evaluate_kernel(K, y, n_repeats=2, seed=0))
