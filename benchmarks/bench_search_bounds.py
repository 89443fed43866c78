"""What share of the rows an exact query scores, on every shared TU set (docs/search.rst).

For each set: the learned default's feature rows (``GraphFeatures(seed=0)`` fitted on
the set with its labels), an :class:`~graphinvariants.search.exact.ExactIndex` over
them, and every graph as a leave-one-out query for its 10 nearest others. Printed per
set and ``n_dims``: the rows scored exactly per query as a share of the set (median,
mean, 90th percentile) and the share of the squared norm the projection keeps (mean
over rows of ``|p_x|^2 / |x|^2``). The answers are exact whatever the share; the share
is the work. The bound path is kept for every query (``FULL_PASS_SHARE = 1``; the index
itself switches a query whose bounds leave more than 1/8 of the rows, after scoring its first 256, to one BLAS pass),
so the share and the ms per query are the bounds'. On one thread.

Run: ``flock /tmp/gi-bench.lock python benchmarks/bench_search_bounds.py`` (about 25 minutes;
``--sets MUTAG NCI1`` for some).
"""

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np

import graphinvariants as gi
from graphinvariants.search import exact
from graphinvariants.search.exact import ExactIndex

TU = Path(os.environ.get("GRAPHINVARIANTS_TU", Path(__file__).resolve().parents[1].parent / "shared" / "data" / "TU"))
SETS = ["MUTAG", "Mutagenicity", "NCI1", "NCI109", "AIDS", "BZR", "COX2", "ENZYMES", "DD", "IMDB-BINARY",
        "REDDIT-BINARY"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", nargs="+", default=SETS)
    parser.add_argument("--n-dims", type=int, nargs="+", default=[16, 32, 64])
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    exact.FULL_PASS_SHARE = 1.0  # the bounds' own share, never the full pass
    print("set | graphs | n_dims | norm kept | scored median | mean | 90th percentile | ms per query")
    for name in args.sets:
        data = gi.load_tu(name, data_home=TU, download=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            X = gi.GraphFeatures(seed=0).fit_transform(data, data.y)
        n = X.shape[0]
        for n_dims in args.n_dims:
            index = ExactIndex(n_dims=n_dims, seed=0).fit(X)
            kept = np.asarray(index._P, dtype=np.float64)
            kept = float(np.mean((kept**2).sum(axis=1) / np.maximum(index._norms, 1e-300)))
            t = time.perf_counter()
            index.search(index.rows(0, n), 10, exclude=np.arange(n))
            ms = 1e3 * (time.perf_counter() - t) / n
            share = index.scored_ / (n - 1)
            print(f"{name} | {n} | {n_dims} | {kept:.2f} | {np.median(share):.1%} | {share.mean():.1%} | "
                  f"{np.quantile(share, 0.9):.1%} | {ms:.2f}", flush=True)


if __name__ == "__main__":
    main()
