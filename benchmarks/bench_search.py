"""Nearest graphs at the learned kernel against FPSim2, same items, same run (docs/search.rst).

Corpus: perturbed copies of Mutagenicity's 4,337 molecules (one bond removed at random
per copy, :func:`graphinvariants.datasets.perturbed_copies`): synthetic, so that 10^5
and 10^6 items exist. The learned default is fitted on Mutagenicity (its labels,
``GraphFeatures(n_landmarks=N, seed=0)``); the copies' feature rows are
computed a block of 10^5 at a time and cached in ``--cache``. FPSim2 (Morgan radius 2,
2,048 bits, Tanimoto, top 10, one worker) searches the Morgan fingerprints of the same
copies (atoms and bond orders from the TU labels, RDKit's ring perception, no
sanitisation). Queries: 100 other copies (``seed=1``).

Printed per size: build time and bytes of each index, ms per query one query at a time
(median) and in one batch of all queries (mean), recall@10 of the approximate index
against the exact one, FPSim2's ms per query (median), and the ratios.

``--tile``: a size whose rows are not all cached is made of the cached rows repeated
(with FPSim2's fingerprints repeated alike): the time of a search does not depend on
which rows repeat, but its answers are then full of ties; say so when quoting it.

Run: ``flock /tmp/bench.lock python benchmarks/bench_search.py --sizes 100000``.
Needs the ``[benchmark]`` extra (FPSim2, RDKit, FAISS).
"""

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

import joblib
import numpy as np
import scipy.sparse as sp

import graphinvariants as gi
from graphinvariants.datasets import perturbed_copies
from graphinvariants.search.approximate import ApproximateIndex
from graphinvariants.search.exact import ExactIndex

TU = Path(os.environ.get("GRAPHINVARIANTS_TU", Path(__file__).resolve().parents[1].parent / "shared" / "data" / "TU"))
if not TU.is_dir():
    TU = Path("/work/shared/data/TU")
CHUNK = 100_000
#: Mutagenicity's label codes (its README): atoms, and bonds by valence
ATOMS = ["C", "O", "Cl", "H", "N", "F", "Br", "S", "P", "I", "Na", "K", "Li", "Ca"]
BONDS = ["SINGLE", "DOUBLE", "TRIPLE"]


def molecules(batch, atoms=ATOMS, bonds=BONDS):
    """RDKit molecules of a batch of TU graphs: node label codes -> ``atoms``, edge
    label codes -> ``bonds`` (RDKit bond type names; Mutagenicity's by default, as its
    README says), no sanitisation, rings perceived."""
    from rdkit import Chem

    A = sp.triu(batch.matrix, format="coo")
    codes = sp.csr_array((batch.edge_labels + 1, batch.matrix.indices, batch.matrix.indptr), shape=batch.matrix.shape)
    labels = np.asarray(sp.triu(codes, format="csr")[A.row, A.col]).reshape(-1) - 1
    graph_of = np.repeat(np.arange(len(batch.sizes)), batch.sizes)
    by_graph = np.split(np.arange(len(A.row)), np.searchsorted(graph_of[A.row], np.arange(1, len(batch.sizes))))
    out = []
    for g in range(len(batch.sizes)):
        a = batch.offsets[g]
        mol = Chem.RWMol()
        for code in batch.node_labels[a : batch.offsets[g + 1]]:
            mol.AddAtom(Chem.Atom(atoms[int(code)]))
        for e in by_graph[g]:
            u, v, bond = int(A.row[e] - a), int(A.col[e] - a), getattr(Chem.BondType, bonds[int(labels[e])])
            mol.AddBond(u, v, bond)
            if bond == Chem.BondType.AROMATIC:
                for atom in (u, v):
                    mol.GetAtomWithIdx(atom).SetIsAromatic(True)
                mol.GetBondBetweenAtoms(u, v).SetIsAromatic(True)
        mol = mol.GetMol()
        mol.UpdatePropertyCache(strict=False)
        Chem.GetSymmSSSR(mol)
        out.append(mol)
    return out


def morgan(mols):
    from rdkit.Chem import rdFingerprintGenerator

    generator = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
    return [generator.GetFingerprint(m) for m in mols]


