"""graphinvariants.kernels: Gram matrices, first calls and top-k, against the peers (GraKeL) and plain loops."""

import numpy as np

import graphinvariants as gi
from graphinvariants.embeddings import GaussianEmbedding, RootedSubgraph, _bhattacharyya, _bhattacharyya_numba, meanmap
from graphinvariants.kernels import kernel_row_chunks, make_functional, pairwise_kernels, parse_kernel_spec

from .common import TU_DATA, grakel_graphs, one_thread, peer, random_graphs, tu

#: Every kernel on NCI1, the power kernel the reference of the ratios.
KERNELS = {"power": {}, "histogram": {"k": 9}, "wl": {"n_iter": 5}, "meanmap": {"n_features": 500},
           "power*histogram": {"histogram__k": 9}, "power*wl": {}, "power*histogram*wl": {"histogram__k": 9}}


def _pair_kernel(m1, c1, m2, c2):
    """The power kernel of one pair, plain numpy (the per-pair loop)."""
    cov = (c1 + c2) / 2
    d = m1 - m2
    return np.exp(0.25 * np.log(np.linalg.det(c1)) + 0.25 * np.log(np.linalg.det(c2))
                  - 0.5 * np.log(np.linalg.det(cov)) - 0.125 * d @ np.linalg.solve(cov, d))


def _threads1(call):
    def run():
        with one_thread():
            return call()
    return run


def _from_list(kernel, source):
    """NCI1 from the loaded set, a NetworkX list (conversion included) or 0.2's builder, one thread."""
    from .graphs import _per_graph_batch

    ds, options = tu("NCI1"), {} if kernel == "power" else {"node_label": "label"}
    graphs = {"data set": lambda: ds, "networkx list": lambda: ds.graphs,
              "0.2 builder": lambda: _per_graph_batch(ds.graphs)}[source]
    gi.kernel_matrix(ds[:50], kernel=kernel, n_jobs=1, **options)
    return _threads1(lambda: gi.kernel_matrix(graphs(), kernel=kernel, n_jobs=1, **options)), None


def _engine(name, engine, n_jobs):
    """A power Gram matrix from the invariants (user_guide.rst, "The ridge"); ``pair loop``: 20,000 random pairs,
    a numpy call per pair."""
    invariants = gi.batch_power_invariants(tu(name), k=5)
    if engine == "pair loop":
        pairs = [(inv.mean, inv.regularized_covariance()) for inv in invariants]
        return lambda: [_pair_kernel(*pairs[i], *pairs[j])
                        for i, j in np.random.default_rng(0).integers(0, len(pairs), (20_000, 2))], None
    if engine == "numba":
        peer("numba")
    functional = GaussianEmbedding(5, engine=engine)
    pairwise_kernels(invariants.take(np.arange(64)), functional=functional)  # compiled
    return lambda: pairwise_kernels(invariants, functional=functional, n_jobs=n_jobs), None


def _rooted(name, radius, call):
    """``rooted_subgraph`` (labels where the set has them): the embedding, the matrix from the set or its NetworkX
    graphs (compared with the set's)."""
    ds = tu(name)
    f = RootedSubgraph(radius, **{key: "label" for key, value in (("node_label", ds.batch.node_labels),
                                                                  ("edge_label", ds.batch.edge_labels))
                                  if value is not None})
    reference = lambda: pairwise_kernels(ds, functional=f)  # noqa: E731
    calls = {"embedding": lambda: f.embed(f.graph_batch(ds)), "data set": reference,
             "networkx list": lambda: pairwise_kernels(ds.graphs, functional=f)}
    return calls[call], call == "networkx list" and reference


