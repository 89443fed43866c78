"""The one loader of optional code: the extras' dependencies and the compiled loops.

* :func:`import_extra` imports an optional dependency at the point of use, or raises
  :class:`MissingExtraError` naming the extra that brings it.
* :func:`compiled` returns a compiled module (a ``*_numba.py`` file), or None when numba
  cannot be imported: the caller's numpy path then does the work, with the same results.

Nothing else in the package imports numba (the ``*_numba.py`` files aside). Compiled code
is switched off the way Python switches off any import: ``sys.modules["numba"] = None``
(the tests do this with ``monkeypatch.setitem``) makes every :func:`compiled` None, even
after compiled modules were loaded.

Examples
--------
>>> from graphinvariants._utils.optional import compiled, import_extra
>>> import_extra("pandas").__name__
'pandas'
>>> module = compiled("graphinvariants.walks._large_numba")  # None without numba
>>> module is None or module.BLOCK == 4096
True
"""

import functools
import importlib
import importlib.util
import sys

__all__ = ["EXTRAS", "MissingExtraError", "compiled", "compiled_available", "import_extra"]

#: The extra of ``pyproject.toml`` that brings each optional top-level package.
EXTRAS = {
    "dask": "dask",
    "distributed": "dask",
    "zarr": "dask",
    "faiss": "search",
    "grakel": "baselines",
    "numba": "fast",
    "pandas": "io",
    "pyarrow": "io",
    "rdkit": "chem",
}


class MissingExtraError(ImportError):
    """An optional dependency is not installed; the message names the extra that
    brings it (the command line prints it as a usage error, without a traceback)."""


def import_extra(name, *, needs=None):
    """Import the optional module ``name`` (e.g. ``"rdkit.Chem"``) at the point of use.

    Parameters
    ----------
    name : str
        A module of one of the packages in :data:`EXTRAS`.
    needs : str, keyword-only
        What needs it, for the message (default: ``"<package> is needed"``).

    Returns
    -------
    module

    Raises
    ------
    MissingExtraError
        (an ImportError) If the module cannot be imported; the message says how to
        install the extra that brings it.
    """
    package = name.partition(".")[0]
    if package not in EXTRAS:
        raise ValueError(f"{package!r} is not the dependency of an extra; known: {sorted(EXTRAS)}")
    try:
        return importlib.import_module(name)
    except ImportError as err:
        needs = needs or f"{package} is needed"
        raise MissingExtraError(
            f'{needs} ({err}); install it with: pip install "graphinvariants[{EXTRAS[package]}]"'
        ) from None


def compiled_available():
    """Whether numba is installed and not switched off, found without importing it."""
    if "numba" in sys.modules:
        return sys.modules["numba"] is not None
    return _numba_installed()


@functools.lru_cache(maxsize=None)
def _numba_installed():
    return importlib.util.find_spec("numba") is not None


@functools.lru_cache(maxsize=None)
def _numba_imports():
    """Whether ``import numba`` succeeds (once: a numba that refuses this numpy fails
    each time, slowly)."""
    try:
        importlib.import_module("numba")
    except ImportError:
        return False
    return True


def compiled(name):
    """The compiled module ``name`` (``"graphinvariants.<package>.<x>_numba"``), imported
    on first use, or None when numba is missing, cannot be imported, or is switched off
    (``sys.modules["numba"] = None``, or ``None`` for the module itself)."""
    if not name.endswith("_numba"):
        raise ValueError(f"compiled modules are the *_numba.py files, not {name!r}")
    if not compiled_available() or not _numba_imports():
        return None
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name == name and sys.modules.get(name, False) is None:
            return None  # switched off on its own
        raise
