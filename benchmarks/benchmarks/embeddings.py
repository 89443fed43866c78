"""graphinvariants.embeddings: the WL sorts, the higher-order WL members and the count vocabularies."""

import networkx as nx
import numpy as np

import graphinvariants as gi
from graphinvariants.embeddings import FolkloreWL, LabelledWalkHistogram, LocalWL, WalkHistogram, WeisfeilerLehman
from graphinvariants.embeddings import counts, wl  # the sorts WLSorts replaces
from graphinvariants.embeddings.higher_wl import FWL_PAIR_BYTES

from .common import tu

#: What WLSorts switches, read here so that a move fails ``asv check``.
_SWITCHES = (wl.sort_within_rows, counts._packed_columns)


class WLSorts:
    """The WL embedding of 300 dense random graphs G(n, 0.5), n in 30 .. 250, 5 rounds: one int64 key per entry and
    packed columns (ours) against plain lexsorts of the rows and of every column (the Gram matrices are identical)."""

    params, param_names = ["ours", "plain lexsorts"], ["sorts"]

    def setup(self, sorts):
        rng = np.random.default_rng(0)
        sizes, seeds = rng.integers(30, 251, 300), rng.integers(0, 2**31, 300)
        self.batch = gi.as_graph_batch([nx.gnp_random_graph(int(n), 0.5, seed=int(s)) for n, s in zip(sizes, seeds)])
        self.functional = WeisfeilerLehman(n_iter=5)
        self.saved = wl.sort_within_rows, counts._packed_columns
        if sorts == "plain lexsorts":
            wl.sort_within_rows = lambda values, row, n_values: values[np.lexsort((values, row))]
            counts._packed_columns = lambda rows: list(rows.T)

    def teardown(self, sorts):
        wl.sort_within_rows, counts._packed_columns = self.saved

    def time_embed(self, sorts):
        self.functional.embed(self.batch)


def textbook_fwl(adjacency, n_iter):
    """Colours of every pair by textbook folklore 2-WL (per pair, a sorted tuple of colour pairs, renumbered through a
    dict), all graphs renumbered together."""
    colours = [{(u, v): (u == v, bool(A[u, v]), bool(A[v, u])) for u in range(len(A)) for v in range(len(A))}
               for A in adjacency]
    for _ in range(n_iter):
        signatures = [{(u, v): (c[u, v], tuple(sorted((c[u, w], c[w, v]) for w in range(len(A)))))
                       for u in range(len(A)) for v in range(len(A))} for A, c in zip(adjacency, colours)]
        palette = {}
        colours = [{p: palette.setdefault(s, len(palette)) for p, s in sig.items()} for sig in signatures]
    return colours


SETS = ["MUTAG", "ENZYMES", "NCI1", "DD", "REDDIT-BINARY"]


class HigherWL:
    """The higher-order WL members on the TU sets: every graph embedded by ``wl`` (5 rounds, for scale), ``lwl2`` at
    radius 1 and 2 and ``fwl2`` (3 rounds; only where every graph fits ``working_memory``, 1 GiB: about 2,600 nodes);
    ``fwl2`` against the textbook loop on the first 50 graphs of at most 60 nodes."""

    params = (SETS, ["wl", "lwl2 radius 1", "lwl2 radius 2", "fwl2", "fwl2, 50 small", "textbook, 50 small"])
    param_names, timeout = ["data set", "member"], 1800

    def setup(self, name, member):
        FolkloreWL(1).as_embeddings([nx.cycle_graph(3)])  # compiled (numba) before timing
        batch = tu(name).batch
        if member == "fwl2" and float(np.max(batch.sizes)) ** 2 * FWL_PAIR_BYTES > 2**30:
            raise NotImplementedError("over working_memory: fwl2 refuses this set")
        small = batch.take(np.flatnonzero(np.asarray(batch.sizes) <= 60)[:50])
        adjacency = [small.matrix[a:b, a:b].toarray() != 0 for a, b in zip(small.offsets[:-1], small.offsets[1:])]
        functional = {"wl": WeisfeilerLehman(5), "lwl2 radius 1": LocalWL(3, radius=1),
                      "lwl2 radius 2": LocalWL(3, radius=2), "fwl2": FolkloreWL(3)}.get(member.split(",")[0])
        graphs = small if member.endswith("small") else batch
        self.call = (lambda: textbook_fwl(adjacency, 3)) if functional is None else (
            lambda: functional.as_embeddings(graphs))

    def time_embed(self, name, member):
        self.call()


