"""Invariants on disk: many :class:`~graphinvariants.PowerInvariants` (of one k) in one
NumPy ``.npz`` file, without pickle (:func:`save_invariants`, :func:`load_invariants`)."""

import json
import os
import secrets
import zipfile
from pathlib import Path

import numpy as np

from .._utils.validation import describe
from .gaussian import GaussianBatch, GaussianEmbedding, PowerInvariants

__all__ = ["load_invariants", "save_invariants"]

#: The file format's name and version, written into every file and checked on reading.
_NPZ_FORMAT = "graphinvariants.PowerInvariants/1"


def save_invariants(path, invariants):
    """Save many invariants (of one k) to one NumPy npz file, without pickle.

    Parameters
    ----------
    path : str or path-like
        Where to write; ``.npz`` is appended when missing, as :func:`numpy.savez` does
        (and :func:`load_invariants` finds the file under either name).
    invariants : GaussianBatch or sequence of PowerInvariants

    Raises
    ------
    FileNotFoundError
        If the folder of ``path`` does not exist.
    OSError
        If the file cannot be written (no permission, a full disk); the file is
        written under a temporary name and renamed when complete, so a failed save
        leaves no partial file and an earlier file of that name as it was.

    Examples
    --------
    >>> import os, tempfile
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> invs = gi.batch_power_invariants([nx.path_graph(4), nx.cycle_graph(6)])
    >>> path = os.path.join(tempfile.mkdtemp(), "invariants.npz")
    >>> gi.save_invariants(path, invs)
    >>> [inv.n_nodes for inv in gi.load_invariants(path)]
    [4, 6]
    """
    if isinstance(invariants, PowerInvariants):
        raise TypeError("save_invariants takes a GaussianBatch or a sequence of PowerInvariants, got a single "
                        "PowerInvariants; wrap it in a list")
    target = Path(path)
    if target.is_dir() or str(path).endswith(("/", os.sep)):
        raise ValueError(f"{path} is a folder; give a file name, such as {target / 'invariants.npz'}")
    if not isinstance(invariants, GaussianBatch):
        invariants = list(invariants)
        if not invariants:
            raise ValueError("nothing to save: the list of invariants is empty")
        if not all(isinstance(inv, PowerInvariants) for inv in invariants):
            raise TypeError("save_invariants takes a GaussianBatch or a sequence of PowerInvariants")
        ks = {inv.k for inv in invariants}
        if len(ks) != 1:
            raise ValueError(f"all invariants must have the same k, got {sorted(ks)}")
        invariants = GaussianEmbedding(ks.pop()).as_embeddings(invariants)
    if not len(invariants):
        raise ValueError("nothing to save: the batch of invariants is empty")
    # numpy.savez's naming (".npz" appended when missing), written to a temporary file in
    # the same folder and renamed over the target once complete: a failed write (full
    # disk, no permission, an interruption) leaves neither a partial file nor a damaged
    # earlier one
    target = Path(os.fspath(path))
    if target.suffix != ".npz":
        target = target.with_name(target.name + ".npz")
    folder = target.parent
    if not folder.is_dir():
        raise FileNotFoundError(f"cannot save to {target}: the folder {folder} does not exist")
    # O_EXCL on a fresh name, mode 0o666 through the umask: the permissions np.savez's
    # open() would give
    temporary = folder / f".{target.name}.{os.getpid()}.{secrets.token_hex(6)}.part"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(descriptor, "wb") as file:
            np.savez(
                file,
                format=np.array(_NPZ_FORMAT),
                mean=invariants.means,
                covariance=invariants.covariances,
                n_nodes=invariants.n_nodes,
                params=np.array(json.dumps(invariants.params)),  # what made them, checked when they are used
            )
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def load_invariants(path):
    """Load invariants saved by :func:`save_invariants`.

    Parameters
    ----------
    path : str or path-like
        The file; ``path + ".npz"`` is tried when ``path`` does not exist.

    Returns
    -------
    GaussianBatch

    Raises
    ------
    FileNotFoundError
        If neither ``path`` nor ``path + ".npz"`` exists.
    ValueError
        If the file is damaged, truncated, not a graphinvariants invariants file or
        inconsistent; the message names the file.

    Examples
    --------
    >>> import os, tempfile
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> path = os.path.join(tempfile.mkdtemp(), "star.npz")
    >>> gi.save_invariants(path, [gi.power_invariants(nx.star_graph(4))])
    >>> gi.load_invariants(path)[0].n_nodes
    5
    """
    path = Path(path)
    if not path.exists() and path.with_name(path.name + ".npz").exists():
        path = path.with_name(path.name + ".npz")
    if not path.is_file():
        raise FileNotFoundError(f"no invariants file at {path}")
    try:
        data = np.load(path, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):  # a .npy file: one bare array
            raise ValueError(f"one {data.dtype} array of shape {data.shape}, not an .npz archive")
        with data:
            fmt = str(data["format"])
            mean, cov, n_nodes = data["mean"], data["covariance"], data["n_nodes"]
            params = _stored_params(data, mean.shape[1] if mean.ndim == 2 else None)
    except (KeyError, ValueError, OSError, EOFError, zipfile.BadZipFile) as err:
        raise ValueError(f"{path} is not a graphinvariants invariants file, or it is damaged or truncated "
                         f"({describe(err)}: {err})") from None
    if fmt != _NPZ_FORMAT:
        raise ValueError(f"{path}: unknown format {fmt!r}, expected {_NPZ_FORMAT!r}")
    if mean.ndim != 2 or cov.shape != mean.shape + mean.shape[1:] or n_nodes.shape != mean.shape[:1]:
        raise ValueError(f"{path}: arrays have inconsistent shapes")
    if not np.issubdtype(n_nodes.dtype, np.integer):
        raise ValueError(f"{path}: n_nodes must be integers, got dtype {n_nodes.dtype}")
    try:
        batch = GaussianBatch(mean, cov, n_nodes)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{path}: {err}") from None
    if params is not None:
        batch.params = params
    return batch


def _stored_params(data, k):
    """The record of parameters of a saved batch (None in files written before it was
    kept: only k is then known); ValueError if it is not a record of this batch."""
    if "params" not in data:
        return None
    params = json.loads(str(data["params"]))
    if not isinstance(params, dict) or params.get("k", k) != k:
        raise ValueError(f"its record of parameters {params!r} does not fit invariants with k={k}")
    return {key: tuple(value) if isinstance(value, list) else value for key, value in params.items()}