def feature_rows(features, data, n, cache, tile, chunk):
    chunks = []
    for c in range(-(-n // chunk)):
        path = cache / f"rows_{chunk}_{c}.npz"
        if not path.exists():
            if tile and chunks:
                chunks.append(chunks[c % len(chunks)])
                continue
            t = time.perf_counter()
            rows = features.transform(perturbed_copies(data, chunk, seed=0, start=c * chunk))
            sp.save_npz(path, rows)
            print(f"  features of copies {c * chunk}..{(c + 1) * chunk}: {time.perf_counter() - t:.0f} s", flush=True)
        chunks.append(sp.load_npz(path))
    tiled = sum(1 for c in range(len(chunks)) if not (cache / f"rows_{chunk}_{c}.npz").exists())
    return sp.csr_array(sp.vstack(chunks, format="csr")[:n]), tiled


def per_query(search, Q, repeat):
    """Median ms of one query at a time, mean ms per query of one batch."""
    single = []
    for i in range(min(repeat, Q.shape[0])):
        t = time.perf_counter()
        search(Q[i : i + 1])
        single.append(time.perf_counter() - t)
    t = time.perf_counter()
    result = search(Q)
    batch = (time.perf_counter() - t) / Q.shape[0]
    return 1e3 * float(np.median(single)), 1e3 * batch, result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--single", type=int, default=20, help="queries timed one at a time")
    parser.add_argument("--n-components", type=int, default=300)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "gi_bench_search")
    parser.add_argument("--tile", action="store_true")
    parser.add_argument("--chunk", type=int, default=CHUNK, help="copies per cached block of rows")
    parser.add_argument("--skip-approximate", action="store_true")
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    import faiss

    faiss.omp_set_num_threads(1)
    from FPSim2 import FPSim2Engine
    from FPSim2.io import create_db_file

    cache = args.cache / f"n_components_{args.n_components}"
    cache.mkdir(parents=True, exist_ok=True)
    data = gi.load_tu("Mutagenicity", data_home=TU, download=False)
    map_path = cache / "features.joblib"
    if map_path.exists():
        features = joblib.load(map_path)
    else:
        t = time.perf_counter()
        features = gi.GraphFeatures(n_landmarks=args.n_components, seed=0).fit(data, data.y)
        joblib.dump(features, map_path)
        print(f"LearnedFeatures fitted on Mutagenicity in {time.perf_counter() - t:.0f} s")
    print(f"learned default: exact {features.exact_} (weight {features.exact_weight_:.3f}), Nystroem "
          f"{features.approximate_} ({features.normalization_.shape[1]} columns); {features.n_features_out_} columns")
    queries = perturbed_copies(data, args.queries, seed=1)
    Q = features.transform(queries)
    query_fps = morgan(molecules(queries.batch))
    for n in args.sizes:
        X, tiled = feature_rows(features, data, n, cache, args.tile, args.chunk)
        print(f"\n== {n:,} graphs{f' ({tiled} of {-(-n // args.chunk)} blocks of {args.chunk} rows tiled)' if tiled else ''}: "
              f"{X.nnz / n:.0f} non-zeros per row")
        t = time.perf_counter()
        exact = ExactIndex().fit(X)
        build = time.perf_counter() - t
        print(f"exact: build {build:.1f} s, {exact.nbytes / 2**30:.2f} GiB ({len(exact.dense_columns_)} dense columns, "
              f"{exact._sparse.nnz / n:.0f} sparse non-zeros per row)", flush=True)
        e_single, e_batch, (truth, _) = per_query(lambda q: exact.search(q, 10), Q, args.single)
        print(f"exact: {e_single:.1f} ms per query one at a time, {e_batch:.1f} ms per query in a batch of "
              f"{args.queries}", flush=True)
        # FPSim2 on the same copies' fingerprints
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            distinct = (n - tiled * args.chunk) if tiled else n
            mols = []
            for c in range(0, distinct, args.chunk):
                mols.extend(molecules(perturbed_copies(data, min(args.chunk, distinct - c), seed=0, start=c).batch))
            source = [[mols[i % len(mols)], i] for i in range(n)]
            h5 = os.path.join(tmp, "fps.h5")
            create_db_file(source, h5, mol_format="rdkit", fp_type="Morgan", fp_params={"radius": 2, "fpSize": 2048},
                           full_sanitization=False)
            del source, mols
            engine = FPSim2Engine(h5)
            fp_build = time.perf_counter() - t
            fp_times = []
            for fp in query_fps[: args.single * 2]:
                t = time.perf_counter()
                engine.top_k(fp, 10, threshold=0.0, metric="tanimoto", n_workers=1)
                fp_times.append(time.perf_counter() - t)
            fp_ms = 1e3 * float(np.median(fp_times))
            print(f"FPSim2: build {fp_build:.1f} s (molecules, fingerprints, file), {engine.fps.nbytes / 2**30:.2f} GiB "
                  f"in memory, {fp_ms:.1f} ms per query (median of {len(fp_times)})")
            del engine
        print(f"exact / FPSim2: {e_single / fp_ms:.2f}x one at a time, {e_batch / fp_ms:.2f}x in a batch "
              "(target: <= 2x)", flush=True)
        if args.skip_approximate:
            continue
        t = time.perf_counter()
        approx = ApproximateIndex(seed=0).fit(X)
        build = time.perf_counter() - t
        a_single, a_batch, (found, _) = per_query(lambda q: approx.search(q, 10), Q, args.single)
        recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(found, truth)])
        print(f"approximate: build {build:.1f} s, {approx.nbytes / 2**30:.2f} GiB with the rows kept for reranking; "
              f"{a_single:.2f} ms per query one at a time, {a_batch:.2f} ms in a batch; recall@10 {recall:.3f}")
        print(f"approximate / FPSim2: {a_single / fp_ms:.3f}x one at a time (target: <= 0.1x)")
        approx.rerank = False  # the graph's own (embedding) ranking, no exact rerank
        a_single, a_batch, (found, _) = per_query(lambda q: approx.search(q, 10), Q, args.single)
        recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(found, truth)])
        print(f"approximate, rerank=False: {a_single:.2f} ms per query one at a time, {a_batch:.2f} ms in a batch; "
              f"recall@10 {recall:.3f}; / FPSim2: {a_single / fp_ms:.3f}x one at a time")
        print(f"peak resident memory of the process so far: "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB", flush=True)


if __name__ == "__main__":
    main()
