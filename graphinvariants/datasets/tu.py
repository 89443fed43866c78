"""TU Dortmund graph-classification benchmarks (MUTAG, ENZYMES, NCI1, NCI109, ...).

:func:`load_tu` reads the TU text format: ``NAME_A.txt`` (one ``row, col`` line per
directed edge, 1-based node ids over the whole data set), ``NAME_graph_indicator.txt``
(each node's 1-based graph id), ``NAME_graph_labels.txt`` (each graph's class) and,
when present, ``NAME_node_labels.txt`` (an integer per node), ``NAME_edge_labels.txt``
(an integer per line of ``A.txt``), ``NAME_node_attributes.txt`` and
``NAME_edge_attributes.txt`` (comma-separated reals per node, per line of ``A.txt``).
Graphs are undirected and unweighted; an edge listed once is mirrored, and lines that
repeat an edge (in either direction) are merged into one edge, which must then have one
label and one attribute row. So ``A.txt`` files that list each edge twice (the
standard), once, or four times (``IMDB-BINARY``) give the same graphs. Isolated nodes,
which appear only in the graph indicator, are kept.
"""

import difflib
import os
import re
import shutil
import tempfile
import zipfile
import zlib
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path

import numpy as np

from ..graphs import GraphBatch
from ..graphs.csr import block_entries, edges_to_csr, entry_values

__all__ = ["DataNotFoundError", "TUDataset", "default_data_home", "load_tu", "read_tu_folder", "safe_extract"]

_TU_URL = "https://www.chrsmrrs.com/graphkerneldatasets/{name}.zip"
_REQUIRED = ("A", "graph_indicator", "graph_labels")

_TOX21_TARGETS = ("AhR", "AR", "AR-LBD", "ARE", "aromatase", "ATAD5", "ER", "ER-LBD", "HSE", "MMP", "p53", "PPAR-gamma")

