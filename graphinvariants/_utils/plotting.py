"""Drawing helpers shared by the Display objects (matplotlib is imported lazily).

Every Display lives with its topic (scikit-learn keeps ``RocCurveDisplay`` in
``metrics/_plot/`` and its helpers in ``utils/_plotting.py``):
:class:`~graphinvariants.InvariantsDisplay` in ``embeddings/_display.py``,
:class:`~graphinvariants.KernelMatrixDisplay` in ``kernels/_display.py``,
:class:`~graphinvariants.KernelDecayDisplay` in ``perturbation/_display.py``, and
:class:`~graphinvariants.NodeValuesDisplay` and
:class:`~graphinvariants.PairValuesDisplay` in ``explanations/_display.py``. Each
computes what it shows once, in ``__init__`` or a ``from_*`` constructor;
``plot(ax=None, **kwargs)`` draws it (on a new figure with a layout engine when ``ax``
is None, from :func:`new_axes`) and keeps ``ax_`` and ``figure_``.

This module is the bottom layer of the pictures: it imports no other layer of the
package.
"""

import numpy as np

from .validation import describe

__all__ = ["new_axes", "text_colours"]


def new_axes(ax, ncols=1, figsize=None):
    """``ax`` checked (one Axes, or ``ncols`` of them), or new ones on a new figure.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, sequence of them, or None
        Where a Display draws; a new 1 x ``ncols`` figure with the constrained layout
        when None.
    ncols : int
        How many Axes the Display draws on.
    figsize : (float, float), optional
        Size of a new figure.

    Returns
    -------
    matplotlib.axes.Axes or list of matplotlib.axes.Axes
        One Axes when ``ncols`` is 1, else a list (or matplotlib's array) of ``ncols``.

    Raises
    ------
    TypeError
        If ``ax`` is not one Axes (``ncols`` 1) or ``ncols`` of them.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from graphinvariants._utils.plotting import new_axes
    >>> fig, axes = plt.subplots(1, 2)
    >>> new_axes(axes, ncols=2) == list(axes)
    True
    >>> new_axes(axes)
    Traceback (most recent call last):
    ...
    TypeError: ax must be one matplotlib Axes, got numpy.ndarray of shape (2,)
    >>> plt.close(fig)
    """
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    if ax is None:
        _, ax = plt.subplots(1, ncols, figsize=figsize, layout="constrained")
        return ax
    if ncols == 1:
        if not isinstance(ax, Axes):
            raise TypeError(f"ax must be one matplotlib Axes, got {describe(ax)}{_shape_of(ax)}")
        return ax
    axes = list(np.ravel(ax)) if isinstance(ax, (list, tuple, np.ndarray)) else [ax]
    if len(axes) != ncols or not all(isinstance(a, Axes) for a in axes):
        raise TypeError(f"ax must be {ncols} matplotlib Axes (as from plt.subplots(1, {ncols})), "
                        f"got {describe(ax)}{_shape_of(ax)}")
    return axes


def _shape_of(ax):
    return f" of shape {np.shape(ax)}" if isinstance(ax, np.ndarray) else ""


def text_colours(facecolours):
    """Black or white for text drawn on each of ``facecolours``: whichever contrasts more.

    The contrast is WCAG 2's ratio of relative luminances, ``(L1 + 0.05) / (L2 + 0.05)``
    with ``L`` from the sRGB channels linearised; black wins on a fill whose luminance
    is above about 0.18 (a mid grey), white below. A transparent fill is read as
    blended onto a white page.

    Parameters
    ----------
    facecolours : array_like of shape (n, 3) or (n, 4)
        RGB or RGBA colours in [0, 1] (as ``PathCollection.get_facecolors()`` gives).

    Returns
    -------
    list of str
        ``"black"`` or ``"white"``, one per colour.

    Examples
    --------
    >>> from graphinvariants._utils.plotting import text_colours
    >>> text_colours([(0.0, 0.0, 0.5, 1.0), (1.0, 1.0, 0.8, 1.0), (0.4, 0.4, 0.4, 1.0), (0.0, 0.0, 0.0, 0.1)])
    ['white', 'black', 'white', 'black']
    >>> text_colours([(0.7, 0.7, 0.7)])
    ['black']
    """
    rgba = np.atleast_2d(np.asarray(facecolours, dtype=float))
    rgb = rgba[:, :3]
    if rgba.shape[1] == 4:  # blended onto white paper
        rgb = rgb * rgba[:, 3:4] + (1.0 - rgba[:, 3:4])
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    luminance = linear @ np.array([0.2126, 0.7152, 0.0722])
    black = (luminance + 0.05) / 0.05  # contrast of black text on the fill
    white = 1.05 / (luminance + 0.05)  # of white text
    return ["black" if b >= w else "white" for b, w in zip(black, white)]
