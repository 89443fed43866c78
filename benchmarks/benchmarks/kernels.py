"""graphinvariants.kernels: Gram matrices, first calls and top-k, against the peers (GraKeL) and plain loops."""

import numpy as np

import graphinvariants as gi
from graphinvariants.embeddings import GaussianEmbedding, RootedSubgraph, _bhattacharyya, _bhattacharyya_numba, meanmap
from graphinvariants.kernels import kernel_row_chunks, make_functional, pairwise_kernels, parse_kernel_spec

from .common import TU_DATA, grakel_graphs, one_thread, peer, random_graphs, tu

#: Every kernel on NCI1 (bench_kernels 1), the power kernel the reference of the ratios.
KERNELS = {"power": {}, "histogram": {"k": 9}, "wl": {"n_iter": 5}, "meanmap": {"n_features": 500},
           "power*histogram": {"histogram__k": 9}, "power*wl": {}, "power*histogram*wl": {"histogram__k": 9}}


class Gram:
    """The NCI1 Gram matrix of every kernel from the loaded data set (embedding included), one thread."""

    params = list(KERNELS)
    param_names = ["kernel"]
    timeout = 300

    def setup(self, kernel):
        self.ds = tu("NCI1")

    def time_gram(self, kernel):
        with one_thread():
            gi.kernel_matrix(self.ds, kernel=kernel, n_jobs=1, **KERNELS[kernel])


def _pair_kernel(m1, c1, m2, c2):
    """The power kernel of one pair, plain numpy (the per-pair loop)."""
    cov = (c1 + c2) / 2
    d = m1 - m2
    return np.exp(0.25 * np.log(np.linalg.det(c1)) + 0.25 * np.log(np.linalg.det(c2))
                  - 0.5 * np.log(np.linalg.det(cov)) - 0.125 * d @ np.linalg.solve(cov, d))


class PowerEngine:
    """The power Gram matrix from the invariants (bench_core 1, bench_batches 3): the
    compiled and numpy engines on 1 and 2 threads, MUTAG, ENZYMES and NCI1. The pairs
    left to the whitened evaluation are finished once per matrix (user guide, "The
    ridge"); ``track_whitened``: their share off the diagonal. ``time_pair_loop``: 20,000 random NCI1
    pairs by a plain numpy call per pair (scale by 8,448,105 / 20,000 for all pairs)."""

    params = (["numba", "numpy"], [1, 2], ["MUTAG", "ENZYMES", "NCI1"])
    param_names = ["engine", "n_jobs", "data set"]

    def setup(self, engine, n_jobs, name):
        if engine == "numba":
            peer("numba")
        self.invariants = gi.batch_power_invariants(tu(name), k=5)
        self.functional = GaussianEmbedding(5, engine=engine)
        pairwise_kernels(self.invariants.take(np.arange(64)), functional=self.functional)  # compiled
        self.pairs = [(inv.mean, inv.regularized_covariance()) for inv in self.invariants]

    def time_gram(self, engine, n_jobs, name):
        pairwise_kernels(self.invariants, functional=self.functional, n_jobs=n_jobs)

    def time_pair_loop(self, engine, n_jobs, name):
        if name != "NCI1":
            raise NotImplementedError("NCI1 only")
        for i, j in np.random.default_rng(0).integers(0, len(self.pairs), (20_000, 2)):
            _pair_kernel(*self.pairs[i], *self.pairs[j])

    def track_whitened(self, engine, n_jobs, name):
        side = self.functional.prepare(self.invariants, name)
        n = len(side)
        i, j = np.divmod(self.functional.open_tile(side, side, slice(0, n), slice(0, n))[1], n)
        return 100 * np.count_nonzero(i != j) / n**2  # duplicates included (1.0 without whitening)

    track_whitened.unit = "% of pairs"


