"""Build time of the approximate index on a small collection: the projection by LAPACK's
full SVD on one BLAS thread (what ``ApproximateIndex`` does below ``DENSE_SVD_ENTRIES``)
against scikit-learn's randomised ``TruncatedSVD`` with BLAS on every core (what it did
before, issue 38: 5-10 s on MUTAG's 188 graphs under load), same rows, same run.

Rows: the learned default's features of MUTAG (``GraphFeatures(seed=0)``). Printed: the
median of ``--repeats`` builds of each projection alone and of the whole index, and the
ratios. Run: ``flock /tmp/gi-bench.lock python benchmarks/bench_approximate_build.py``.
Needs the ``[search]`` extra (FAISS) and the shared TU data.
"""

import argparse
import os
import warnings
from pathlib import Path


import graphinvariants as gi
from graphinvariants.search.approximate import ApproximateIndex
from timing import median_time  # benchmarks/timing.py

TU = Path(os.environ.get("GRAPHINVARIANTS_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data" / "TU"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    mutag = gi.load_tu("MUTAG", data_home=TU, download=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        X = gi.GraphFeatures(seed=0).fit(mutag, mutag.y).transform(mutag)
    index = ApproximateIndex(seed=0).fit(X)
    S = X[:, index.columns_].toarray() if index.columns_ is not None else X.toarray()
    n_components = index.n_dims_

    def randomized():
        from sklearn.decomposition import TruncatedSVD

        TruncatedSVD(n_components=n_components, random_state=0).fit(S)

    def full():
        import scipy.linalg

        from graphinvariants._utils.blas import one_blas_thread

        with one_blas_thread():
            scipy.linalg.svd(S, full_matrices=False)

    old = median_time(randomized, args.repeats)
    new = median_time(full, args.repeats)
    build = median_time(lambda: ApproximateIndex(seed=0).fit(X), args.repeats)
    print(f"MUTAG learned features: {X.shape[0]} rows, {X.shape[1]} columns ({S.shape[1]} held), "
          f"{n_components} dimensions, solver {index.svd_solver_!r}; medians of {args.repeats}")
    print(f"projection: randomised TruncatedSVD (all BLAS threads) {old * 1e3:.1f} ms, "
          f"full SVD (one thread) {new * 1e3:.1f} ms: {old / new:.1f}x")
    print(f"whole approximate index build now: {build * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
