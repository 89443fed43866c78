"""Nearest graphs at the learned kernel against FPSim2, same items, same run (docs/search.rst).

Corpus: perturbed copies of Mutagenicity's 4,337 molecules (one bond removed at random
per copy, :func:`graphinvariants.datasets.perturbed_copies`): synthetic, so that 10^5
and 10^6 items exist. The learned default is fitted on Mutagenicity (its labels,
``GraphFeatures(n_landmarks=N, seed=0)``); the copies' feature rows are computed a block
of 10^5 at a time and cached in ``--cache``. FPSim2 (Morgan radius 2, 2,048 bits,
Tanimoto, top 10, one worker) searches the Morgan fingerprints of the same copies
(atoms and bond orders from the TU labels, RDKit's ring perception, no sanitisation;
its file is built once per size, streaming the molecules, and cached). Queries: 100
other copies (``seed=1``: copies of the set's first 100 molecules, none of them in the
corpus by position).

Printed per size, everything on one thread (BLAS, numba, FAISS, FPSim2): build time and
bytes of each index; ms per query one query at a time (median of ``--single``) and in
one batch of all queries (mean); the rows each exact query scored (median, mean, max);
recall@10 of the approximate index against the exact answer (tie-aware: a row counts
if its exact distance is at most the exact tenth's); FPSim2's ms per query (median);
the ratios; the process' peak resident memory.

``--dtype float32`` stores the rows rounded to float32 (the 4 GB budget at 10^6);
``--compare-float64`` (10^5) also builds the float64 index and counts the queries whose
ten neighbours differ between the two; ``--recall 0.9 0.95 0.99`` builds one approximate
index per target.

Run: ``flock /tmp/gi-bench.lock python benchmarks/bench_search.py --sizes 100000 1000000``
(about 25 minutes the first time: features and FPSim2 files; minutes once cached).
Needs the ``[benchmark]`` extra (FPSim2, RDKit, FAISS) and numba.
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


def feature_rows(features, data, n, cache, chunk):
    """The first ``n`` copies' feature rows, computed a block of ``chunk`` at a time and cached."""
    chunks = []
    for c in range(-(-n // chunk)):
        path = cache / f"rows_{chunk}_{c}.npz"
        if not path.exists():
            t = time.perf_counter()
            rows = features.transform(perturbed_copies(data, chunk, seed=0, start=c * chunk))
            sp.save_npz(path, rows)
            print(f"  features of copies {c * chunk}..{(c + 1) * chunk}: {time.perf_counter() - t:.0f} s", flush=True)
        chunks.append(sp.load_npz(path))
    X = sp.csr_array(sp.vstack(chunks, format="csr")[:n])
    return X


def per_query(search, Q, repeat):
    """Median and mean ms of one query at a time (the first ``repeat`` queries), mean ms
    per query of one batch of all queries, and the batch's answer."""
    single = []
    for i in range(min(repeat, Q.shape[0])):
        t = time.perf_counter()
        search(Q[i : i + 1])
        single.append(time.perf_counter() - t)
    t = time.perf_counter()
    result = search(Q)
    batch = (time.perf_counter() - t) / Q.shape[0]
    return 1e3 * float(np.median(single)), 1e3 * float(np.mean(single)), 1e3 * batch, result


def fpsim2_file(data, n, cache, chunk):
    """FPSim2's file of the first ``n`` copies' Morgan fingerprints (built once, the
    molecules streamed a block at a time: 10^6 RDKit molecules do not fit in memory)."""
    from FPSim2.io import create_db_file

    path = cache / f"fps_{n}.h5"
    if path.exists():
        return path, None
    t = time.perf_counter()

    def source():
        for c in range(0, n, chunk):
            for i, mol in enumerate(molecules(perturbed_copies(data, min(chunk, n - c), seed=0, start=c).batch)):
                yield [mol, c + i]

    part = path.with_suffix(".part")
    create_db_file(source(), str(part), mol_format="rdkit", fp_type="Morgan", fp_params={"radius": 2, "fpSize": 2048},
                   full_sanitization=False)
    os.replace(part, path)
    return path, time.perf_counter() - t


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--single", type=int, default=40, help="queries timed one at a time")
    parser.add_argument("--n-components", type=int, default=300)
    parser.add_argument("--n-dims", type=int, default=32)
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--compare-float64", action="store_true")
    parser.add_argument("--recall", type=float, nargs="+", default=[0.95], help="one approximate index each")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "gi_bench_search")
    parser.add_argument("--chunk", type=int, default=CHUNK, help="copies per cached block of rows")
    parser.add_argument("--skip-approximate", action="store_true")
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    import numba

    numba.set_num_threads(1)
    import faiss

    faiss.omp_set_num_threads(1)
    from FPSim2 import FPSim2Engine

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
        print(f"GraphFeatures fitted on Mutagenicity in {time.perf_counter() - t:.0f} s")
    print(f"learned default: exact {features.exact_} (weight {features.exact_weight_:.3f}), Nystroem "
          f"{features.approximate_} ({features.normalization_.shape[1]} columns); {features.n_features_out_} columns")
    queries = perturbed_copies(data, args.queries, seed=1)
    Q = sp.csr_array(features.transform(queries))
    query_fps = morgan(molecules(queries.batch))
    for n in args.sizes:
        X = feature_rows(features, data, n, cache, args.chunk)
        print(f"\n== {n:,} graphs: {X.nnz / n:.0f} non-zeros per row", flush=True)
        path, fp_build = fpsim2_file(data, n, args.cache, args.chunk)
        engine = FPSim2Engine(str(path))
        engine.top_k(query_fps[0], 10, threshold=0.0, metric="tanimoto", n_workers=1)
        fp_times = []
        for fp in query_fps[: args.single]:
            t = time.perf_counter()
            engine.top_k(fp, 10, threshold=0.0, metric="tanimoto", n_workers=1)
            fp_times.append(time.perf_counter() - t)
        fp_ms = 1e3 * float(np.median(fp_times))
        print(f"FPSim2: {'file cached' if fp_build is None else f'build {fp_build:.0f} s (molecules, fingerprints, file)'}, "
              f"{engine.fps.nbytes / 2**30:.2f} GiB in memory, {fp_ms:.2f} ms per query (median of {len(fp_times)})",
              flush=True)
        del engine
        t = time.perf_counter()
        exact = ExactIndex(n_dims=args.n_dims, dtype=args.dtype, seed=0).fit(X)
        build = time.perf_counter() - t
        kept = float(np.mean((exact._P.astype(np.float64) ** 2).sum(axis=1) / np.maximum(exact._norms, 1e-300)))
        print(f"exact ({args.dtype}, {args.n_dims} directions): build {build:.1f} s, {exact.nbytes / 2**30:.2f} GiB "
              f"({len(exact.dense_columns_)} dense columns, {exact._sparse.nnz / n:.0f} sparse non-zeros per row); "
              f"norm kept by the projection {kept:.2f}", flush=True)
        exact.search(Q[:1], 10)  # compiled loops loaded
        e_single, e_mean, e_batch, (truth, truth_d) = per_query(lambda q: exact.search(q, 10), Q, args.single)
        scored = exact.scored_
        print(f"exact: {e_single:.2f} ms per query one at a time (mean {e_mean:.2f}), {e_batch:.2f} ms per query "
              f"in a batch of {args.queries}; rows scored per query: median {np.median(scored):.0f} ({np.median(scored) / n:.2%}), "
              f"mean {scored.mean():.0f}, max {scored.max()}", flush=True)
        print(f"exact / FPSim2: {e_single / fp_ms:.2f}x one at a time, {e_batch / fp_ms:.2f}x in a batch "
              f"(targets: <= 5x at 10^5, <= 2x at 10^6)", flush=True)
        if args.compare_float64 and args.dtype == "float32":
            wide = ExactIndex(n_dims=args.n_dims, dtype="float64", seed=0).fit(X)
            other, _ = wide.search(Q, 10)
            differ = int(np.sum([set(a) != set(b) for a, b in zip(other, truth)]))
            print(f"float64 index: {wide.nbytes / 2**30:.2f} GiB; queries whose ten neighbours differ from the "
                  f"float32 index's: {differ} of {Q.shape[0]}", flush=True)
            del wide
        if args.skip_approximate:
            continue
        del exact  # the approximate index holds its own copy of the rows (recall below reads it)
        for wanted in args.recall:
            t = time.perf_counter()
            approx = ApproximateIndex(recall=wanted, n_dims=args.n_dims, dtype=args.dtype, seed=0).fit(X)
            build = time.perf_counter() - t
            approx.search(Q[:1], 10)
            a_single, a_mean, a_batch, (found, _) = per_query(lambda q: approx.search(q, 10), Q, args.single)
            recall = recall_at(found, truth_d, approx.exact_, Q)
            print(f"approximate (recall={wanted}): build {build:.1f} s, {approx.nbytes / 2**30:.2f} GiB; "
                  f"{approx.n_candidates_} candidates; {a_single:.3f} ms per query one at a time (mean {a_mean:.3f}), "
                  f"{a_batch:.3f} ms in a batch; recall@10 {recall:.3f} (calibrated on the rows: "
                  f"{approx.calibrated_recall_:.3f})")
            print(f"approximate / FPSim2: {a_single / fp_ms:.3f}x one at a time (targets: <= 1x at 10^5, <= 0.2x at "
                  "10^6)", flush=True)
            del approx
        print(f"peak resident memory of the process so far: "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB", flush=True)
        del X


def recall_at(found, truth_distances, exact, Q, k=10):
    """Tie-aware recall@k: the share of found rows whose exact distance (the exact
    index's sum) is at most the exact k-th distance (copies of a molecule tie)."""
    from graphinvariants.search.exact import candidate_scorer, pair_inner_products

    Qs = sp.csr_array(Q)
    Qs.sort_indices()
    own = pair_inner_products(Qs, np.arange(Qs.shape[0]), Qs)
    scorer = candidate_scorer(exact, Qs)
    hits = []
    for i in range(Qs.shape[0]):
        distances = np.sqrt(np.maximum(scorer.squares(i, own[i], found[i]), 0.0))
        hits.append(min(k, int(np.sum(distances <= truth_distances[i, k - 1]))) / k)
    return float(np.mean(hits))


if __name__ == "__main__":
    main()
