"""
Quick start with NetworkX and igraph
====================================

Compute the power summary, the invariants and the power kernel of a few graphs. NetworkX
and igraph versions of the same graph give identical numbers.
"""

import igraph as ig
import networkx as nx

import graphinvariants as gi

G = nx.karate_club_graph()
H = ig.Graph.Famous("Zachary")  # the same graph, numbered differently

# %%
# The power summary: one walk-count profile per node (Algorithm 1 of the paper).
summary = gi.power_summary(G, k=5)
print(summary)
print("profile of node 0:", summary.profile(0))
print("walks of length 1..5 from node 0:", summary.walk_counts()[0])

# %%
# The invariants: mean and 1/n covariance of the profiles. They do not depend on node
# order, so the igraph version gives the same Gaussian.
inv_nx, inv_ig = gi.power_invariants(G), gi.power_invariants(H)
print(inv_nx)
print("same mean:", (inv_nx.mean == inv_ig.mean).all())

# %%
# The power kernel is the Bhattacharyya coefficient between the two Gaussians: 1 for
# isomorphic graphs, smaller for different ones.
print("K(karate as networkx, karate as igraph) =", gi.power_kernel(G, H))
print("K(karate, karate with one edge flipped) =", gi.power_kernel(G, gi.flip_node_pair(G, 0, 1)))
print("K(karate, Les Miserables) =", gi.power_kernel(G, nx.les_miserables_graph()))

# %%
# Many graphs at once: the invariants are computed once per graph and the pairs are
# evaluated vectorised. The two versions of the karate club are one graph to the kernel;
# the other social networks differ from it and from each other.
graphs = {
    "karate (networkx)": G,
    "karate (igraph)": H,
    "Les Miserables": nx.les_miserables_graph(),
    "Florentine families": nx.florentine_families_graph(),
    "Davis southern women": nx.davis_southern_women_graph(),
}
K = gi.power_kernel_matrix(list(graphs.values()))
print(K.round(3))

display = gi.plot_kernel_matrix(K)
names = list(graphs)
display.ax_.set_xticks(range(len(names)), names, rotation=40, ha="right")
display.ax_.set_yticks(range(len(names)), names)
display.ax_.set_title("power kernel (k = 5) between five graphs")
