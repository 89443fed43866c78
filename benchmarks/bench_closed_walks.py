"""Closed-walk counts at k = 8 on REDDIT-BINARY, DD and NCI1, against dense matrix powers.

Run from the project root:  python benchmarks/bench_closed_walks.py [--data ../shared/data/TU]

1. The closed-walk histogram (``ClosedWalkHistogram(k=8)``, counts and histogram) of
   every graph of REDDIT-BINARY (up to 3,782 nodes), DD (up to 5,748) and NCI1: CPU
   time of the process (``time.process_time``, one thread: BLAS is limited to one) and
   wall time; the target is under a minute each.
2. The straightforward way, dense matrix powers per graph (float64 BLAS products
   ``A^t = A^{t-1} A``, exact while counts stay below 2**53, which they do here), on the
   ``--largest`` largest graphs of each collection and on a random sample of
   ``--sample`` graphs; :func:`closed_walk_counts` on the same graphs, its counts checked
   equal, and the ratio of the two times.
3. NCI1: the closed-walk histogram against the open-walk histogram (``WalkHistogram(k=8)``),
   the target being at most 2x.
"""

import argparse
import os
from pathlib import Path

for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(variable, "1")  # one core, as the targets say

import numpy as np  # noqa: E402

from graphinvariants.walks.closed import closed_walk_counts  # noqa: E402
from graphinvariants.datasets import load_tu  # noqa: E402
from graphinvariants.embeddings import ClosedWalkHistogram, WalkHistogram  # noqa: E402
from timing import timed_once  # noqa: E402 - benchmarks/timing.py

K = 8


def dense_powers(batch, graphs):
    """Closed-walk counts by dense matrix powers, graph by graph (the straightforward way)."""
    out = []
    for g in graphs:
        a, b = batch.offsets[g], batch.offsets[g + 1]
        A = batch.matrix[a:b][:, a:b].toarray()
        P, cols = A, [np.diag(A)]
        for _ in range(K - 1):
            P = P @ A
            cols.append(np.diag(P))
        counts = np.column_stack(cols)
        assert counts.max(initial=0) < 2**53, "dense float64 powers are no longer exact"
        out.append(counts.astype(np.int64))
    return np.vstack(out)


def ours(batch, graphs):
    sub = batch.take(graphs)
    return closed_walk_counts(sub.matrix, sub.offsets, K)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "TU"))
    parser.add_argument("--largest", type=int, default=5)
    parser.add_argument("--sample", type=int, default=50)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"closed walks, k = {K}; times are CPU seconds of this process (wall in brackets)\n")
    for name in ("NCI1", "DD", "REDDIT-BINARY"):
        ds = load_tu(name, data_home=args.data, download=False)
        batch = ClosedWalkHistogram(K).graph_batch(ds)
        sizes = batch.sizes
        _, cpu, wall = timed_once(lambda: ClosedWalkHistogram(K).embed(batch))
        print(f"{name}: {len(sizes)} graphs, up to {sizes.max()} nodes; ClosedWalkHistogram(k={K}) of all: "
              f"{cpu:.1f} s [{wall:.1f} s]")
        if name == "NCI1":
            _, open_cpu, open_wall = timed_once(lambda: WalkHistogram(K).embed(batch))
            print(f"  WalkHistogram(k={K}) of all: {open_cpu:.1f} s [{open_wall:.1f} s]; "
                  f"closed / open = {cpu / open_cpu:.2f} (target <= 2)")
        for label, graphs in (
            (f"{args.largest} largest", np.sort(np.argsort(sizes, kind="stable")[-args.largest :])),
            (f"{args.sample} at random", np.sort(rng.choice(len(sizes), size=min(args.sample, len(sizes)), replace=False))),
        ):
            fast, fast_cpu, fast_wall = timed_once(lambda: ours(batch, graphs))
            slow, slow_cpu, slow_wall = timed_once(lambda: dense_powers(batch, graphs))
            assert np.array_equal(fast, slow), f"{name}: counts differ from dense matrix powers"
            print(f"  {label} ({int(sizes[graphs].sum())} nodes): closed_walk_counts {fast_cpu:.2f} s [{fast_wall:.2f} s], "
                  f"dense powers {slow_cpu:.2f} s [{slow_wall:.2f} s]: {slow_cpu / max(fast_cpu, 1e-9):.1f}x faster, equal counts")
        print(flush=True)


if __name__ == "__main__":
    main()