class MeanMapFeatures:
    """The mean map's D random Fourier features against its exact double sums on MUTAG
    (bench_kernels 2): time, largest and mean absolute error (3 seeds), accuracy (1 x 10-fold, C 1e-3 .. 1e3)."""

    params = [0, 50, 200, 500, 2000, 5000]
    param_names = ["features (0: exact)"]
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
         "shortest_path": (("shortest_path", {"node_label": "label"}), ("ShortestPath", {"with_labels": True}), "label"),
         "attributes": (("attributes", {}), ("PropagationAttr", {"random_state": 0}), "attributes"),
         "graphhopper": (("attributes", {}), ("GraphHopper", {"kernel_type": "gaussian"}), "attributes"),
         "rooted_subgraph": (("rooted_subgraph", {"radius": 2, "node_label": "label", "edge_label": "label"}),
                             ("NeighborhoodSubgraphPairwiseDistance", {"r": 2, "d": 0}), "label")}


class Peers:
    """Ours against GraKeL's kernel of the same definition, same graphs, one thread
    (bench_assignment, bench_shortest_path, bench_attributes, bench_rooted): our time
    from the loaded data set (embedding included), GraKeL's on graphs converted
    beforehand by the library's own converter; ``track_difference``: the largest
    absolute difference of the two matrices."""

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


class FromList:
    """The Gram matrix from a list of NetworkX graphs (conversion included) over the
    loaded data set and through 0.2's builder, NCI1, one thread (bench_networkx_input 2)."""

    params = (["wl", "power", "shortest_path"], ["data set", "networkx list", "0.2 builder"])
    param_names = ["kernel", "source"]

    def setup(self, kernel, source):
        from .graphs import _per_graph_batch

        ds = tu("NCI1")
        self.options = {} if kernel == "power" else {"node_label": "label"}
        self.source = {"data set": lambda: ds, "networkx list": lambda: ds.graphs,
                       "0.2 builder": lambda: _per_graph_batch(ds.graphs)}[source]
        gi.kernel_matrix(ds[:50], kernel=kernel, n_jobs=1, **self.options)

    def time_gram(self, kernel, source):
        with one_thread():
            gi.kernel_matrix(self.source(), kernel=kernel, n_jobs=1, **self.options)


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
    """The first power Gram matrix of a fresh process on NCI1 (bench_first_call): with the
    warm-up (numba's code loaded in a thread beside the invariants), straightforward (no
    warm-up), the numpy engine, and with an empty numba cache (a new environment)."""

    params = ["warm-up", "straightforward", "numpy", "cold numba cache"]
    param_names = ["variant"]
    repeat = 5
    number = 1
    timeout = 600

    def timeraw_first_gram(self, variant):
        setup = _FIRST.format(cold=variant.startswith("cold"), variant=variant.split(" ")[0], data=TU_DATA)
        return "gi.power_kernel_matrix(invariants, k=5)", setup


class FirstCallParts:
    """What a first call pays once, each in a fresh process (bench_first_call): importing
    numba, the first compiled call (numba imported; the code loaded from its cache) and the
    first touch of a fresh 4,110 x 4,110 output (135 MB of page faults)."""

    repeat, number = 5, 1

    def timeraw_import_numba(self):
        return "import numba"

    def timeraw_first_compiled_call(self):
        return ("from graphinvariants.embeddings import _bhattacharyya_numba as m\n"
                "A, logdets = m.pack_side(means, halves, ones, ones), np.zeros(2)\n"
                "m.tile_values(m.token(5), A, logdets, 0, 2, A, logdets, 0, 2)",
                "import numba, numpy as np\nmeans, halves = np.zeros((2, 5)), np.repeat(np.eye(5)[None] / 2, 2, axis=0)\n"
                "ones = np.ones(2)")

    def timeraw_first_touch_of_the_output(self):
        return "out[:] = 1.0", "import numpy as np\nout = np.empty((4110, 4110))"


class ShortestPathFirstCall:
    """``shortest_path`` of NCI1 from its NetworkX graphs, the first call of a fresh process,
    one thread (bench_networkx_input 3): ours (conversion, numba's import and its cached
    search included) against GraKeL's ``ShortestPath`` of ``grakel.graph_from_networkx``
    (its import and conversion included); the graphs are loaded before the clock starts."""

    params = ["ours", "grakel"]
    param_names = ["implementation"]
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


