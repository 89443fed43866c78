"""One query, one call: what a new graph costs before and after the fitted count map.

Issue 43, item 1. Before, a new graph became its feature row by merging its WL labels
with the whole fitted vocabulary (``merge`` of the member with a probe of the fitted
labels), so a query's cost grew with the collection; and ``NearestGraphs("wl")`` (a
kernel name) ran the pair engine, aligning the collection's labels with the query's on
every call. Now the fitted count map looks each of the query's labels up by its
signature, and a kernel name with exact rows is searched by the index over those rows.

Printed, one query per call, everything on one thread, medians over ``--queries``
held-out queries (the "old" paths are the library's previous code, written out here
and run in the same process on the same fitted graphs):

1. **Rows, by collection size.** ``wl`` reading atoms and bonds
   (``node_label="label"``, ``edge_label="label"``) on Mutagenicity as molecules
   (:func:`~graphinvariants.datasets.as_molecules`): 10^3 distinct molecules, then
   10^4 and 10^5 perturbed copies of the 4,237 molecules not held out (one bond
   removed, :func:`~graphinvariants.datasets.perturbed_copies`: the vocabulary grows
   with them; Mutagenicity has no 10^5 distinct molecules). Per size:
   the fitted labels, ms to make one query's row by merging (old) and by the count map
   (new), whether the two rows are the same bits (for every query), and ms of a whole
   ``kneighbors`` call: the pair engine as ``NearestGraphs("wl")`` ran it (old) and
   the index over the rows (new).
2. **SMILES against real distinct molecules.** The 4,337 Mutagenicity molecules as
   SMILES (RDKit's, from :func:`~graphinvariants.datasets.to_mol`; read back without
   hydrogens, with aromatic bonds), 100 held out; ``NearestGraphs("wl")`` fitted on the
   others, one SMILES string per ``kneighbors`` call, old path against new. And NCI1
   (4,110 distinct molecules, atom labels), one held-out graph per call.

Run: ``flock /tmp/gi-bench.lock python benchmarks/bench_query_rows.py`` (about 10
minutes: the 10^5 collection's rows and the old path's merges dominate). Needs RDKit
(the ``[chem]`` extra) for part 2.
"""

import argparse
import copy
import os
import statistics
import time
import warnings
from pathlib import Path

import numpy as np

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import graphinvariants as gi  # noqa: E402
from graphinvariants.datasets import as_molecules, perturbed_copies  # noqa: E402
from graphinvariants.embeddings.counts import CountMap  # noqa: E402
from graphinvariants.graphs.batch import subset  # noqa: E402
from graphinvariants.kernels.topk import kernel_top_k  # noqa: E402

TU = Path(os.environ.get("GRAPHINVARIANTS_TU", Path(__file__).resolve().parents[1].parent / "shared" / "data" / "TU"))
K = 10


def old_rows(member, fitted_embeddings):
    """The member's rows as they were made before the count map: its labels placed by
    merging with the whole fitted vocabulary (``CountMap``, the base class, is that
    merge), the rest of the row unchanged."""
    old = copy.copy(member)
    old.count_map = CountMap(member.functional, fitted_embeddings)
    return lambda block: old.features(block)[0]


def old_search(functional, fitted_embeddings, query):
    """``NearestGraphs("wl").kneighbors([query])`` as it ran before: the pair engine."""
    left = functional.as_embeddings(query, what="graphs")
    return kernel_top_k(left, fitted_embeddings, functional, K)