class Vocabulary:
    """Memory of the count members: the labelled walk histogram of 2,000 small labelled trees (and a star with 3,000
    distinct leaf labels), and the walk histogram at k = 5 and 20 of 20,000 G(60, 0.05) graphs."""

    params, param_names = ["trees", "trees and the star", "histogram k=5", "histogram k=20"], ["input"]
    timeout = 600

    def setup(self, what):
        if what.startswith("histogram"):
            self.functional = WalkHistogram(k=int(what.split("=")[1]))
            graphs = [nx.gnp_random_graph(60, 0.05, seed=s) for s in range(20_000)]
        else:
            self.functional = LabelledWalkHistogram()
            graphs = []
            for seed in range(2000):
                G = nx.random_labeled_tree(10, seed=seed)
                nx.set_node_attributes(G, {v: "ABC"[v % 3] for v in G}, "label")
                graphs.append(G)
            if "star" in what:
                star = nx.star_graph(3000)
                nx.set_node_attributes(star, {v: f"L{v}" for v in star}, "label")
                graphs.insert(0, star)
        self.batch = self.functional.graph_batch(graphs)

    def peakmem_embed(self, what):
        self.functional.embed(self.batch)

    def time_embed(self, what):
        self.functional.embed(self.batch)


#: Vancomycin (C66H75Cl2N9O24, 101 heavy atoms), the large drug of issue 52.
VANCOMYCIN = ("CC1C(C(CC(O1)OC2C(C(C(OC2OC3=C4C=C5C=C3OC6=C(C=C(C=C6)C(C(C(=O)NC(C(=O)NC5C(=O)NC7C8=CC(=C(C=C8)O)"
              "C9=C(C=C(C=C9O)O)C(NC(=O)C(C(C1=CC(=C(O4)C=C1)Cl)O)NC7=O)C(=O)O)CC(=O)N)NC(=O)C(CC(C)C)NC)O)Cl)CO)O)O)"
              "(C)N)O")


class DescriptorsBySize:
    """The descriptors member's cost of one molecule by size (docs/regression.rst): the default set, the basic dozen and
    ``AvgIpc`` (left out: its time grows faster than the atoms' cube), a fresh molecule per call (RDKit caches)."""

    params = (["vancomycin", "C100", "C200", "C400", "C800", "C1200"], ["default", "basic", "AvgIpc"])
    param_names = ["molecule", "descriptors"]
    timeout = 900

    def setup(self, molecule, descriptors):
        try:  # asv skips a benchmark whose setup raises NotImplementedError
            from rdkit.Chem import Descriptors
        except ImportError as error:
            raise NotImplementedError("needs RDKit") from error
        from graphinvariants.embeddings.descriptors import (
            BASIC_DESCRIPTORS, batch_molecules, descriptor_table, rdkit_descriptors,
        )

        smiles = VANCOMYCIN if molecule == "vancomycin" else "C" * int(molecule[1:])
        if descriptors == "AvgIpc" and len(smiles) > 800:
            raise NotImplementedError("AvgIpc alone: minutes beyond 800 atoms")
        batch = gi.as_graph_batch([smiles], node_label="label", edge_label="label")
        if descriptors == "AvgIpc":
            self.call = lambda: Descriptors.AvgIpc(batch_molecules(batch)[0])
        else:
            names = rdkit_descriptors() if descriptors == "default" else BASIC_DESCRIPTORS
            self.call = lambda: descriptor_table(batch_molecules(batch), names)

    def time_one_molecule(self, molecule, descriptors):
        self.call()