class Rooted:
    """``rooted_subgraph`` (bench_rooted): the embedding and the Gram matrix of NCI1 at radius
    2 and REDDIT-BINARY at radius 1 (node labels and bond types where the set has them), from
    the data set and from its NetworkX graphs (conversion included); ``track_equal``: the two
    matrices are equal. GraKeL's NSPDK is in ``Peers``."""

    params = (["NCI1 radius 2", "REDDIT-BINARY radius 1"], ["embedding", "data set", "networkx list"])
    param_names = ["data", "call"]
    timeout = 1800

    def setup(self, data, call):
        name, radius = data.split(" radius ")
        self.ds = ds = tu(name)
        labels = {key: "label" for key, value in (("node_label", ds.batch.node_labels),
                                                  ("edge_label", ds.batch.edge_labels)) if value is not None}
        self.functional = f = RootedSubgraph(int(radius), **labels)
        self.call = {"embedding": lambda: f.embed(f.graph_batch(ds)), "data set": lambda: pairwise_kernels(ds, functional=f),
                     "networkx list": lambda: pairwise_kernels(ds.graphs, functional=f)}[call]

    def time_call(self, data, call):
        self.call()

    def track_equal(self, data, call):
        f = self.functional
        return int(np.array_equal(pairwise_kernels(self.ds, functional=f), pairwise_kernels(self.ds.graphs, functional=f)))


class TopK:
    """Kernel rows in chunks (bench_neighbors_chunks): the top-10 of 100 queries among
    20,000 random graphs from precomputed embeddings, the pair engine's rows
    (:func:`~graphinvariants.kernels.kernel_row_chunks`) in one chunk against one query
    row per chunk."""

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
    """The power embedding of NCI1 at large k (bench_memory 4): invariants and the prepared
    side of the kernel (once the n x k^2 outer products), and a Gram matrix of 100 graphs."""

    params = [100, 200]
    param_names = ["k"]
    timeout = 600

    def setup(self, k):
        self.ds = tu("NCI1")
        self.functional = GaussianEmbedding(k=k, ridge=1e-8)
        self.batch = self.functional.graph_batch(self.ds)

    def peakmem_embedding(self, k):
        self.functional.prepare(self.functional.embed(self.batch), "NCI1")

    def peakmem_gram_100(self, k):
        gi.kernel_matrix(self.ds[:100], kernel="power", k=k, ridge=1e-8)



class Attributes:
    """The ``attributes`` member on ENZYMES against ``wl`` (bench_attributes, one thread):
    the exact double sums on one and two jobs, 2,000 random features (``track_difference``:
    the largest difference from the exact matrix), and the numpy path of the double sums
    against the compiled one on the first 150 graphs (the same bits)."""

    params = ["wl", "exact", "exact, n_jobs=2", "2000 features", "numpy path, 150 graphs",
              "compiled path, 150 graphs"]
    param_names = ["call"]
    timeout = 900

    def setup(self, call):
        self.saved = meanmap.COMPILED_PAIRS
        ds = tu("ENZYMES")
        gi.kernel_matrix(ds[:100], kernel="attributes")  # the first call: numba imported, code loaded
        part = ds[:150]
        if "path" in call:
            meanmap.COMPILED_PAIRS = np.inf if call.startswith("numpy") else 0
        self.call = {"wl": lambda: gi.kernel_matrix(ds, kernel="wl"),
                     "exact": lambda: gi.kernel_matrix(ds, kernel="attributes"),
                     "exact, n_jobs=2": lambda: gi.kernel_matrix(ds, kernel="attributes", n_jobs=2),
                     "2000 features": lambda: gi.kernel_matrix(ds, kernel="attributes", n_features=2000),
                     }.get(call, lambda: gi.kernel_matrix(part, kernel="attributes"))
        self.exact = lambda: gi.kernel_matrix(part if "path" in call else ds, kernel="attributes")

    def teardown(self, call):
        meanmap.COMPILED_PAIRS = self.saved

    def time_gram(self, call):
        with one_thread():
            self.call()

    def track_difference(self, call):
        if call == "wl":
            return 0.0
        mine = self.call()
        meanmap.COMPILED_PAIRS = 0
        return float(np.abs(mine - self.exact()).max())
