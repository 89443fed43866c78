"""
Nystroem features and nearest neighbours
========================================

Two ways around the ``n x n`` kernel matrix of a large collection, on MUTAG:
:class:`~graphinvariants.GraphFeatures` of the power kernel (Nystroem), whose inner
products approach the kernel as landmarks are added (exactly, with every graph a
landmark), and
:class:`~graphinvariants.NearestGraphs`, the most similar molecules of a query computed in
bounded memory. See :doc:`/large_collections` for the Dask versions.
"""

import matplotlib.pyplot as plt
import numpy as np

import graphinvariants as gi

mutag = gi.load_tu("MUTAG")
invariants = gi.batch_power_invariants(mutag)  # embed once, reuse below
K = gi.kernel_matrix(invariants)

components = [5, 10, 20, 40, 80, 120, 188]
errors = []
for m in components:
    features = gi.GraphFeatures("power", n_landmarks=m, seed=0).fit_transform(mutag)
    errors.append(np.linalg.norm(K - (features @ features.T).toarray()) / np.linalg.norm(K))
    print(f"{m:4d} landmarks: relative error {errors[-1]:.2e}")

fig, ax = plt.subplots(figsize=(5, 3.5))
ax.semilogy(components, np.maximum(errors, 1e-16), marker="o")
ax.set_xlabel("landmarks (n_landmarks)")
ax.set_ylabel(r"$\|K - F F^T\|_F \,/\, \|K\|_F$")
ax.set_title("Nystroem approximation of the power kernel,\nMUTAG", fontsize=11)
fig.tight_layout()  # after the title, so that the figure makes room for both of its lines

# %%
# The five molecules most similar to the first one (itself first, at distance 0), by
# the power kernel, the corpus searched a block at a time in 1 MiB.
search = gi.NearestGraphs(kernel="power", n_neighbors=5, working_memory=1).fit(invariants)
distances, indices = search.kneighbors(invariants[:1])
print(indices[0], distances[0].round(3), mutag.y[indices[0]])