def per_call(fn, queries):
    times = []
    for q in queries:
        start = time.perf_counter()
        fn(q)
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def part_sizes(sizes, n_queries):
    data = as_molecules(gi.load_tu("Mutagenicity", data_home=TU))
    rng = np.random.default_rng(0)
    held = np.sort(rng.choice(len(data), size=n_queries, replace=False))
    kept = np.setdiff1d(np.arange(len(data)), held)
    queries = [subset(data, [int(i)]) for i in held]
    base = subset(data, kept)
    print("1. rows by collection size: wl reading atoms and bonds, Mutagenicity (+ perturbed copies beyond 4,237), "
          f"{n_queries} held-out molecules, one per call, ms (median)")
    print(f"{'graphs':>8} {'labels':>9} {'row old':>8} {'row new':>8} {'ratio':>6} {'rows agree':>10} "
          f"{'kneighbors old':>15} {'new':>7} {'ratio':>6}")
    for n in sizes:
        # up to 4,237: distinct molecules; beyond, perturbed copies of them (each copy
        # has one bond removed, the first 4,237 one of each molecule)
        fitted = subset(base, np.arange(n)) if n <= len(base) else perturbed_copies(base, n, seed=1)
        search = gi.NearestGraphs("wl", n_neighbors=K).fit(fitted)
        features = search.feature_map_
        (member,) = features._exact
        functional = member.functional
        fitted_embeddings = functional.as_embeddings(fitted)
        old_row = old_rows(member, fitted_embeddings)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            agree = all(_same(old_row(q), features.transform(q)) for q in queries)
            t_old = per_call(old_row, queries)
            t_new = per_call(features.transform, queries)
            search_old = per_call(lambda q: old_search(functional, fitted_embeddings, q), queries)
            search_new = per_call(search.kneighbors, queries)
        print(f"{len(fitted):>8} {member.count_map.n_columns:>9} {t_old:>8.2f} {t_new:>8.2f} {t_old / t_new:>6.1f} "
              f"{str(agree):>10} {search_old:>15.2f} {search_new:>7.2f} {search_old / search_new:>6.1f}")


def _same(a, b):
    """The same row to the last bit (the same operations on the same integers)."""
    return (np.array_equal(a.indices, b.indices) and np.array_equal(a.indptr, b.indptr)
            and np.array_equal(a.data, b.data))


def part_smiles(n_queries):
    from rdkit import Chem, RDLogger

    from graphinvariants.datasets import to_mol

    RDLogger.DisableLog("rdApp.*")
    data = as_molecules(gi.load_tu("Mutagenicity", data_home=TU))
    smiles = []
    for G in data:
        try:
            s = Chem.MolToSmiles(to_mol(G))
        except Exception:  # a molecule RDKit will not write
            continue
        if Chem.MolFromSmiles(s) is not None:
            smiles.append(s)
    rng = np.random.default_rng(0)
    held = set(rng.choice(len(smiles), size=n_queries, replace=False).tolist())
    corpus = [s for i, s in enumerate(smiles) if i not in held]
    queries = [[s] for i, s in enumerate(smiles) if i in held]
    print(f"\n2. real distinct molecules, one query per call, ms (median of {n_queries})")
    print(f"{'set':<34} {'fitted':>7} {'old':>8} {'new':>7} {'ratio':>6} {'same neighbours':>15} "
          f"{'same distances':>14}")
    _compare(f"Mutagenicity as SMILES ({len(smiles)} read)", corpus, queries)
    nci = gi.load_tu("NCI1", data_home=TU)
    held = np.sort(rng.choice(len(nci), size=n_queries, replace=False))
    kept = np.setdiff1d(np.arange(len(nci)), held)
    _compare("NCI1 graphs (atom labels)", subset(nci, kept), [subset(nci, [int(i)]) for i in held])


def _compare(name, corpus, queries):
    search = gi.NearestGraphs("wl", n_neighbors=K).fit(corpus)
    functional = search.feature_map_._exact[0].functional
    fitted_embeddings = functional.as_embeddings(corpus)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_old = per_call(lambda q: old_search(functional, fitted_embeddings, q), queries)
        t_new = per_call(search.kneighbors, queries)
        same, close = 0, 0
        for q in queries:
            old_i, old_k = old_search(functional, fitted_embeddings, q)
            d, i = search.kneighbors(q)
            same += bool(np.array_equal(i, old_i))
            close += bool(np.all(np.abs(d**2 - np.maximum(0, 2 - 2 * old_k)) <= 1e-14))
    n = len(queries)
    print(f"{name:<34} {len(corpus):>7} {t_old:>8.2f} {t_new:>7.2f} {t_old / t_new:>6.1f} {same:>11}/{n} "
          f"{close:>10}/{n}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--skip-smiles", action="store_true")
    args = parser.parse_args()
    part_sizes(args.sizes, args.queries)
    if not args.skip_smiles:
        part_smiles(args.queries)


if __name__ == "__main__":
    main()
