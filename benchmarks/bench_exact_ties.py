"""Exact search time with the block-independent distances (issue 38, defect 4) against
the code before it, and against a straightforward search, same rows.

Rows: the learned default's features (``GraphFeatures(seed=0)`` fitted on MUTAG) of
``--n`` perturbed copies of MUTAG's molecules (one bond removed per copy: many near
ties and exact copies), queries ``--queries`` other copies. Printed: ms per query of
``ExactIndex.search`` (one batch, and single queries: medians of ``--repeats``), and of
the straightforward search (``Q @ X.T`` and a stable sort of every row). Run it in this
tree and in the tree before the change, one after the other under the lock, and
compare the ratios to the straightforward search, measured in the same run:

``flock /tmp/gi-bench.lock sh -c 'PYTHONPATH=new python benchmarks/bench_exact_ties.py;
PYTHONPATH=old python benchmarks/bench_exact_ties.py'``
"""

import argparse
import os
import warnings
from pathlib import Path

import numpy as np

import graphinvariants as gi
from graphinvariants.datasets import perturbed_copies
from graphinvariants.search.exact import ExactIndex
from timing import median_time  # benchmarks/timing.py

TU = Path(os.environ.get("GRAPHINVARIANTS_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data" / "TU"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    mutag = gi.load_tu("MUTAG", data_home=TU, download=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        features = gi.GraphFeatures(seed=0).fit(mutag, mutag.y)
        X = features.transform(perturbed_copies(mutag, args.n, seed=0))
        Q = features.transform(perturbed_copies(mutag, args.queries, seed=1))
    index = ExactIndex().fit(X)
    batch = median_time(lambda: index.search(Q, 10), args.repeats) / Q.shape[0]
    single = median_time(lambda: [index.search(Q[i : i + 1], 10) for i in range(20)], args.repeats) / 20

    def straightforward():
        S = (Q @ X.T).toarray()
        np.argsort(-S, axis=1, kind="stable")[:, :10]

    plain = median_time(straightforward, args.repeats) / Q.shape[0]
    print(f"{gi.__file__}: {X.shape[0]} rows x {X.shape[1]} columns, {Q.shape[0]} queries, medians of {args.repeats}")
    print(f"ExactIndex batch {batch * 1e3:.2f} ms/query, single {single * 1e3:.2f} ms/query; straightforward "
          f"{plain * 1e3:.2f} ms/query; ratios to it: batch {batch / plain:.2f}, single {single / plain:.2f}")


if __name__ == "__main__":
    main()
