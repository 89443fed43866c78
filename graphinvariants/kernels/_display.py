"""The picture of a kernel matrix: :class:`KernelMatrixDisplay`."""

import numpy as np
from scipy.sparse import issparse

from .._utils.plotting import new_axes
from .power import power_kernel_matrix

__all__ = ["KernelMatrixDisplay", "plot_kernel_matrix"]


class KernelMatrixDisplay:
    """Heatmap of a kernel matrix with rows and columns grouped by class label.

    Parameters
    ----------
    K : array_like of shape (n, n)
    y : array_like of shape (n,), optional
        Class labels; rows are sorted by label (stable) and class boundaries drawn.

    Examples
    --------
    >>> import numpy as np
    >>> import graphinvariants as gi
    >>> K = np.array([[1.0, 0.1, 0.8], [0.1, 1.0, 0.2], [0.8, 0.2, 1.0]])
    >>> display = gi.KernelMatrixDisplay(K, y=[1, 0, 1]).plot()
    >>> display.order.tolist()
    [1, 0, 2]
    """

    def __init__(self, K, y=None):
        K = np.asarray(K.toarray() if issparse(K) else K, dtype=float)
        if K.ndim != 2 or K.shape[0] != K.shape[1]:
            raise ValueError(f"K must be a square matrix, got shape {K.shape}")
        if K.size == 0:
            raise ValueError("nothing to plot: K is an empty (0 x 0) matrix")
        if not np.all(np.isfinite(K)):
            raise ValueError("K contains NaN or infinite values")
        if y is not None and np.shape(y) != (len(K),):
            raise ValueError(f"y must have shape ({len(K)},), got {np.shape(y)}")
        self.order = np.arange(len(K)) if y is None else np.argsort(np.asarray(y), kind="stable")
        self.K = K[np.ix_(self.order, self.order)]
        self.labels = None if y is None else np.asarray(y)[self.order]

    @classmethod
    def from_graphs(cls, graphs, y=None, *, k=5, n_jobs=None):
        """Compute the power-kernel matrix of ``graphs`` and build the display."""
        K = power_kernel_matrix(graphs, k=k, n_jobs=n_jobs)
        if K.size == 0:
            raise ValueError("nothing to plot: the collection of graphs is empty")
        return cls(K, y)

    def plot(self, ax=None, *, cmap="viridis", colorbar=True, **kwargs):
        """Draw the heatmap.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; a new figure if None.
        cmap : str, keyword-only
            Colour map (values run from 0 to 1).
        colorbar : bool, keyword-only
            Draw a colour bar.
        **kwargs
            Passed to ``ax.imshow``.

        Returns
        -------
        self
        """
        ax = new_axes(ax)
        self.image_ = ax.imshow(self.K, cmap=cmap, vmin=0, vmax=1, interpolation="nearest", **kwargs)
        if self.labels is not None:
            classes, starts = np.unique(self.labels, return_index=True)
            for s in starts[1:]:
                ax.axhline(s - 0.5, color="white", linewidth=1)
                ax.axvline(s - 0.5, color="white", linewidth=1)
            ends = np.append(starts[1:], len(self.labels))
            centres = (starts + ends - 1) / 2
            ax.set_xticks(centres, [str(c) for c in classes])
            ax.set_yticks(centres, [str(c) for c in classes])
            ax.set_xlabel("class")
            ax.set_ylabel("class")
        if colorbar:
            ax.figure.colorbar(self.image_, ax=ax, label="kernel value")
        self.ax_, self.figure_ = ax, ax.figure
        return self


def plot_kernel_matrix(K, y=None, *, ax=None, cmap="viridis"):
    """Heatmap of a kernel matrix, rows grouped by class label.

    Parameters
    ----------
    K : array_like of shape (n, n)
        Kernel matrix, values in [0, 1].
    y : array_like of shape (n,), optional
        Class labels; rows and columns are grouped by them.
    ax : matplotlib.axes.Axes, optional, keyword-only
        Where to draw; a new figure if None.
    cmap : str, keyword-only
        Colour map.

    Returns
    -------
    KernelMatrixDisplay

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(5)]
    >>> graphs += [nx.barabasi_albert_graph(30, 2, seed=i) for i in range(5)]
    >>> display = gi.plot_kernel_matrix(gi.power_kernel_matrix(graphs), [1] * 5 + [0] * 5)
    >>> display.K.shape
    (10, 10)
    """
    return KernelMatrixDisplay(K, y).plot(ax=ax, cmap=cmap)
