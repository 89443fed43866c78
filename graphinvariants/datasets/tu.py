"""TU Dortmund graph-classification benchmarks (MUTAG, ENZYMES, NCI1, NCI109, ...).

:func:`load_tu` reads the TU text format: ``NAME_A.txt`` (one ``row, col`` line per
directed edge, 1-based node ids over the whole data set), ``NAME_graph_indicator.txt``
(each node's 1-based graph id), ``NAME_graph_labels.txt`` (each graph's class) and,
optionally, ``NAME_node_labels.txt``. Graphs are undirected and unweighted; an edge
listed once is mirrored, so ``A.txt`` files that list each edge twice (the standard)
and once give the same graphs. Isolated nodes, which appear only in the graph
indicator, are kept.
"""

import os
import zipfile
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..graphs import GraphBatch
from ..graphs.csr import edges_to_csr

__all__ = ["TUDataset", "load_tu", "default_data_home"]

_TU_URL = "https://www.chrsmrrs.com/graphkerneldatasets/{name}.zip"
_REQUIRED = ("A", "graph_indicator", "graph_labels")


class TUDataset(Sequence):
    """A TU graph-classification data set: a sequence of graphs with class labels.

    The graphs are stored once, compactly, as a :class:`~graphinvariants.graphs.GraphBatch`
    (one block-diagonal CSR matrix and node offsets), which every batch function uses
    directly. As a sequence, ``len(ds)``, ``ds[i]`` and iteration give NetworkX graphs
    built on demand; ``ds[a:b]`` (or ``ds[[i, j, ...]]``) is a smaller data set with its
    labels.

    Attributes
    ----------
    name : str
    batch : GraphBatch
        All graphs, with node labels when the data set has them.
    y : numpy.ndarray of shape (n_graphs,)
        Class label of each graph.
    path : pathlib.Path or None
        Folder the files were read from.

    Examples
    --------
    >>> import graphinvariants as gi
    >>> mutag = gi.load_tu("MUTAG")
    >>> len(mutag), mutag.n_nodes, mutag.classes
    (188, 3371, array([-1,  1]))
    >>> mutag[0].number_of_nodes()  # a NetworkX graph, built on demand
    17
    >>> mutag[:10]
    <TUDataset MUTAG[0:10]: 10 graphs, 2 classes, 166 nodes, 182 edges>
    >>> invariants = gi.batch_power_invariants(mutag, k=5)  # one batched pass
    >>> invariants[0].n_nodes
    17
    """

    def __init__(self, name, batch, y, path=None):
        if not isinstance(batch, GraphBatch):
            raise TypeError(f"batch must be a GraphBatch, got {type(batch).__name__}")
        y = np.asarray(y)
        if y.shape != (len(batch),):
            raise ValueError(f"y must have one label per graph ({len(batch)}), got shape {y.shape}")
        self.name = name
        self.batch = batch
        self.y = y
        self.path = path

    @property
    def matrix(self):
        """Block-diagonal 0/1 adjacency of all graphs (``batch.matrix``)."""
        return self.batch.matrix

    @property
    def offsets(self):
        """Graph ``g`` owns rows ``offsets[g]:offsets[g + 1]`` (``batch.offsets``)."""
        return self.batch.offsets

    @property
    def node_labels(self):
        """Label of every node in graph order, or None (``batch.node_labels``)."""
        return self.batch.node_labels

    @property
    def n_graphs(self):
        return len(self.batch)

    @property
    def n_nodes(self):
        return self.batch.n_nodes

    @property
    def n_edges(self):
        """Number of undirected edges, self-loops counted once."""
        return int((self.matrix.nnz + self.matrix.diagonal().astype(bool).sum()) // 2)

    @property
    def classes(self):
        return np.unique(self.y)

    def __len__(self):
        return self.n_graphs

    def __getitem__(self, index):
        if isinstance(index, (int, np.integer)):
            g = range(self.n_graphs)[index]
            return self._networkx(g, *self._edges_by_graph)
        indices = np.arange(self.n_graphs)[index]
        if isinstance(index, slice):
            label = f"{self.name}[{index.start or 0}:{index.stop if index.stop is not None else self.n_graphs}]"
        else:
            label = f"{self.name}[...]"
        return TUDataset(label, self.batch.take(indices), self.y[indices], self.path)

    def __repr__(self):
        return (
            f"<TUDataset {self.name}: {self.n_graphs} graphs, {len(self.classes)} classes, "
            f"{self.n_nodes} nodes, {self.n_edges} edges>"
        )

    @cached_property
    def adjacencies(self):
        """List of :class:`GraphAdjacency`, one per graph (nodes ``0..n_g-1``)."""
        return list(self.batch)

    @cached_property
    def _edges_by_graph(self):
        coo = sp.triu(self.matrix, format="coo")
        graph_of_edge = np.searchsorted(self.offsets, coo.row, side="right") - 1
        order = np.argsort(graph_of_edge, kind="stable")
        rows, cols, owner = coo.row[order], coo.col[order], graph_of_edge[order]
        bounds = np.searchsorted(owner, np.arange(self.n_graphs + 1))
        return rows, cols, bounds

    def _networkx(self, g, rows, cols, bounds):
        import networkx as nx

        start, stop = self.offsets[g], self.offsets[g + 1]
        G = nx.Graph(name=f"{self.name}[{g}]")
        G.add_nodes_from(range(stop - start))
        if self.node_labels is not None:
            for i, label in enumerate(self.node_labels[start:stop].tolist()):
                G.nodes[i]["label"] = label
        e = slice(bounds[g], bounds[g + 1])
        G.add_edges_from(zip((rows[e] - start).tolist(), (cols[e] - start).tolist()))
        return G

    @cached_property
    def graphs(self):
        """List of ``networkx.Graph``, one per graph, nodes ``0..n_g-1``.

        Node labels, when present, are stored as the node attribute ``"label"``.
        """
        parts = self._edges_by_graph
        return [self._networkx(g, *parts) for g in range(self.n_graphs)]


def default_data_home():
    """Where data sets are looked for when ``data_home`` is not given.

    The ``GRAPHINVARIANTS_DATA`` environment variable if it is set, else the
    per-user cache directory (``pooch.os_cache("graphinvariants")``).

    Examples
    --------
    >>> import os
    >>> from pathlib import Path
    >>> from graphinvariants.datasets import default_data_home
    >>> default_data_home() == Path(os.environ["GRAPHINVARIANTS_DATA"])  # set by our tests
    True
    """
    env = os.environ.get("GRAPHINVARIANTS_DATA")
    if env:
        return Path(env).expanduser()
    import pooch

    return Path(pooch.os_cache("graphinvariants"))


def load_tu(name, *, data_home=None, download=True):
    """Load a TU Dortmund graph-classification data set.

    Parameters
    ----------
    name : str
        Data set name as in the TU collection, e.g. ``"MUTAG"``, ``"ENZYMES"``,
        ``"NCI1"``, ``"NCI109"``.
    data_home : str or path-like, optional
        Folder holding ``NAME/NAME_A.txt`` and the other files. Defaults to
        :func:`default_data_home`.
    download : bool, keyword-only
        If the files are missing, download ``NAME.zip`` from the TU collection into
        ``data_home`` once (with pooch) and extract it.

    Returns
    -------
    TUDataset

    Raises
    ------
    FileNotFoundError
        If the files are missing and ``download`` is false or impossible; the message
        says where to put which files.
    ValueError
        If a file is malformed; the message names the file and line.

    Examples
    --------
    >>> import graphinvariants as gi
    >>> ds = gi.load_tu("MUTAG")  # from $GRAPHINVARIANTS_DATA or the cache
    >>> ds
    <TUDataset MUTAG: 188 graphs, 2 classes, 3371 nodes, 3721 edges>
    >>> ds.y[:5], ds[0].number_of_nodes()
    (array([ 1, -1, -1,  1, -1]), 17)
    """
    if not isinstance(name, str) or not name or "/" in name or "\\" in name or name.startswith("."):
        raise ValueError(f"not a data set name: {name!r}")
    home = Path(data_home).expanduser() if data_home is not None else default_data_home()
    folder = home / name
    missing = [part for part in _REQUIRED if not (folder / f"{name}_{part}.txt").is_file()]
    if missing:
        if not download:
            raise FileNotFoundError(_missing_message(name, folder, missing))
        _download(name, home)
        missing = [part for part in _REQUIRED if not (folder / f"{name}_{part}.txt").is_file()]
        if missing:
            raise FileNotFoundError(_missing_message(name, folder, missing))
    return read_tu_folder(folder, name)


def _missing_message(name, folder, missing):
    files = ", ".join(f"{name}_{p}.txt" for p in missing)
    return (
        f"TU data set {name!r} not found: {files} missing in {folder}. Put the files of "
        f"{_TU_URL.format(name=name)} (unzipped) in that folder, or pass data_home= / set "
        f"GRAPHINVARIANTS_DATA to the folder that contains {name}/."
    )


def _download(name, home):
    import pooch

    home.mkdir(parents=True, exist_ok=True)
    try:
        archive = pooch.retrieve(
            _TU_URL.format(name=name), known_hash=None, fname=f"{name}.zip", path=home, progressbar=False
        )
    except Exception as err:  # network errors come in many types
        raise FileNotFoundError(
            _missing_message(name, home / name, _REQUIRED) + f" (download failed: {err})"
        ) from err
    safe_extract(archive, home)


def safe_extract(archive, target):
    """Extract a zip file into ``target``, refusing members that would land outside it."""
    target = Path(target).resolve()
    with zipfile.ZipFile(archive) as zf:
        for member in zf.namelist():
            dest = (target / member).resolve()
            if target != dest and target not in dest.parents:
                raise ValueError(f"{archive}: member {member!r} would be extracted outside {target}")
        zf.extractall(target)


def _read_int_columns(path, n_columns):
    """Parse a comma-separated integer file; errors name the file and line."""
    text = path.read_text()
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    for i, line in enumerate(lines):
        if line.count(",") != n_columns - 1:
            raise ValueError(f"{path}, line {i + 1}: expected {n_columns} comma-separated integer(s), got {line!r}")
    try:
        values = np.array(" ".join(lines).replace(",", " ").split(), dtype=np.int64)
    except ValueError:
        for i, line in enumerate(lines):
            for field in line.split(","):
                try:
                    int(field)
                except ValueError:
                    raise ValueError(f"{path}, line {i + 1}: not an integer: {field.strip()!r}") from None
        raise
    if values.size != n_columns * len(lines):
        raise ValueError(f"{path}: expected {n_columns} integer(s) per line")
    return values.reshape(len(lines), n_columns)


def read_tu_folder(folder, name):
    """Read and validate the TU files of ``name`` in ``folder`` (see :func:`load_tu`)."""
    folder = Path(folder)
    indicator_path = folder / f"{name}_graph_indicator.txt"
    indicator = _read_int_columns(indicator_path, 1)[:, 0]
    n_nodes = indicator.size
    if n_nodes == 0:
        raise ValueError(f"{indicator_path}: the file is empty")
    bad = np.flatnonzero(np.diff(indicator) < 0)
    if bad.size:
        raise ValueError(f"{indicator_path}, line {bad[0] + 2}: graph ids must be non-decreasing")
    if indicator[0] != 1:
        raise ValueError(f"{indicator_path}, line 1: graph ids must start at 1, got {indicator[0]}")
    gaps = np.flatnonzero(np.diff(indicator) > 1)
    if gaps.size:
        raise ValueError(f"{indicator_path}, line {gaps[0] + 2}: graph id {indicator[gaps[0]] + 1} has no node")
    n_graphs = int(indicator[-1])

    labels_path = folder / f"{name}_graph_labels.txt"
    y = _read_int_columns(labels_path, 1)[:, 0]
    if y.size != n_graphs:
        raise ValueError(f"{labels_path}: {y.size} lines, but {indicator_path} names {n_graphs} graphs")

    edges_path = folder / f"{name}_A.txt"
    edges = _read_int_columns(edges_path, 2) - 1
    out_of_range = np.flatnonzero((edges < 0).any(axis=1) | (edges >= n_nodes).any(axis=1))
    if out_of_range.size:
        i = out_of_range[0]
        raise ValueError(f"{edges_path}, line {i + 1}: node id out of range 1..{n_nodes}: {tuple((edges[i] + 1).tolist())}")
    crossing = np.flatnonzero(indicator[edges[:, 0]] != indicator[edges[:, 1]])
    if crossing.size:
        i = crossing[0]
        raise ValueError(
            f"{edges_path}, line {i + 1}: edge {tuple((edges[i] + 1).tolist())} joins graphs "
            f"{indicator[edges[i, 0]]} and {indicator[edges[i, 1]]}"
        )
    matrix = edges_to_csr(n_nodes, edges[:, 0], edges[:, 1], directed=False, weighted=False)

    node_labels = None
    node_labels_path = folder / f"{name}_node_labels.txt"
    if node_labels_path.is_file():
        node_labels = _read_int_columns(node_labels_path, 1)[:, 0]
        if node_labels.size != n_nodes:
            raise ValueError(f"{node_labels_path}: {node_labels.size} lines, but {indicator_path} has {n_nodes}")

    offsets = np.concatenate(([0], np.cumsum(np.bincount(indicator - 1, minlength=n_graphs))))
    return TUDataset(name, GraphBatch(matrix, offsets, weighted=False, node_labels=node_labels), y, path=folder)
