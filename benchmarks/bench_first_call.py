"""The first power Gram matrix of a process against the later ones, on NCI1.

Run from the project root:  python benchmarks/bench_first_call.py [--data ../shared/data/TU]

Each run is a fresh Python process (``--runs`` of them, and as many again for the
straightforward variant) that loads NCI1 (4,110 graphs), computes the invariants
(k = 5) with :func:`batch_power_invariants`, and then times three calls of
:func:`power_kernel_matrix` on one thread, keeping each result (as a user keeps the
matrix they asked for). It prints the median of each call over the runs, and the
first call's ratio to the third:

* **warm-up** (the library): embedding a collection whose Gram matrix goes to the
  compiled engine starts loading that engine (numba's import and its cached code) in
  a thread, beside the power iterations;
* **straightforward**: the same with the warm-up switched off, so that the first matrix
  imports numba and loads the code itself (what every first call did before).

What the rest of a first call is made of is printed too, from the same kind of fresh
processes: importing numba, the first call of the compiled code (loading it from
numba's cache), and the first touch of a fresh 4,110 x 4,110 output (135 MB, page
faults; its cost depends on whether the kernel finds huge pages free).

``--cold`` measures instead what a new environment pays once: each run gives numba an
empty cache (``NUMBA_CACHE_DIR``, a new folder) and times, in fresh processes, the
library's first call there (**cold**: numba compiles), then a later process on that
cache (**warm**), then the numpy engine (**numpy**: ``engine="auto"`` kept off the
compiled engine), and prints the medians and the ratios to numpy.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, sys, time
import numpy as np
import graphinvariants as gi
from graphinvariants.embeddings import _bhattacharyya
if sys.argv[2] == "straightforward":
    _bhattacharyya.warm_up = lambda engine, k, n_graphs: None
if sys.argv[2] == "numpy":
    _bhattacharyya.AUTO_MIN_PAIRS = 10**18  # every matrix below it: the numpy engine
data = gi.load_tu("NCI1", data_home=sys.argv[1], download=False)
start = time.perf_counter()
invariants = gi.batch_power_invariants(data, k=5)
times = {"invariants": time.perf_counter() - start}
kept = []
for call in range(3):
    start = time.perf_counter()
    kept.append(gi.power_kernel_matrix(invariants, k=5))
    times[f"call {call + 1}"] = time.perf_counter() - start
assert all(np.array_equal(kept[0], K) for K in kept[1:])
print(json.dumps(times))
"""

PARTS = r"""
import json, time
import numpy as np
times = {}
start = time.perf_counter()
import numba  # noqa: F401
times["import numba"] = time.perf_counter() - start
from graphinvariants.embeddings import _bhattacharyya
start = time.perf_counter()
module = _bhattacharyya._compiled_module()
means, halves = np.zeros((2, 5)), np.repeat(np.eye(5)[None] / 2, 2, axis=0)
A, logdets = module.pack_side(means, halves)
module.tile_values(module.token(5), A, logdets, 0, 2, A, logdets, 0, 2)
times["first compiled call (cache load)"] = time.perf_counter() - start
start = time.perf_counter()
out = np.empty((4110, 4110))
out[:] = 1.0
times["first touch of a 4,110 x 4,110 output"] = time.perf_counter() - start
print(json.dumps(times))
"""


def _child(code, *args, env=None):
    result = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, check=True,
                            env=env)
    return json.loads(result.stdout.strip().splitlines()[-1])


def cold(data, runs):
    """First calls with an empty numba cache, a warm one, and the numpy engine."""
    rows = {"cold": [], "warm": [], "numpy": []}
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            rows["cold"].append(_child(CHILD, data, "warm-up", env=env))
            rows["warm"].append(_child(CHILD, data, "warm-up", env=env))
            rows["numpy"].append(_child(CHILD, data, "numpy", env=env))
    print(f"NCI1, k = 5, one thread; median of {runs} fresh processes per variant (seconds)")
    print(f"{'variant':<8} {'invariants':>10} {'call 1':>8} {'call 3':>8} {'call 1 / numpy call 1':>22}")
    medians = {variant: {key: statistics.median(run[key] for run in runs_) for key in runs_[0]}
               for variant, runs_ in rows.items()}
    for variant, m in medians.items():
        print(f"{variant:<8} {m['invariants']:>10.3f} {m['call 1']:>8.3f} {m['call 3']:>8.3f} "
              f"{m['call 1'] / medians['numpy']['call 1']:>22.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "TU"))
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per variant (default: %(default)s)")
    parser.add_argument("--cold", action="store_true", help="first calls with an empty numba cache (see above)")
    args = parser.parse_args()
    if args.cold:
        cold(args.data, args.runs)
        return

    _child(CHILD, args.data, "warm-up")  # compiles into numba's cache if this checkout never did
    rows = {"warm-up": [], "straightforward": []}
    for _ in range(args.runs):  # interleaved, so that both variants see the same load
        for variant in rows:
            rows[variant].append(_child(CHILD, args.data, variant))
    print(f"NCI1, k = 5, one thread; median of {args.runs} fresh processes per variant (seconds)")
    print(f"{'variant':<16} {'invariants':>10} {'call 1':>8} {'call 2':>8} {'call 3':>8} {'1st / 3rd':>10}")
    medians = {}
    for variant, runs in rows.items():
        medians[variant] = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        m = medians[variant]
        print(f"{variant:<16} {m['invariants']:>10.3f} {m['call 1']:>8.3f} {m['call 2']:>8.3f} {m['call 3']:>8.3f} "
              f"{m['call 1'] / m['call 3']:>10.2f}")
    first = medians["straightforward"]["call 1"] / medians["warm-up"]["call 1"]
    whole = ((medians["straightforward"]["invariants"] + medians["straightforward"]["call 1"])
             / (medians["warm-up"]["invariants"] + medians["warm-up"]["call 1"]))
    print(f"first call, straightforward / warm-up: {first:.2f}; invariants + first call: {whole:.2f}")
    parts = [_child(PARTS) for _ in range(args.runs)]
    print("\nwhat a first call pays once (median of fresh processes, seconds):")
    for key in parts[0]:
        print(f"  {key:<40} {statistics.median(p[key] for p in parts):.3f}")


if __name__ == "__main__":
    main()
