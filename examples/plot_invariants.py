"""
Inspecting the invariants of a graph
====================================

The mean profile says how many walks of each length start at an average node; the
covariance says how walk counts of different lengths vary together across nodes.
"""

import networkx as nx

import graphinvariants as gi

G = nx.les_miserables_graph()
inv = gi.power_invariants(G, k=5)
print(inv)

# %%
# A regular graph has a singular covariance: every node has the same profile.
print(gi.power_invariants(nx.petersen_graph()))

# %%
# Plot the mean profile (with one standard deviation) and the covariance.
display = gi.plot_invariants(inv)
display.figure_.suptitle("Les Miserables co-appearance graph")

# %%
# The same plot for the karate club, built from the graph itself. Each column of the
# summary is divided by a total number of walks, so its entries scale like ``1/n``: the
# karate club, with 34 nodes against 77, has larger values throughout.
display = gi.InvariantsDisplay.from_graph(nx.karate_club_graph(), k=5).plot()
display.figure_.suptitle("Zachary's karate club")

# %%
# Invariants are plain data: save many to one ``.npz`` file and load them back.
import os
import tempfile

path = os.path.join(tempfile.mkdtemp(), "invariants.npz")
gi.save_invariants(path, gi.batch_power_invariants([G, nx.karate_club_graph()]))
print([x.n_nodes for x in gi.load_invariants(path)])