#: Names of the data sets of the TU collection (https://chrsmrrs.github.io/datasets/), which
#: are case-sensitive. A name missing from a data folder is downloaded even when it is close
#: to a local one; any other name close to a local one is taken for a typo.
_TU_NAMES = frozenset(
    """
    AIDS alchemy_full aspirin benzene BZR BZR_MD COX2 COX2_MD DHFR DHFR_MD ER_MD ethanol
    FRANKENSTEIN malonaldehyde MCF-7 MCF-7H MOLT-4 MOLT-4H Mutagenicity MUTAG naphthalene NCI1
    NCI109 NCI-H23 NCI-H23H OVCAR-8 OVCAR-8H P388 P388H PC-3 PC-3H PTC_FM PTC_FR PTC_MM PTC_MR
    QM9 salicylic_acid SF-295 SF-295H SN12C SN12CH SW-620 SW-620H toluene UACC257 UACC257H
    uracil Yeast YeastH ZINC_full ZINC_test ZINC_train ZINC_val
    DD ENZYMES KKI OHSU Peking_1 PROTEINS PROTEINS_full
    COIL-DEL COIL-RAG Cuneiform Fingerprint FIRSTMM_DB Letter-high Letter-low Letter-med MSRC_9
    MSRC_21 MSRC_21C
    COLLAB dblp_ct1 dblp_ct2 DBLP_v1 deezer_ego_nets facebook_ct1 facebook_ct2 github_stargazers
    highschool_ct1 highschool_ct2 IMDB-BINARY IMDB-MULTI infectious_ct1 infectious_ct2 mit_ct1
    mit_ct2 REDDIT-BINARY REDDIT-MULTI-5K REDDIT-MULTI-12K reddit_threads tumblr_ct1 tumblr_ct2
    twitch_egos TWITTER-Real-Graph-Partial
    COLORS-3 SYNTHETIC SYNTHETICnew Synthie TRIANGLES
    """.split()
) | {f"Tox21_{target}_{split}" for target in _TOX21_TARGETS for split in ("training", "testing", "evaluation")}


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
        All graphs, with node labels, edge labels (one per stored entry of
        ``batch.matrix``) and node attributes when the data set has them.
    y : numpy.ndarray of shape (n_graphs,)
        Class label of each graph.
    path : pathlib.Path or None
        Folder the files were read from.
    edge_attributes : numpy.ndarray of shape (batch.matrix.nnz, n_edge_attributes) or None
        Real attributes of every stored entry, aligned with ``batch.edge_labels``
        (both entries of an edge hold its row).

    Notes
    -----
    The NetworkX graphs carry what the data set has, as node attribute ``"label"``
    (node label), edge attribute ``"label"`` (edge label), node attribute
    ``"attributes"`` (tuple of floats) and edge attribute ``"attributes"`` (tuple of
    floats); labels are Python ints.

    Examples
    --------
    >>> import graphinvariants as gi
    >>> mutag = gi.load_tu("MUTAG")
    >>> len(mutag), mutag.n_nodes, mutag.classes
    (188, 3371, array([-1,  1]))
    >>> mutag[0].number_of_nodes()  # a NetworkX graph, built on demand
    17
    >>> mutag[:10]
    <TUDataset MUTAG[0:10]: 10 graphs, 2 classes, 166 nodes, 182 edges; node labels, edge labels>
    >>> mutag[0].edges[0, 1]  # bond type of the first edge
    {'label': 0}
    >>> invariants = gi.batch_power_invariants(mutag, k=5)  # one batched pass
    >>> invariants[0].n_nodes
    17
    """

    def __init__(self, name, batch, y, path=None, edge_attributes=None):
        if not isinstance(batch, GraphBatch):
            raise TypeError(f"batch must be a GraphBatch, got {type(batch).__name__}")
        y = np.asarray(y)
        if y.shape != (len(batch),):
            raise ValueError(f"y must have one label per graph ({len(batch)}), got shape {y.shape}")
        if edge_attributes is not None:
            edge_attributes = np.asarray(edge_attributes, dtype=np.float64)
            if edge_attributes.ndim != 2 or edge_attributes.shape[0] != batch.matrix.nnz:
                raise ValueError(f"edge_attributes must have shape ({batch.matrix.nnz}, n_attributes) (a row per "
                                 f"stored entry), got {edge_attributes.shape}")
            if not np.isfinite(edge_attributes).all():
                raise ValueError("edge_attributes contains NaN or infinite values")
            edge_attributes.setflags(write=False)
        self.name = name
        self.batch = batch
        self.y = y
        self.path = path
        self.edge_attributes = edge_attributes

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
    def edge_labels(self):
        """Label of every stored entry of ``matrix``, or None (``batch.edge_labels``)."""
        return self.batch.edge_labels

    @property
    def node_attributes(self):
        """Attribute rows of every node, or None (``batch.node_attributes``)."""
        return self.batch.node_attributes

    @property
    def carries(self):
        """What the graphs carry besides edges, in words (tuple of str).

        Examples
        --------
        >>> import graphinvariants as gi
        >>> gi.load_tu("ENZYMES").carries
        ('node labels', '18 node attributes')
        """
        out = []
        if self.node_labels is not None:
            out.append("node labels")
        if self.edge_labels is not None:
            out.append("edge labels")
        if self.node_attributes is not None:
            out.append(f"{self.node_attributes.shape[1]} node attributes")
        if self.edge_attributes is not None:
            out.append(f"{self.edge_attributes.shape[1]} edge attributes")
        return tuple(out)

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
            start, stop, step = index.indices(self.n_graphs)  # the positions taken, as Python says them
            label = f"{self.name}[{start}:{stop if stop >= 0 else ''}{f':{step}' if step != 1 else ''}]"
        else:
            label = f"{self.name}[...]"
        edge_attributes = None
        if self.edge_attributes is not None:
            edge_attributes = self.edge_attributes[block_entries(self.matrix, self.offsets, indices)]
        return TUDataset(label, self.batch.take(indices), self.y[indices], self.path, edge_attributes)

    def __repr__(self):
        return (
            f"<TUDataset {self.name}: {self.n_graphs} graphs, {len(self.classes)} classes, "
            f"{self.n_nodes} nodes, {self.n_edges} edges; {', '.join(self.carries) or 'unlabelled'}>"
        )

    @cached_property
    def adjacencies(self):
        """List of :class:`GraphAdjacency`, one per graph (nodes ``0..n_g-1``)."""
        return list(self.batch)

    @cached_property
    def _edges_by_graph(self):
        """Upper-triangle entries (one per edge) in row-major order: rows, columns,
        positions in ``matrix.data``, and where each graph's edges start."""
        A = self.matrix
        all_rows = np.repeat(np.arange(A.shape[0], dtype=A.indices.dtype), np.diff(A.indptr))
        entries = np.flatnonzero(A.indices >= all_rows)
        rows, cols = all_rows[entries], A.indices[entries]
        bounds = np.searchsorted(rows, self.offsets)  # rows are sorted, each graph owns a range of them
        return rows, cols, entries, bounds

    def _networkx(self, g, rows, cols, entries, bounds):
        import networkx as nx

        start, stop = self.offsets[g], self.offsets[g + 1]
        G = nx.Graph(name=f"{self.name}[{g}]")
        G.add_nodes_from(range(stop - start))
        if self.node_labels is not None:
            for i, label in enumerate(self.node_labels[start:stop].tolist()):
                G.nodes[i]["label"] = label
        if self.node_attributes is not None:
            for i, row in enumerate(self.node_attributes[start:stop].tolist()):
                G.nodes[i]["attributes"] = tuple(row)
        e = slice(bounds[g], bounds[g + 1])
        ends = zip((rows[e] - start).tolist(), (cols[e] - start).tolist())
        if self.edge_labels is None and self.edge_attributes is None:
            G.add_edges_from(ends)
            return G
        data = [{} for _ in range(bounds[g + 1] - bounds[g])]
        if self.edge_labels is not None:
            for d, label in zip(data, self.edge_labels[entries[e]].tolist()):
                d["label"] = label
        if self.edge_attributes is not None:
            for d, row in zip(data, self.edge_attributes[entries[e]].tolist()):
                d["attributes"] = tuple(row)
        G.add_edges_from((u, v, d) for (u, v), d in zip(ends, data))
        return G

    @cached_property
    def graphs(self):
        """List of ``networkx.Graph``, one per graph, nodes ``0..n_g-1``.

        What the data set carries is stored as attributes: ``"label"`` on nodes and
        edges, ``"attributes"`` (a tuple of floats) on nodes and edges.
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


class DataNotFoundError(FileNotFoundError):
    """A data set that is neither in the data folder nor downloadable.

    ``str(err)`` tells Python callers to pass ``data_home=``; :meth:`message` words the
    same advice for another way of naming the data folder, such as the command line's
    ``--data-home``.

    Parameters
    ----------
    template : str
        The message, with :attr:`OPTION` where the data-folder option is named.
    """

    #: Placeholder for the name of the data-folder option in ``template``.
    OPTION = "{data_home}"

    def __init__(self, template):
        super().__init__(template.replace(self.OPTION, "data_home="))
        self.template = template

    def message(self, data_home_option="data_home="):
        """The message, naming the data folder option as ``data_home_option``."""
        return self.template.replace(self.OPTION, data_home_option)


def load_tu(name, *, data_home=None, download=True):
    """Load a TU Dortmund graph-classification data set.

    Parameters
    ----------
    name : str
        Data set name as in the TU collection, e.g. ``"MUTAG"``, ``"ENZYMES"``,
        ``"NCI1"``, ``"NCI109"``. When ``data_home`` has no folder of that name but
        exactly one whose name differs only in case (``"mutag"``), that one is read.
    data_home : str or path-like, optional
        Folder holding ``NAME/NAME_A.txt`` and the other files. Defaults to
        :func:`default_data_home`.
    download : bool, keyword-only
        If the files are missing, download ``NAME.zip`` from the TU collection into
        ``data_home`` once (with pooch) and extract it. The data set folder appears
        only once the whole archive has been extracted.

    Returns
    -------
    TUDataset
        With node labels, edge labels, node attributes and edge attributes when the
        data set has the files (``NAME_node_labels.txt``, ``NAME_edge_labels.txt``,
        ``NAME_node_attributes.txt``, ``NAME_edge_attributes.txt``); its ``repr``
        says which. Edges listed more than once in ``NAME_A.txt`` are one edge.

    Raises
    ------
    DataNotFoundError
        A :class:`FileNotFoundError`: the files are missing and ``download`` is false or
        the download failed (the message says where to put which files), or ``name`` is
        not a TU data set but close to one found in ``data_home`` (the message suggests
        it; nothing is downloaded).
    ValueError
        If a file is malformed (the message names the file and line), or the downloaded
        archive is damaged (the message names it: delete it and load again).

    Examples
    --------
    >>> import graphinvariants as gi
    >>> ds = gi.load_tu("MUTAG")  # from $GRAPHINVARIANTS_DATA or the cache
    >>> ds
    <TUDataset MUTAG: 188 graphs, 2 classes, 3371 nodes, 3721 edges; node labels, edge labels>
    >>> ds.y[:5], ds[0].number_of_nodes()
    (array([ 1, -1, -1,  1, -1]), 17)
    >>> gi.load_tu("mutag").name  # the local folder whose name differs only in case
    'MUTAG'
    """
    if not isinstance(name, str) or not name or "/" in name or "\\" in name or name.startswith("."):
        raise ValueError(f"not a data set name: {name!r}")
    if not isinstance(download, (bool, np.bool_)):  # "no" or "False" would count as true, and download
        raise TypeError(f"download must be True or False, got {download!r}")
    if data_home is not None and not isinstance(data_home, (str, os.PathLike)):
        raise TypeError(f"data_home must be a folder (str or path-like) or None, got {data_home!r}")
    home = Path(data_home).expanduser() if data_home is not None else default_data_home()
    if _missing_files(home / name, name):
        local = _local_data_sets(home)
        other_case = [other for other in local if other.casefold() == name.casefold()]
        if len(other_case) == 1:
            name = other_case[0]
        else:
            _fetch(name, home, local, download)
    return read_tu_folder(home / name, name)


def _fetch(name, home, local, download):
    """Download data set ``name`` into ``home``, or raise :class:`DataNotFoundError` saying why not.

    Not downloaded: a name that is no TU data set but close to a ``local`` one (a typo),
    any name when ``download`` is false, and a name whose folder exists but lacks files.
    """
    close = _close_names(name, local)
    if close and name not in _TU_NAMES:
        raise DataNotFoundError(
            f"TU data set {name!r} not found in {home}: did you mean {' or '.join(map(repr, close))}? "
            f"Data sets found there: {', '.join(local)}."
        )
    folder = home / name
    if not download or _holds_files(folder):
        raise DataNotFoundError(_missing_message(name, folder, _missing_files(folder, name)))
    _install_archive(_download(name, home), home, name)


def _missing_files(folder, name):
    """The required parts (``"A"``, ...) of data set ``name`` that ``folder`` lacks."""
    return [part for part in _REQUIRED if not (folder / f"{name}_{part}.txt").is_file()]


def _holds_files(folder):
    """Whether ``folder`` exists and is not empty (an install must not overwrite it)."""
    return folder.is_dir() and any(folder.iterdir())


def _local_data_sets(home):
    """Sorted names of the complete data set folders in ``home``."""
    try:
        folders = [f for f in home.iterdir() if f.is_dir() and not f.name.startswith(".")]
    except OSError:  # home missing or unreadable: no local data sets
        return []
    return sorted(f.name for f in folders if not _missing_files(f, f.name))


def _close_names(name, local):
    """Local data set names close to ``name``, ignoring case, closest first."""
    by_key = {}
    for other in local:
        by_key.setdefault(other.casefold(), []).append(other)
    close = difflib.get_close_matches(name.casefold(), list(by_key), n=3)
    return [other for key in close for other in by_key[key]]


def _data_home_advice(name):
    return f"pass {DataNotFoundError.OPTION} / set $GRAPHINVARIANTS_DATA to the folder that contains {name}/."


def _missing_message(name, folder, missing):
    files = ", ".join(f"{name}_{p}.txt" for p in missing)
    return (
        f"TU data set {name!r} not found: {files} missing in {folder}. Put the files of "
        f"{_TU_URL.format(name=name)} (unzipped) in that folder, or {_data_home_advice(name)}"
    )


def _failure_reason(err):
    """A few words on why a download failed: the HTTP status, the OS error, or the error type.

    The text of network errors is left out: it nests the whole chain of causes.
    """
    status = getattr(getattr(err, "response", None), "status_code", None)
    if status is not None:
        return f"HTTP {status}"
    return getattr(err, "strerror", None) or type(err).__name__


def _download(name, home):
    """Download ``NAME.zip`` into ``home`` (once: pooch keeps it) and return its path."""
    import pooch

    home.mkdir(parents=True, exist_ok=True)
    url = _TU_URL.format(name=name)
    try:
        return Path(pooch.retrieve(url, known_hash=None, fname=f"{name}.zip", path=home, progressbar=False))
    except Exception as err:  # network errors come in many types
        raise DataNotFoundError(
            f"could not download TU data set {name!r} from {url} ({_failure_reason(err)}): put its "
            f"unzipped files in {home / name}, or {_data_home_advice(name)}"
        ) from err


def _install_archive(archive, home, name):
    """Extract ``archive`` and move its ``NAME/`` folder to ``home / NAME`` in one step.

    The archive is extracted into a temporary folder inside ``home``, so that a damaged
    or incomplete archive leaves nothing behind, and the renamed folder appears whole.
    """
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", suffix=".partial", dir=home))
    try:
        safe_extract(archive, staging)
        extracted = staging / name
        missing = _missing_files(extracted, name)
        if missing:
            files = ", ".join(f"{name}/{name}_{part}.txt" for part in missing)
            raise ValueError(f"{archive} does not hold {files}: delete it, or put the unzipped files in {home / name}")
        target = home / name
        if target.is_dir():  # empty (_fetch checked); os.replace does not replace folders everywhere
            target.rmdir()
        os.replace(extracted, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def safe_extract(archive, target):
    """Extract a zip file into ``target``, refusing members that would land outside it.

    Raises
    ------
    ValueError
        If a member would land outside ``target``, or the archive is damaged or truncated
        (the message names the archive and says to delete it). Members extracted before a
        damaged one stay in ``target``.
    """
    target = Path(target).resolve()
    try:
        with zipfile.ZipFile(archive) as zf:
            for member in zf.namelist():
                dest = (target / member).resolve()
                if target != dest and target not in dest.parents:
                    raise ValueError(f"{archive}: member {member!r} would be extracted outside {target}")
            zf.extractall(target)
    except (zipfile.BadZipFile, zlib.error, EOFError) as err:
        raise ValueError(f"{archive} is damaged or truncated ({err}): delete it and download it again") from None


#: One field of a TU file: an ASCII integer, maybe signed, maybe padded with spaces or
#: tabs (``int()`` would also accept ``1_0`` and non-ASCII digits).
_INTEGER = re.compile(r"[ \t]*[+-]?[0-9]+[ \t]*")
_INT64 = np.iinfo(np.int64)


def _row_pattern(n_columns):
    return re.compile(",".join([_INTEGER.pattern] * n_columns))


def _row_error(line, n_columns):
    """What is wrong with ``line``, a row that does not match :func:`_row_pattern`."""
    if not line.strip():
        return "blank line (blank lines are allowed only at the end of the file)"
    fields = line.split(",")
    if len(fields) != n_columns:
        return f"expected {n_columns} comma-separated integer(s), got {line!r}"
    for field in fields:
        if not field.strip():
            return f"empty field in {line!r}"
        if not _INTEGER.fullmatch(field):
            return f"not an integer: {field.strip()!r}"
    raise AssertionError(f"{line!r} is a valid row")


def _out_of_range_row(lines):
    """Index and field of the first integer outside int64 in ``lines``."""
    for i, line in enumerate(lines):
        for field in line.split(","):
            if not _INT64.min <= int(field) <= _INT64.max:
                return i, field.strip()
    raise AssertionError("no integer is out of range")


def _read_lines(path):
    """Lines of a UTF-8 text file without its trailing blank lines; errors name the line."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise ValueError(f"{path}, line {line}: not UTF-8 text (byte {data[err.start]:#04x})") from None
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _read_int_columns(path, n_columns):
    """Parse a comma-separated integer file; errors name the file and line."""
    lines = _read_lines(path)
    row = _row_pattern(n_columns).fullmatch
    if not all(map(row, lines)):
        i = next(i for i, line in enumerate(lines) if not row(line))
        raise ValueError(f"{path}, line {i + 1}: {_row_error(lines[i], n_columns)}")
    text = " ".join(lines).replace(",", " ")
    # only digits, signs and blanks are left: numpy's C parser reads them, 3x faster than
    # Python's int(); it clamps numbers beyond 64 bits to the ends of the range, so a
    # value there is read again by int(), which refuses what does not fit
    values = np.fromstring(text, dtype=np.int64, sep=" ")
    try:
        if values.size and (values.max() == _INT64.max or values.min() == _INT64.min):
            values = np.array(text.split(), dtype=np.int64)
    except OverflowError:
        i, field = _out_of_range_row(lines)
        raise ValueError(f"{path}, line {i + 1}: integer out of range (64 bits): {field!r}") from None
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
    node_attributes = None
    node_attributes_path = folder / f"{name}_node_attributes.txt"
    if node_attributes_path.is_file():
        node_attributes = _read_real_rows(node_attributes_path)
        if len(node_attributes) != n_nodes:
            raise ValueError(f"{node_attributes_path}: {len(node_attributes)} lines, but {indicator_path} has {n_nodes}")

    per_edge = {}  # one value per line of A.txt, aligned with the stored entries
    for part, read in (("edge_labels", lambda path: _read_int_columns(path, 1)[:, 0]),
                       ("edge_attributes", _read_real_rows)):
        path = folder / f"{name}_{part}.txt"
        if not path.is_file():
            continue
        values = read(path)
        if len(values) != len(edges):
            raise ValueError(f"{path}: {len(values)} lines, but {edges_path} has {len(edges)}")
        aligned, conflict = entry_values(n_nodes, edges[:, 0], edges[:, 1], values, directed=False, weighted=False)
        if conflict is not None:
            a, b = sorted(conflict)
            raise ValueError(
                f"{path}, lines {a + 1} and {b + 1}: edge {tuple((edges[a] + 1).tolist())} is listed twice in "
                f"{edges_path.name} with different values ({_show(values[a])} and {_show(values[b])})"
            )
        per_edge[part] = aligned

    offsets = np.concatenate(([0], np.cumsum(np.bincount(indicator - 1, minlength=n_graphs))))
    batch = GraphBatch(matrix, offsets, weighted=False, node_labels=node_labels,
                       edge_labels=per_edge.get("edge_labels"), node_attributes=node_attributes)
    return TUDataset(name, batch, y, path=folder, edge_attributes=per_edge.get("edge_attributes"))


def _show(value):
    """A label or an attribute row as it reads in the file."""
    return ", ".join(f"{v:g}" for v in np.atleast_1d(value).tolist())


#: One field of an attributes file: a decimal real number, maybe padded.
_REAL = re.compile(r"[ \t]*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t]*")


def _read_real_rows(path):
    """Parse a file of comma-separated real numbers, the same count on every line, into
    a float64 array of one row per line; errors name the file and line."""
    lines = _read_lines(path)
    if not lines:
        raise ValueError(f"{path}: the file is empty")
    n_columns = lines[0].count(",") + 1
    row = re.compile(",".join([_REAL.pattern] * n_columns)).fullmatch
    if not all(map(row, lines)):
        i = next(i for i, line in enumerate(lines) if not row(line))
        fields = lines[i].split(",")
        if not lines[i].strip():
            problem = "blank line (blank lines are allowed only at the end of the file)"
        elif len(fields) != n_columns:
            problem = f"expected {n_columns} comma-separated numbers (as on line 1), got {len(fields)}"
        else:
            bad = next(f.strip() for f in fields if not _REAL.fullmatch(f))
            problem = f"not a number: {bad!r}"
        raise ValueError(f"{path}, line {i + 1}: {problem}")
    values = np.array(" ".join(lines).replace(",", " ").split(), dtype=np.float64).reshape(len(lines), n_columns)
    if not np.isfinite(values).all():  # only overflow (1e999) gets here: the pattern has no nan or inf
        i = int(np.flatnonzero(~np.isfinite(values).all(axis=1))[0])
        raise ValueError(f"{path}, line {i + 1}: number out of range for float64")
    return values
