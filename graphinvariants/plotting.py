"""Plots as scikit-learn-style Display objects (matplotlib is imported lazily).

Each Display computes what it shows once; ``plot(ax=None, **kwargs)`` draws it and keeps
``ax_`` and ``figure_``.
"""

import numpy as np

__all__ = ["InvariantsDisplay", "KernelDecayDisplay", "KernelMatrixDisplay", "plot_invariants", "plot_kernel_matrix"]


def _axes(ax):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots()
    return ax


class KernelDecayDisplay:
    """Kernel-decay curves: mean kernel with the original graph against the number of
    perturbations, with a standard-error band, one line per collection.

    Parameters
    ----------
    curves : dict
        ``name -> (steps, mean, stderr)`` arrays.
    xlabel : str
        Label of the x axis.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(20)]
    >>> study = gi.perturbation_study(graphs, n_graphs=10, n_flips=5, seed=0, name="G(30, 0.1)")
    >>> display = gi.KernelDecayDisplay.from_studies({"G(30, 0.1)": study}).plot()
    >>> display.ax_.get_xlabel()
    'number of edge flips'
    """

    def __init__(self, curves, *, xlabel="number of edge flips"):
        self.curves = {name: tuple(np.asarray(a, dtype=float) for a in c) for name, c in curves.items()}
        self.xlabel = xlabel

    @classmethod
    def from_studies(cls, studies):
        """Build from ``{name: PerturbationStudy}``."""
        kinds = {s.params.get("kind", "flip") for s in studies.values()}
        xlabel = "number of edge flips" if kinds == {"flip"} else "number of perturbations"
        return cls({name: (s.steps, s.mean, s.stderr) for name, s in studies.items()}, xlabel=xlabel)

    def plot(self, ax=None, **kwargs):
        """Draw the curves on ``ax`` (a new figure if None); ``kwargs`` go to ``ax.plot``."""
        ax = _axes(ax)
        self.lines_ = {}
        for name, (steps, mean, stderr) in self.curves.items():
            (line,) = ax.plot(steps, mean, marker="o", markersize=3, label=name, **kwargs)
            ax.fill_between(steps, mean - stderr, mean + stderr, color=line.get_color(), alpha=0.25, linewidth=0)
            self.lines_[name] = line
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel("power kernel with the original graph")
        ax.set_ylim(0, 1.02)
        ax.grid(True, alpha=0.3)
        ax.legend()
        self.ax_, self.figure_ = ax, ax.figure
        return self


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
        K = np.asarray(K, dtype=float)
        if K.ndim != 2 or K.shape[0] != K.shape[1]:
            raise ValueError(f"K must be a square matrix, got shape {K.shape}")
        self.order = np.arange(len(K)) if y is None else np.argsort(np.asarray(y), kind="stable")
        self.K = K[np.ix_(self.order, self.order)]
        self.labels = None if y is None else np.asarray(y)[self.order]

    def plot(self, ax=None, *, cmap="viridis", colorbar=True):
        ax = _axes(ax)
        self.image_ = ax.imshow(self.K, cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
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
            ax.figure.colorbar(self.image_, ax=ax, label="power kernel")
        self.ax_, self.figure_ = ax, ax.figure
        return self


def plot_kernel_matrix(K, y=None, *, ax=None, cmap="viridis"):
    """Heatmap of a kernel matrix, rows grouped by class label.

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


class InvariantsDisplay:
    """One graph's invariants: the mean walk profile and the covariance heatmap.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> display = gi.InvariantsDisplay(gi.power_invariants(nx.karate_club_graph())).plot()
    >>> display.axes_[1].get_title()
    'covariance of (x_1 .. x_k)'
    """

    def __init__(self, invariants):
        self.invariants = invariants

    def plot(self, axes=None, *, cmap="magma"):
        """Draw on two Axes (a new 1 x 2 figure if None)."""
        import matplotlib.pyplot as plt

        if axes is None:
            _, axes = plt.subplots(1, 2, figsize=(9, 3.6))
        ax_mean, ax_cov = axes
        inv = self.invariants
        t = np.arange(1, inv.k + 1)
        sd = np.sqrt(np.clip(np.diag(inv.covariance), 0, None))
        ax_mean.errorbar(t, inv.mean, yerr=sd, marker="o", capsize=3)
        ax_mean.set_xlabel("power iteration t")
        ax_mean.set_ylabel("mean of x_t (error bar: one s.d.)")
        ax_mean.set_xticks(t)
        ax_mean.set_title(f"mean profile ({inv.n_nodes} nodes)")
        image = ax_cov.imshow(inv.covariance, cmap=cmap, interpolation="nearest")
        ax_cov.set_xticks(t - 1, [str(v) for v in t])
        ax_cov.set_yticks(t - 1, [str(v) for v in t])
        ax_cov.set_title("covariance of (x_1 .. x_k)")
        ax_cov.figure.colorbar(image, ax=ax_cov)
        self.axes_, self.figure_ = axes, ax_mean.figure
        return self


def plot_invariants(G, *, k=5, axes=None):
    """Plot a graph's (or a PowerInvariants') mean profile and covariance.

    Returns
    -------
    InvariantsDisplay

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> display = gi.plot_invariants(nx.karate_club_graph())
    >>> len(display.axes_)
    2
    """
    from .invariants import PowerInvariants, power_invariants

    inv = G if isinstance(G, PowerInvariants) else power_invariants(G, k=k)
    return InvariantsDisplay(inv).plot(axes=axes)
