"""Where the memory of a fitted search goes: ``NearestGraphs("wl")`` on MOSES molecules.

The bytes-per-molecule figures of docs/search.rst ("Memory"). Each size runs in a fresh
process (so that its peak resident memory is its own), one thread, under the lock::

    flock /tmp/gi-bench.lock python benchmarks/studies/search_memory.py --smiles /tmp/moses/train.smi --sizes 10000 100000

``--smiles``: a file of SMILES, one a line (MOSES ``train``: unpack
``moses/dataset/data/train.csv.gz`` of the ``molsets`` wheel, ``pip download molsets
--no-deps``, and drop its header). The first ``n`` lines are fitted. For each size it
prints the fit's wall time, the process's peak resident memory during the fit (SMILES list
included) and after a first query (which makes the scan's postings),
what it still holds after the fit, and the fitted search taken apart by object: the
index's rows (dense part, sparse values, indices, row pointers, the scales of the
compact form), the scan's postings (made by a first query), its bounds
(projections, codes, norms), the feature map's vocabulary (a signature table per round
and degree), and the pickle's size; all also per molecule. ``--stream``: the SMILES are
given as the file's path (read in chunks) instead of a list.
"""

import gc
import io
import pickle
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from runner import parse, parser


def resident():
    """Resident memory of this process now, in bytes (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def peak():
    """Peak resident memory of this process, in bytes."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def array_bytes(obj, seen=None):
    """Bytes of the numpy arrays (and scipy sparse arrays) reachable from ``obj`` through
    attributes, dicts, lists and tuples, each buffer counted once."""
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
    if hasattr(obj, "__dict__") and not isinstance(obj, type):
        return array_bytes(vars(obj), seen)
    return 0


def breakdown(search):
    """``{part: bytes}`` of a fitted NearestGraphs over feature rows in process."""
    index, out = search.index_, {}
    if hasattr(index, "_sparse"):
        s = index._sparse
        rows = {"rows: dense part": index._dense.nbytes, "rows: sparse values": s.data.nbytes,
                "rows: sparse column indices": s.indices.nbytes, "rows: row pointers": s.indptr.nbytes,
                "rows: scales (compact form)": getattr(index, "_scales", np.zeros(0)).nbytes}
        out.update(rows)
        postings = index._postings
        out["postings (the scan's columns)"] = 0 if postings is None else (
            postings.data.nbytes + postings.indices.nbytes + postings.indptr.nbytes)
        out["bounds: projections, codes"] = index._P.nbytes + index._codes.nbytes
        out["bounds: norms, residuals"] = (index._norms.nbytes + index._residual.nbytes + index._root_norms.nbytes
                                           + sum(r.nbytes for r in index._row_numbers))
        out["bounds: the projection's basis and column lookup"] = array_bytes(index.projection_)
        out["index: column lookups"] = index._dense_lookup.nbytes + getattr(index, "_sparse_lookup", np.zeros(0)).nbytes
        out["index: other arrays"] = array_bytes(index) - sum(out.values())
    else:
        out["index"] = array_bytes(index)
    fm = search.feature_map_
    for member in getattr(fm, "_exact", []):
        cm = member.count_map
        tables = sum(array_bytes(t) for r in getattr(cm, "rounds", []) for t, _ in r.values())
        out[f"vocabulary: {member.name} signature tables"] = tables
        out[f"vocabulary: {member.name} other"] = array_bytes(member) - tables
    out["feature map: other"] = array_bytes(fm) - sum(v for k, v in out.items() if k.startswith("vocabulary"))
    return out


def one_size(args, n):
    """Fit ``n`` molecules in this process and print the figures."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    import graphinvariants as gi

    try:
        import numba

        numba.set_num_threads(1)
    except ImportError:
        pass
    from rdkit import RDLogger

    RDLogger.DisableLog("rdApp.*")
    with open(args.smiles) as f:  # the modules loaded and the loops compiled first: not the fit's memory
        warm = [line.split()[0] for _, line in zip(range(200), f) if line.strip()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        gi.NearestGraphs("wl", seed=0).fit(warm).kneighbors(warm[:2])
    del warm
    gc.collect()
    before = resident()
    if args.stream:
        from itertools import islice

        from graphinvariants.graphs.smiles import smiles_lines

        source = islice(smiles_lines(args.smiles), n)  # the file read a block at a time
        n_smiles = 0
    else:
        with open(args.smiles) as f:
            source = [line.split()[0] for _, line in zip(range(n), f) if line.strip()]
        n_smiles = resident() - before
    gc.collect()
    start_rss = resident()
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        search = gi.NearestGraphs("wl", seed=0, **({"working_memory": args.working_memory}
                                                     if args.working_memory else {})).fit(source)
    seconds = time.perf_counter() - t
    gc.collect()
    held = resident() - start_rss
    n = search.n_samples_fit_
    fit_peak = peak()
    search.kneighbors(source[:2] if isinstance(source, list) else ["CCO", "c1ccccc1"])  # the scan's postings made
    parts = breakdown(search)
    buffer = io.BytesIO()
    pickle.dump(search, buffer, protocol=pickle.HIGHEST_PROTOCOL)
    print(f"\n== {n:,} molecules ({'a path, read in chunks' if args.stream else 'a list of SMILES'})", flush=True)
    print(f"fit {seconds:.1f} s; peak resident {fit_peak / 2**30:.2f} GiB (the SMILES list {n_smiles / 2**20:.0f} MiB "
          f"of it), {peak() / 2**30:.2f} GiB after a first query; held after fit {held / 2**30:.3f} GiB = {held / n:,.0f} bytes a molecule; "
          f"pickle {buffer.tell() / 2**20:.0f} MiB = {buffer.tell() / n:,.0f} bytes a molecule", flush=True)
    width = max(map(len, parts))
    for name, value in sorted(parts.items(), key=lambda item: -item[1]):
        print(f"  {name:<{width}}  {value / 2**20:9.1f} MiB  {value / n:9,.0f} B/molecule", flush=True)
    total = sum(parts.values())
    print(f"  {'arrays of the fitted search':<{width}}  {total / 2**20:9.1f} MiB  {total / n:9,.0f} B/molecule",
          flush=True)


def main(argv=None):
    args = parse(parser(__doc__, smiles=Path("/tmp/moses/train.smi"), sizes=[10_000, 100_000], stream=False,
                        working_memory=0.0, one=0))
    if args.one:
        return one_size(args, args.one)
    for n in args.sizes:  # each size in a process of its own: its peak is its own
        command = [sys.executable, __file__, "--smiles", str(args.smiles), "--one", str(n),
                   "--working-memory", str(args.working_memory)] + (["--stream"] if args.stream else [])
        subprocess.run(command, check=True)


if __name__ == "__main__":
    main()
