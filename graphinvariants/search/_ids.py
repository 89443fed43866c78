"""Identifiers of the graphs searched (``NearestGraphs.fit(..., ids=...)``): one per
graph, unique, each of the type it was given."""

import numpy as np

__all__ = ["check_ids", "check_unique", "join_ids"]


def check_ids(ids, n):
    """``ids`` as a 1-D array, one per graph (``n``; None: not known yet), unique, each
    identifier of the type it was given: a numpy array keeps its dtype, anything else
    becomes an object array of the very objects given (numpy would make ``[1, 2, 3]``
    floats next to an empty list, and strings next to a string).

    Examples
    --------
    >>> from graphinvariants.search._ids import check_ids
    >>> check_ids(["a", 2, (3,)], 3).tolist()
    ['a', 2, (3,)]
    """
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__") or isinstance(ids, (set, frozenset, dict)):
        raise TypeError(f"ids must be a sequence of identifiers, one per graph, got {ids!r}")
    if isinstance(ids, np.ndarray) and ids.dtype != object:
        if ids.ndim != 1:
            raise ValueError(f"ids must have one identifier per graph, a 1-D sequence, got shape {ids.shape}")
        out = ids
    else:
        items = list(ids)
        out = np.empty(len(items), dtype=object)
        for i, item in enumerate(items):
            out[i] = item
    if n is not None and len(out) != n:
        raise ValueError(f"ids must have one identifier per graph, {n} of them, got {len(out)}")
    check_unique(out.tolist() if out.dtype != object else list(out))
    return out


def check_unique(items):
    """Refuse an identifier given twice, or one that cannot be hashed."""
    seen = {}
    for position, item in enumerate(items):
        try:
            first = seen.setdefault(item, position)
        except TypeError:
            raise TypeError(f"ids must be hashable (an id names one graph), got {item!r} at position {position}") from None
        if first != position:
            raise ValueError(f"ids must be unique: {item!r} is at positions {first} and {position}")


def join_ids(old, new):
    """``old`` then ``new`` (both from :func:`check_ids`), still unique, each id of its type.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.search._ids import join_ids
    >>> join_ids(np.array([1, 2]), np.array([3])).tolist()
    [1, 2, 3]
    """
    if len(new) == 0:
        return old
    if old.dtype == new.dtype and old.dtype != object:
        joined = np.concatenate([old, new])
    else:
        joined = np.empty(len(old) + len(new), dtype=object)
        for i, item in enumerate(list(old) + list(new)):
            joined[i] = item
    check_unique(joined.tolist() if joined.dtype != object else list(joined))
    return joined