def _attributes(call):
    """ENZYMES's ``attributes`` (``wl`` beside), one thread; the numpy and compiled paths of the double sums on 150
    graphs; compared with the exact compiled matrix."""
    ds = tu("ENZYMES")
    gi.kernel_matrix(ds[:100], kernel="attributes")  # the first call: numba imported, code loaded
    if call == "wl":
        return _threads1(lambda: gi.kernel_matrix(ds, kernel="wl")), None
    graphs = ds[:150] if "path" in call else ds
    if "path" in call:
        meanmap.COMPILED_PAIRS = np.inf if call.startswith("numpy") else 0
    options = {"exact, n_jobs=2": {"n_jobs": 2}, "2000 features": {"n_features": 2000}}.get(call, {})

    def exact():
        meanmap.COMPILED_PAIRS = 0
        return gi.kernel_matrix(graphs, kernel="attributes")
    return _threads1(lambda: gi.kernel_matrix(graphs, kernel="attributes", **options)), exact


#: Every Gram matrix case: a name -> ``(call, reference matrix or None)`` made in setup.
CASES = {**{f"NCI1 {k}": lambda k=k: (_threads1(lambda: gi.kernel_matrix(tu("NCI1"), kernel=k, n_jobs=1,
                                                                         **KERNELS[k])), None) for k in KERNELS},
         **{f"NCI1 {k} from {s}": lambda k=k, s=s: _from_list(k, s) for k in ["wl", "power", "shortest_path"]
            for s in ["data set", "networkx list", "0.2 builder"]},
         **{f"{d} power invariants, {e}, n_jobs={j}": lambda d=d, e=e, j=j: _engine(d, e, j)
            for d in ["MUTAG", "ENZYMES", "NCI1"] for e in ["numba", "numpy"] for j in [1, 2]},
         "NCI1 power invariants, pair loop": lambda: _engine("NCI1", "pair loop", 1),
         **{f"{d} rooted radius {r}, {c}": lambda d=d, r=r, c=c: _rooted(d, r, c)
            for d, r in [("NCI1", 2), ("REDDIT-BINARY", 1)] for c in ["embedding", "data set", "networkx list"]},
         **{f"ENZYMES attributes, {c}": lambda c=c: _attributes(c)
            for c in ["wl", "exact", "exact, n_jobs=2", "2000 features", "numpy path, 150 graphs",
                      "compiled path, 150 graphs"]}}


class Gram:
    """Gram matrices (docs/kernels.rst, user_guide.rst): every kernel on NCI1, from lists, the power engines,
    ``rooted_subgraph`` and ``attributes``; ``track_difference``: the largest difference from the reference matrix."""

    params, param_names = list(CASES), ["case"]
    timeout = 1800

    def setup(self, case):
        self.saved = meanmap.COMPILED_PAIRS
        self.call, self.reference = CASES[case]()

    def teardown(self, case):
        meanmap.COMPILED_PAIRS = self.saved

    def time_gram(self, case):
        self.call()

    def track_difference(self, case):
        return float(np.abs(self.call() - self.reference()).max()) if self.reference else float("nan")


class WhitenedPairs:
    """The share of a power Gram matrix's pairs (off the diagonal, %) left to the whitened evaluation, which the pair
    engine finishes once per matrix (user_guide.rst, "The ridge")."""

    params, param_names = ["MUTAG", "ENZYMES", "NCI1"], ["data set"]

    def track_share(self, name):
        f = GaussianEmbedding(5, engine="numpy")
        side = f.prepare(gi.batch_power_invariants(tu(name), k=5), name)
        i, j = np.divmod(f.open_tile(side, side, slice(0, len(side)), slice(0, len(side)))[1], len(side))
        return 100 * np.count_nonzero(i != j) / len(side) ** 2  # identical graphs included (1.0 without whitening)


class MeanMapFeatures:
    """The mean map's D random Fourier features against its exact double sums on MUTAG: time, largest and mean absolute
    error (3 seeds), accuracy (1 x 10-fold, C 1e-3 .. 1e3)."""

    params, param_names = [0, 50, 200, 500, 2000, 5000], ["features (0: exact)"]
    grid = tuple(10.0**e for e in range(-3, 4))

    def setup_cache(self):
        return gi.kernel_matrix(tu("MUTAG"), kernel="meanmap")

    def setup(self, exact, D):
        self.options = {"n_features": D} if D else {}

    def time_gram(self, exact, D):
        gi.kernel_matrix(tu("MUTAG"), kernel="meanmap", seed=0, **self.options)

    def track_max_error(self, exact, D):
        return float(np.mean([np.abs(gi.kernel_matrix(tu("MUTAG"), kernel="meanmap", seed=s, **self.options)
                                     - exact).max() for s in range(3)]))

    def track_accuracy(self, exact, D):
        K = gi.kernel_matrix(tu("MUTAG"), kernel="meanmap", seed=2, **self.options)
        return 100 * gi.evaluate_kernel(K, tu("MUTAG").y, n_repeats=1, C_grid=self.grid).mean


