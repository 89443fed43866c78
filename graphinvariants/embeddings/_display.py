"""The picture of one graph's power invariants: :class:`InvariantsDisplay`."""

import numpy as np

from .._utils.plotting import new_axes
from .gaussian import PowerInvariants, power_invariants

__all__ = ["InvariantsDisplay", "plot_invariants"]


class InvariantsDisplay:
    """One graph's invariants: the mean walk profile and the covariance heatmap.

    Parameters
    ----------
    invariants : PowerInvariants

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> display = gi.InvariantsDisplay.from_graph(nx.karate_club_graph()).plot()
    >>> display.ax_[1].get_title()
    'covariance of (x_1 .. x_k)'
    """

    def __init__(self, invariants):
        if not isinstance(invariants, PowerInvariants):
            raise TypeError(f"expected PowerInvariants, got {type(invariants).__name__}; use from_graph for a graph")
        self.invariants = invariants

    @classmethod
    def from_graph(cls, G, *, k=5, weight=None):
        """Compute a graph's invariants and build the display."""
        return cls(power_invariants(G, k=k, weight=weight))

    @property
    def axes_(self):
        """The two Axes (same as ``ax_``)."""
        return self.ax_

    def plot(self, ax=None, *, cmap="magma", **kwargs):
        """Draw the mean profile and the covariance.

        Parameters
        ----------
        ax : pair of matplotlib.axes.Axes, optional
            Where to draw the mean and the covariance; a new 1 x 2 figure if None.
        cmap : str, keyword-only
            Colour map of the covariance.
        **kwargs
            Passed to ``errorbar`` for the mean profile.

        Returns
        -------
        self
        """
        ax_mean, ax_cov = new_axes(ax, ncols=2, figsize=(9, 3.6))
        inv = self.invariants
        t = np.arange(1, inv.k + 1)
        sd = np.sqrt(np.clip(np.diag(inv.covariance), 0, None))
        ax_mean.errorbar(t, inv.mean, yerr=sd, marker="o", capsize=3, **kwargs)
        ax_mean.set_xlabel("power iteration t")
        ax_mean.set_ylabel("mean of x_t (bars: one s.d.)")
        ax_mean.set_xticks(t)
        ax_mean.set_title(f"mean profile ({inv.n_nodes} nodes)")
        image = ax_cov.imshow(inv.covariance, cmap=cmap, interpolation="nearest")
        ax_cov.set_xticks(t - 1, [str(v) for v in t])
        ax_cov.set_yticks(t - 1, [str(v) for v in t])
        ax_cov.set_xlabel("t")
        ax_cov.set_title("covariance of (x_1 .. x_k)")
        ax_cov.figure.colorbar(image, ax=ax_cov)
        self.ax_, self.figure_ = (ax_mean, ax_cov), ax_mean.figure
        return self


def plot_invariants(G, *, k=5, ax=None):
    """Plot a graph's (or a PowerInvariants') mean profile and covariance.

    Parameters
    ----------
    G : graph or PowerInvariants
        Anything :func:`as_adjacency` accepts, or precomputed invariants.
    k : int, keyword-only
        Power iterations when ``G`` is a graph.
    ax : pair of matplotlib.axes.Axes, optional, keyword-only
        Where to draw; a new 1 x 2 figure if None.

    Returns
    -------
    InvariantsDisplay

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> display = gi.plot_invariants(nx.karate_club_graph())
    >>> len(display.ax_)
    2
    """
    display = InvariantsDisplay(G) if isinstance(G, PowerInvariants) else InvariantsDisplay.from_graph(G, k=k)
    return display.plot(ax=ax)
