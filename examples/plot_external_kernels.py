"""
GraKeL kernels inside the learned default
=========================================

:class:`graphinvariants.GraphKernel` learns a weighted sum of candidate kernels from the
training labels. Its candidates need not be the library's own: ``members=`` also takes
GraKeL kernel objects (the ``[baselines]`` extra), callables
``(graphs_a, graphs_b) -> matrix`` and transformers (see
:mod:`graphinvariants.kernels.learned.external`). Here our Weisfeiler-Lehman members and the
attribute member compete with GraKeL's shortest-path kernel and its propagation kernels
(``Propagation`` on the node labels, ``PropagationAttr`` on the 18 continuous node
attributes) on 240 ENZYMES graphs (40 of each class, so that the docs build runs it in
seconds; GraKeL's kernels cost most of the time); the weights say which the training
labels prefer.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from grakel import Propagation, PropagationAttr, ShortestPath
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC

import graphinvariants as gi

warnings.simplefilter("ignore")  # GraKeL's deprecation warnings
enzymes = gi.load_tu("ENZYMES")  # node labels, bond-free edges, 18 node attributes
rng = np.random.default_rng(0)
enzymes = enzymes[np.sort(np.concatenate([rng.choice(np.flatnonzero(enzymes.y == c), 40, replace=False)
                                          for c in np.unique(enzymes.y)]))]
members = ("wl_label", "wloa_label", "attributes",
           ShortestPath(with_labels=True), Propagation(random_state=0), PropagationAttr(random_state=0))

# %%
# One split: GraKeL's kernels receive our graphs converted (node labels, or the node
# attributes for ``PropagationAttr``), each is checked (symmetric, unit diagonal, positive
# semidefinite) and offered like every member, itself and in three Gaussian shapes.
index = np.arange(len(enzymes))
train, test = train_test_split(index, test_size=0.25, stratify=enzymes.y, random_state=0)
model = Pipeline([("kernel", gi.GraphKernel(members=members, seed=0)), ("svm", SVC(kernel="precomputed", C=10))])
model.fit(enzymes[train], enzymes.y[train])
print(f"test accuracy: {model.score(enzymes[test], enzymes.y[test]):.3f}")
weights = {name: w for name, w in model.named_steps["kernel"].weights_.items() if w > 0}
for name, w in sorted(weights.items(), key=lambda item: -item[1]):
    print(f"  {name:<34} {w:.3f}")

fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
names = sorted(weights, key=weights.get)
ax.barh(names, [weights[n] for n in names], color=["C1" if n.startswith("grakel.") else "C0" for n in names])
ax.set_xlabel("learned weight (GraKeL's kernels in orange)")
fig.suptitle("ENZYMES: the learned combination with GraKeL candidates")  # centred on the figure, not the axes

# %%
# Each GraKeL kernel alone, under the same split and SVM, for comparison.
for kernel in members[3:]:
    alone = Pipeline([("kernel", gi.GraphKernel(members=(kernel,), bandwidths=())),
                      ("svm", SVC(kernel="precomputed", C=10))])
    alone.fit(enzymes[train], enzymes.y[train])
    print(f"{type(kernel).__name__:<16} alone: {alone.score(enzymes[test], enzymes.y[test]):.3f}")