#: Our kernel and GraKeL's of the same definition: (our name and options, GraKeL class and options, labels).
PEERS = {"wloa": (("wloa", {"n_iter": 5, "node_label": "label"}),
                  ("WeisfeilerLehmanOptimalAssignment", {"n_iter": 5}), "label"),
         "shortest_path": (("shortest_path", {"node_label": "label"}), ("ShortestPath", {"with_labels": True}),
                           "label"),
         "attributes": (("attributes", {}), ("PropagationAttr", {"random_state": 0}), "attributes"),
         "graphhopper": (("attributes", {}), ("GraphHopper", {"kernel_type": "gaussian"}), "attributes"),
         "rooted_subgraph": (("rooted_subgraph", {"radius": 2, "node_label": "label", "edge_label": "label"}),
                             ("NeighborhoodSubgraphPairwiseDistance", {"r": 2, "d": 0}), "label")}


class Peers:
    """Ours (from the loaded data set) against GraKeL's kernel of the same definition (graphs converted beforehand),
    one thread; ``track_difference``: the largest absolute difference of the two matrices."""

    params = (["MUTAG", "ENZYMES", "NCI1"], list(PEERS), ["ours", "grakel"])
    param_names = ["data set", "kernel", "implementation"]
    timeout = 3600

    def setup(self, name, kernel, who):
        (ours, options), (cls, params), labels = PEERS[kernel]
        self.ds = ds = tu(name)
        if labels == "attributes" and ds.batch.node_attributes is None:
            raise NotImplementedError(f"{name} has no node attributes")
        if "edge_label" in options and ds.batch.edge_labels is None:
            options = {k: v for k, v in options.items() if k != "edge_label"}
        self.ours = lambda: gi.kernel_matrix(ds, kernel=ours, n_jobs=1, **options)
        self.ours()  # numba imported, compiled code loaded
        if who == "grakel":
            graphs = grakel_graphs(ds, labels=labels, edges=kernel == "rooted_subgraph")
            self.call = lambda: getattr(peer("grakel"), cls)(normalize=True, **params).fit_transform(graphs)
        else:
            self.call = self.ours

    def time_gram(self, *args):
        with one_thread():
            self.call()

    def track_difference(self, name, kernel, who):
        return float(np.abs(np.asarray(self.call()) - self.ours()).max())


_FIRST = """
import os, tempfile
os.environ.setdefault("OMP_NUM_THREADS", "1")
if {cold!r}:
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp()
import graphinvariants as gi
from graphinvariants.embeddings import _bhattacharyya
if {variant!r} == "straightforward":
    _bhattacharyya.warm_up = lambda engine, k, n_graphs: None
if {variant!r} == "numpy":
    _bhattacharyya.AUTO_MIN_PAIRS = 10**18
invariants = gi.batch_power_invariants(gi.load_tu("NCI1", data_home={data!r}, download=False), k=5)
"""
#: What the first-call variants switch off, read here so that a move fails ``asv check``.
_SWITCHES = (_bhattacharyya.warm_up, _bhattacharyya.AUTO_MIN_PAIRS, _bhattacharyya_numba.tile_values,
             meanmap.COMPILED_PAIRS)


class FirstCall:
    """The first power Gram matrix of a fresh process on NCI1: with the warm-up (numba's code loaded in a thread beside
    the invariants), straightforward (no warm-up), the numpy engine, and with an empty numba cache (a new
    environment)."""

    params, param_names = ["warm-up", "straightforward", "numpy", "cold numba cache"], ["variant"]
    repeat, number, timeout = 5, 1, 600

    def timeraw_first_gram(self, variant):
        setup = _FIRST.format(cold=variant.startswith("cold"), variant=variant.split(" ")[0], data=TU_DATA)
        return "gi.power_kernel_matrix(invariants, k=5)", setup


