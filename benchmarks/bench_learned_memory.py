"""Peak memory of the learned default's training matrix, built block by block (issue 23).

Run from the project root:

    python benchmarks/bench_learned_memory.py [--data ../shared/data/TU] [--sizes 12000 20000]
                                              [--working-memory MIB] [--reference-limit GIB]
                                              [--cases blockwise whole]

Data: NCI1 (4,110 molecules, node labels) repeated in order until there are ``n``
graphs (graph ``i`` is NCI1 graph ``i mod 4110``, with its class), as a TUDataset
slice, so the graphs cost little memory beside the matrices. Nothing is downloaded.

Each case runs in its own process and prints its peak resident memory
(``resource.getrusage``), the resident memory just before the call (the data, the
libraries) and the increase, each as a ratio to the bytes of the ``n x n`` float64
matrix that ``fit_transform`` returns:

* ``blockwise``: ``GraphKernel(seed=0).fit_transform(graphs, y)``, the package as it is:
  the weights learned on 1,000 graphs, then the matrix built block by block within
  ``working_memory`` (default: scikit-learn's 1024 MiB).
* ``whole``: the previous path, kept here as the reference: the same fit, then every
  member's whole ``n x n`` matrix, the weighted sum of the whole matrices and
  ``(K + K.T) / 2``. It runs under an address-space limit (``--reference-limit``,
  default 18 GiB) so that a case that does not fit ends with a MemoryError instead of
  taking the machine.

Both print a SHA-256 of the matrix, so the run shows whether they are equal to the bit.
"""

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

GIB = 2**30
ROOT = Path(__file__).resolve().parents[1]


def rss_bytes():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def whole_gram(combination):
    """The previous LearnedCombination.gram: whole member matrices, summed whole."""
    from graphinvariants.kernels import pairwise_kernels

    needed = {p for _, parts, _, _ in combination._chosen for p in parts}
    grams = {name: pairwise_kernels(combination.embeddings[name], functional=combination.functionals[name],
                                    n_jobs=combination.n_jobs) for name in needed}
    K = combination.combine(grams)
    del grams
    K = (K + K.T) / 2
    np.fill_diagonal(K, 1.0)
    return K


def run_case(case, n, data, working_memory):
    import graphinvariants as gi

    nci1 = gi.load_tu("NCI1", data_home=data)
    index = np.arange(n) % len(nci1)
    graphs, y = nci1[index], nci1.y[index]
    del nci1
    before = rss_bytes()
    start = time.perf_counter()
    try:
        if case == "blockwise":
            K = gi.GraphKernel(seed=0, working_memory=working_memory).fit_transform(graphs, y)
        else:
            model = gi.GraphKernel(seed=0).fit(graphs, y)
            K = whole_gram(model.combination_)
    except MemoryError as err:
        return {"case": case, "n": n, "error": f"MemoryError: {err}"[:200],
                "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "before": before}
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"case": case, "n": n, "seconds": seconds, "peak": peak, "before": before,
            "sha256": hashlib.sha256(K.tobytes()).hexdigest()[:16]}


def in_subprocess(case, n, data, working_memory, limit_gib):
    command = [sys.executable, __file__, "--case", case, "--sizes", str(n), "--data", str(data)]
    if working_memory is not None:
        command += ["--working-memory", str(working_memory)]
    if case == "whole":
        command += ["--reference-limit", str(limit_gib)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return {"case": case, "n": n, "error": f"exit {done.returncode}: {done.stderr.strip()[-300:]}"}
    return json.loads(lines[-1])


def show(result):
    n = result["n"]
    out = 8 * n * n
    peak, before = result.get("peak"), result.get("before")
    if "error" in result:
        where = f", peak {peak / GIB:.2f} GiB" if peak else ""
        return f"{result['case']:>9}  n={n:>6}: did not complete ({result['error']}){where}"
    return (f"{result['case']:>9}  n={n:>6}: {result['seconds']:7.1f} s, peak {peak / GIB:6.2f} GiB "
            f"= {peak / out:.2f}x the output ({out / GIB:.2f} GiB); before the call {before / GIB:.2f} GiB, "
            f"increase {(peak - before) / GIB:.2f} GiB = {(peak - before) / out:.2f}x; sha256 {result['sha256']}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "TU"))
    parser.add_argument("--sizes", type=int, nargs="+", default=[12000, 20000])
    parser.add_argument("--working-memory", type=float, default=None)
    parser.add_argument("--cases", nargs="+", choices=("blockwise", "whole"), default=["blockwise", "whole"])
    parser.add_argument("--reference-limit", type=float, default=18.0, help="GiB of address space for 'whole'")
    parser.add_argument("--case", choices=("blockwise", "whole"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.case:  # one case, in this process
        if args.case == "whole":
            limit = int(args.reference_limit * GIB)
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        print(json.dumps(run_case(args.case, args.sizes[0], args.data, args.working_memory)))
        return
    print(f"NCI1 repeated; GraphKernel(seed=0), working_memory={args.working_memory or 'sklearn default'}; "
          f"reference under a {args.reference_limit:g} GiB address-space limit")
    for n in args.sizes:
        results = [in_subprocess(case, n, args.data, args.working_memory, args.reference_limit)
                   for case in args.cases]
        for result in results:
            print(show(result), flush=True)
        if len(results) < 2:
            continue
        blockwise, whole = results
        if "error" not in blockwise and "error" not in whole:
            print(f"   n={n}: peak whole / blockwise {whole['peak'] / blockwise['peak']:.2f}x, time "
                  f"{whole['seconds'] / blockwise['seconds']:.2f}x, equal to the bit: "
                  f"{blockwise['sha256'] == whole['sha256']}", flush=True)


if __name__ == "__main__":
    main()
