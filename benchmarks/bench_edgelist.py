"""gi.read_edgelist against pandas.read_csv + scipy's coo -> csr, on the same files.

For Erdos-Renyi and Barabasi-Albert graphs of ``--sizes`` nodes (average degree
``--degree``, so ``n * degree / 2`` edges; the default 10^5 and 10^6 nodes, 10^6 and
10^7 stored entries), written to a temporary folder as SNAP text (tab-separated, ``#``
comment lines), CSV (a ``u,v`` header) and Parquet (columns ``u``, ``v``), with the node
ids shuffled (0..n-1 in a random order, as SNAP's files are numbered), it prints per
file, medians of ``--repeats`` runs in the same process:

* ``read``: ``gi.read_edgelist(path)``;
* ``pandas``: the straightforward reading a user would write for this very file,
  knowing its ids are 0..n-1 and its separator: ``pandas.read_csv(path, sep="\\t",
  comment="#", header=None)`` (C engine; ``pandas.read_csv(path)`` for CSV,
  ``pandas.read_parquet`` for Parquet), then ``scipy.sparse.coo_array((ones, (u, v)))``
  with the edges mirrored, ``.tocsr()``;
* their ratio (target: at most 1.5);
* ``inv`` and ``floor``: ``gi.power_invariants(A, k=5)`` on the matrix read, and the
  floor summary on the same matrix (k = 5 products ``x <- A (x / |x|_1)`` and the mean and
  covariance of the n x 5 summary, plain numpy/scipy), and ``total``: (read + inv) /
  (pandas + floor), the target of issue 36 (at most 1.5x);
* the peak memory of ``read_edgelist`` and of the pandas reading, each in a fresh
  interpreter (peak RSS, Linux ``VmHWM``, above the RSS after the imports: the
  parser's own buffers included), against the bytes of the CSR ``read_edgelist``
  returns (from 2**20 nodes plus entries an unweighted CSR has no data array:
  ``indptr`` and ``indices`` only, 4 bytes per entry).

Run alone, under the lock (the machine has 2 cores)::

    flock /tmp/gi-bench.lock python benchmarks/bench_edgelist.py
    flock /tmp/gi-bench.lock python benchmarks/bench_edgelist.py --sizes 1000000 --degree 20  # 10^7 edges

Everything is written to a fresh temporary folder (``--workdir``), removed at the end.
"""

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import scipy.sparse as sp

import graphinvariants as gi
from timing import floor_invariants, median_time  # benchmarks/timing.py


# -- graphs ----------------------------------------------------------------------------
def erdos_renyi_edges(n, m, rng):
    """``m`` uniform random pairs of distinct nodes (G(n, m) with the rare repeats kept)."""
    u = rng.integers(0, n, m)
    u[:n] = np.arange(n)  # every node has an edge, so the file names all n of them
    v = (u + rng.integers(1, n, m)) % n
    return u, v


def barabasi_albert_edges(n, per_node, rng):
    """Preferential attachment (Batagelj and Brandes' list of edge end points): node
    ``t`` links ``per_node`` times to the end point at a uniform earlier position of the
    list, resolved all at once by pointer jumping instead of a Python loop."""
    m = n * per_node
    ends = np.empty(2 * m, dtype=np.int64)  # ends[2e] = new node, ends[2e+1] = copy of an earlier end
    new = np.repeat(np.arange(n, dtype=np.int64), per_node)
    parent = np.arange(2 * m, dtype=np.int64)
    e = np.arange(m, dtype=np.int64)
    parent[2 * e[1:] + 1] = (rng.random(m - 1) * (2 * e[1:])).astype(np.int64)  # a position before 2e
    parent[1] = 0
    while True:
        jumped = parent[parent]
        if np.array_equal(jumped, parent):
            break
        parent = jumped
    ends[0::2] = new
    ends[1::2] = new[parent[1::2] // 2]  # every root is an even position: a new node
    return ends[0::2], ends[1::2]


def write_files(folder, name, u, v, rng):
    """SNAP text, CSV and Parquet of the edges, ids shuffled; the file paths."""
    n = int(max(u.max(), v.max())) + 1
    relabel = rng.permutation(n)
    u, v = relabel[u], relabel[v]
    text = folder / f"{name}.txt"
    with open(text, "w") as f:
        f.write(f"# Undirected graph: {name}\n# Nodes: {n} Edges: {u.size}\n# FromNodeId\tToNodeId\n")
        pd.DataFrame({"u": u, "v": v}).to_csv(f, sep="\t", header=False, index=False)
    table = folder / f"{name}.csv"
    pd.DataFrame({"u": u, "v": v}).to_csv(table, index=False)
    parquet = folder / f"{name}.parquet"
    pq.write_table(pa.table({"u": u, "v": v}), parquet)
    return {"text": text, "csv": table, "parquet": parquet}


# -- the straightforward reading and the floor -----------------------------------------
def pandas_csr(path, fmt):
    if fmt == "text":
        df = pd.read_csv(path, sep="\t", comment="#", header=None, names=["u", "v"])
    elif fmt == "csv":
        df = pd.read_csv(path)
    else:
        df = pd.read_parquet(path)
    u, v = df["u"].to_numpy(), df["v"].to_numpy()
    del df
    n = int(max(u.max(), v.max())) + 1
    keep = u != v
    rows, cols = np.concatenate((u, v[keep])), np.concatenate((v, u[keep]))
    del u, v, keep
    A = sp.coo_array((np.ones(rows.size), (rows, cols)), shape=(n, n)).tocsr()
    A.data[:] = 1.0
    return A


# -- measuring ---------------------------------------------------------------------------
def _status(field):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field):
                return int(line.split()[1]) * 1024
    return float("nan")


