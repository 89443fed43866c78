"""The learned default's alignment step: sliced matrix products against pair-by-pair inner products.

Run from the project root::

    python benchmarks/bench_alignment.py [--graphs 1000] [--candidates 64] [--repeat 5]

ALIGNF needs ``M_kl = <K_k^c, K_l^c>_F`` for every pair of centred candidate matrices
(64 candidates on the default's 1,000-graph subsample with every member, product and
shape). Compared in the same run, on one BLAS thread, on random unit-diagonal PSD
matrices of that size:

* straightforward: centre every matrix (``center_gram``), then one ``np.vdot`` per pair;
* ours: ``graphinvariants.kernels.learned.alignment._centred_inner_products``, row slices
  centred on the fly and stacked, one matrix product per slice.

Prints the median times, their ratio and the largest relative difference of ``M``.
"""


import numpy as np
from threadpoolctl import threadpool_limits  # a scikit-learn dependency

from graphinvariants.kernels.learned import alignment
from timing import benchmark_parser, median_and_result  # benchmarks/timing.py


def pairwise(grams, target):
    centred = [alignment.center_gram(K) for K in grams]
    p = len(centred)
    M = np.empty((p, p))
    for k in range(p):
        for l in range(k + 1):
            M[k, l] = M[l, k] = np.vdot(centred[k], centred[l])
    return M, np.array([np.vdot(Kc, target) for Kc in centred])


def main():
    args = benchmark_parser(__doc__, repeat=5, graphs=1000, candidates=64).parse_args()
    rng = np.random.default_rng(0)
    features = rng.random((args.graphs, 20))
    grams = []
    for _ in range(args.candidates):
        F = features[:, rng.permutation(20)[:5]]
        F /= np.linalg.norm(F, axis=1, keepdims=True)
        grams.append(F @ F.T)
    target = alignment.center_gram(alignment.target_gram(rng.integers(2, size=args.graphs)))
    with threadpool_limits(1):
        plain, (M_plain, _) = median_and_result(lambda: pairwise(grams, target), args.repeat)
        sliced, (M_sliced, _) = median_and_result(lambda: alignment._centred_inner_products(grams, target), args.repeat)
    difference = float(np.max(np.abs(M_sliced - M_plain)) / np.max(np.abs(M_plain)))
    print(f"{args.candidates} candidates of {args.graphs} graphs, one thread, median of {args.repeat}: "
          f"pair by pair {plain:.2f} s, sliced {sliced:.2f} s, ratio {plain / sliced:.1f} x; "
          f"largest relative difference of M {difference:.1e}")


if __name__ == "__main__":
    main()