class FirstCallParts:
    """What a first call pays once, each in a fresh process: importing numba, the first compiled call (numba imported;
    the code loaded from its cache) and the first touch of a fresh 4,110 x 4,110 output (135 MB of page faults)."""

    repeat, number = 5, 1

    def timeraw_import_numba(self):
        return "import numba"

    def timeraw_first_compiled_call(self):
        return ("from graphinvariants.embeddings import _bhattacharyya_numba as m\n"
                "A, logdets = m.pack_side(means, halves, ones, ones), np.zeros(2)\n"
                "m.tile_values(m.token(5), A, logdets, 0, 2, A, logdets, 0, 2)",
                "import numba, numpy as np\n"
                "means, halves, ones = np.zeros((2, 5)), np.repeat(np.eye(5)[None] / 2, 2, axis=0), np.ones(2)")

    def timeraw_first_touch_of_the_output(self):
        return "out[:] = 1.0", "import numpy as np\nout = np.empty((4110, 4110))"


class ShortestPathFirstCall:
    """``shortest_path`` of NCI1's NetworkX graphs (loaded first), the first call of a fresh process, one thread: ours
    (conversion, numba's import included) against GraKeL's ``ShortestPath`` (its import and conversion included)."""

    params, param_names = ["ours", "grakel"], ["implementation"]
    repeat, number, timeout = 3, 1, 1800

    def setup(self, who):
        if who == "grakel":
            peer("grakel")

    def timeraw_kernel_from_networkx(self, who):
        setup = ("import os, warnings\nos.environ['OMP_NUM_THREADS'] = '1'\nwarnings.simplefilter('ignore')\n"
                 f"import graphinvariants as gi\ngraphs = gi.load_tu('NCI1', data_home={TU_DATA!r}).graphs")
        if who == "ours":
            return "gi.kernel_matrix(graphs, kernel='shortest_path', node_label='label', n_jobs=1)", setup
        return ("import grakel\ngrakel.ShortestPath(with_labels=True, normalize=True).fit_transform("
                "grakel.graph_from_networkx(graphs, node_labels_tag='label'))"), setup


class TopK:
    """Kernel rows in chunks: the top-10 of 100 queries among 20,000 random graphs from precomputed embeddings, the pair
    engine's rows (:func:`~graphinvariants.kernels.kernel_row_chunks`) in one chunk against one query row per chunk."""

    params = (["wl:n_iter=5", "histogram:k=5", "power:k=5", "power*histogram*wl"], ["one chunk", "one row"])
    param_names = ["kernel", "chunks"]
    timeout = 600

    def setup(self, name, chunks):
        graphs = random_graphs(20_000)
        spec, params = parse_kernel_spec(name)
        self.functional = make_functional(spec, **params)
        self.left, self.right = self.functional.as_embeddings(graphs[:100]), self.functional.as_embeddings(graphs)
        self.n_rows = 100 if chunks == "one chunk" else 1

    def time_kneighbors(self, name, chunks):
        for _, block in kernel_row_chunks(self.left, self.right, functional=self.functional, n_rows=self.n_rows):
            np.argpartition(-block, 10, axis=1)[:, :10]


class PowerMemory:
    """The power embedding of NCI1 at large k: invariants and the prepared side of the kernel (once the n x k^2 outer
    products), and a Gram matrix of 100 graphs."""

    params, param_names = [100, 200], ["k"]
    timeout = 600

    def setup(self, k):
        self.ds = tu("NCI1")
        self.functional = GaussianEmbedding(k=k, ridge=1e-8)
        self.batch = self.functional.graph_batch(self.ds)

    def peakmem_embedding(self, k):
        self.functional.prepare(self.functional.embed(self.batch), "NCI1")

    def peakmem_gram_100(self, k):
        gi.kernel_matrix(self.ds[:100], kernel="power", k=k, ridge=1e-8)