def peak_memory(path, fmt, what):
    """Peak RSS (bytes) of one reading in a fresh interpreter, above its RSS after the imports."""
    script = (
        "import sys; sys.path.insert(0, %r)\n"
        "import bench_edgelist as b, graphinvariants as gi\n"
        "before = b._status('VmRSS:')\n"
        "A = gi.read_edgelist(%r) if %r == 'read' else b.pandas_csr(%r, %r)\n"
        "print(b._status('VmHWM:') - before)\n"
    ) % (str(Path(__file__).resolve().parent), str(path), what, str(path), fmt)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1])


def csr_bytes(A):
    """Bytes held by a CSR (a broadcast data array, as unweighted large graphs get, holds none)."""
    data = 0 if A.data.strides == (0,) else A.data.nbytes
    return A.indptr.nbytes + A.indices.nbytes + data


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000", help="node counts, comma-separated")
    parser.add_argument("--degree", type=int, default=10, help="average degree (edges per node x 2)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--formats", default="text,csv,parquet")
    parser.add_argument("--workdir", default=None, help="where the temporary folder goes")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="bench-edgelist-", dir=args.workdir))
    print(f"median of {args.repeats} runs; times in seconds; memory: peak RSS above the start, in MB "
          "(x: over the CSR's bytes)")
    header = (f"{'file':<22}{'format':<9}{'read':>7}{'pandas':>8}{'ratio':>7}{'inv':>7}{'floor':>7}"
              f"{'total':>7}{'CSR MB':>8}{'read MB':>14}{'pandas MB':>14}")
    print(header)
    try:
        for n in (int(x) for x in args.sizes.split(",")):
            per_node = args.degree // 2
            graphs = {"er": erdos_renyi_edges(n, n * per_node, rng), "ba": barabasi_albert_edges(n, per_node, rng)}
            for name, (u, v) in graphs.items():
                files = write_files(folder, f"{name}-{n}", u, v, rng)
                del u, v
                for fmt in args.formats.split(","):
                    path = files[fmt]
                    ours = gi.read_edgelist(path)
                    reference = pandas_csr(path, fmt)
                    assert ours.nodes == tuple(range(reference.shape[0]))
                    assert (ours.matrix != reference).nnz == 0, "not the same graph"
                    csr = csr_bytes(ours.matrix)
                    del ours, reference
                    t_read = median_time(lambda: gi.read_edgelist(path), args.repeats, collect=True)
                    t_pandas = median_time(lambda: pandas_csr(path, fmt), args.repeats, collect=True)
                    adjacency = gi.read_edgelist(path)
                    t_inv = median_time(lambda: gi.power_invariants(adjacency, k=5), args.repeats, collect=True)
                    t_floor = median_time(lambda: floor_invariants(adjacency.matrix), args.repeats, collect=True)
                    del adjacency
                    mem_read = peak_memory(path, fmt, "read")
                    mem_pandas = peak_memory(path, fmt, "pandas")
                    total = (t_read + t_inv) / (t_pandas + t_floor)
                    print(f"{path.name:<22}{fmt:<9}{t_read:7.2f}{t_pandas:8.2f}{t_read / t_pandas:7.2f}"
                          f"{t_inv:7.2f}{t_floor:7.2f}{total:7.2f}{csr / 1e6:8.0f}"
                          f"{mem_read / 1e6:8.0f} ({mem_read / csr:3.1f}x){mem_pandas / 1e6:8.0f} "
                          f"({mem_pandas / csr:3.1f}x)", flush=True)
                for path in files.values():
                    path.unlink()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
