"""The picture of perturbation studies: :class:`KernelDecayDisplay`."""

import textwrap
from collections.abc import Mapping

import numpy as np

from .._utils.plotting import new_axes

__all__ = ["KernelDecayDisplay"]


#: What KernelDecayDisplay.from_studies reads of a PerturbationStudy.
_STUDY_FIELDS = ("params", "curves", "steps", "mean", "stderr")


class KernelDecayDisplay:
    """Kernel-decay curves: mean kernel with the original graph against the number of
    perturbations, one line per collection, with a band of one standard error of the
    mean on each side.

    The y limits follow the data (matplotlib's autoscaling), on either scale. The study
    of one large network (``perturbation_study(G, n_sequences=...)``) moves the kernel
    by 1e-8 to 1e-4 per flip: :meth:`from_studies` draws ``1 - K`` of such studies on
    a log axis, as ``graphinvariants perturb edges.txt`` does.

    Parameters
    ----------
    curves : dict
        ``name -> (steps, mean, stderr)`` arrays.
    xlabel : str, keyword-only
        Label of the x axis.
    ylabel : str, keyword-only
        Label of the y axis.
    yscale : {"linear", "log"}, keyword-only
        Scale of the y axis (default ``"linear"``); ``"log"`` for curves of ``1 - K``.
        On a log axis a band's lower edge is drawn down to the bottom of the axis
        where ``mean - stderr`` is not positive.
    title : str, optional, keyword-only
        Title of the axes (none when None or empty); :meth:`from_studies` says what
        ran.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> studies = {}  # one curve and band per study, under its key
    >>> for p in (0.1, 0.3):
    ...     collection = [nx.gnp_random_graph(30, p, seed=i) for i in range(10)]
    ...     studies[f"G(30, {p})"] = gi.perturbation_study(collection, n_graphs=5, n_steps=5, seed=0)
    >>> display = gi.KernelDecayDisplay.from_studies(studies).plot()
    >>> sorted(display.bands_), tuple(float(x) for x in display.ax_.get_xlim())
    (['G(30, 0.1)', 'G(30, 0.3)'], (0.0, 5.0))
    >>> display.ax_.get_title()
    'power (k=5) after random flip steps: 5 graphs of each collection'

    One network, 1 - K on a log axis:

    >>> one = gi.perturbation_study(nx.grid_2d_graph(30, 30), n_sequences=4, n_steps=5, seed=0)
    >>> display = one.plot()
    >>> display.ax_.get_yscale(), display.ax_.get_ylabel()
    ('log', '1 - power kernel with the original graph')
    >>> display.ax_.get_title()
    'power (k=5) after random flip steps: 4 sequences of one network'
    """

    def __init__(self, curves, *, xlabel="number of edge flips", ylabel="power kernel with the original graph",
                 yscale="linear", title=None):
        if not curves:
            raise ValueError("nothing to plot: no curves given")
        if yscale not in ("linear", "log"):
            raise ValueError(f"yscale must be 'linear' or 'log', got {yscale!r}")
        self.curves = {name: tuple(np.asarray(a, dtype=float) for a in c) for name, c in curves.items()}
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.yscale = yscale
        self.title = title

    @classmethod
    def from_studies(cls, studies, *, title=None):
        """Build from ``{name: PerturbationStudy}``, or a sequence of studies named by
        their ``params["name"]`` (``"study i"`` where it is None).

        When every study is of one network (its ``params`` hold ``n_sequences``), the
        curves are ``1 - K`` from step 1 on, on a log axis; otherwise ``K`` from step
        0, on a linear axis. The title says what ran, read from the studies (unless
        ``title`` is given; ``""`` for none): the kernels, the kind of step, and how
        many sequences of how many networks or graphs of each collection, such as
        ``"power (k=5) after random flip steps: 100 sequences of each of 3 networks"``.

        Examples
        --------
        >>> import networkx as nx
        >>> import graphinvariants as gi
        >>> studies = {name: gi.perturbation_study(nx.cycle_graph(n), n_sequences=3, n_steps=2, seed=0)
        ...            for name, n in (("a.txt", 10), ("b.txt", 12))}
        >>> gi.KernelDecayDisplay.from_studies(studies).title
        'power (k=5) after random flip steps: 3 sequences of each of 2 networks'
        """
        if not isinstance(studies, Mapping):
            studies = list(studies)
            # read by what a study holds, not by its class: perturbation/study.py imports
            # this module inside PerturbationStudy.plot, and importing it back would be a cycle
            wrong = [s for s in studies if not all(hasattr(s, name) for name in _STUDY_FIELDS)]
            if wrong:
                raise TypeError(f"from_studies takes PerturbationStudy objects, got {type(wrong[0]).__name__}")
            studies = {s.params.get("name") or f"study {i}": s for i, s in enumerate(studies)}
        if not studies:
            raise ValueError("nothing to plot: no studies given")
        kinds = {s.params.get("kind", "flip") for s in studies.values()}
        xlabel = "number of edge flips" if kinds == {"flip"} else "number of perturbations"
        kernels = {s.params.get("kernel", "power") for s in studies.values()}
        ylabel = f"{kernels.pop()} kernel with the original graph" if len(kernels) == 1 else "kernel with the original graph"
        title = _what_ran(studies) if title is None else title
        if all("n_sequences" in s.params for s in studies.values()):
            # one network barely moves per flip (1 - K of 1e-8 after 10 flips of 10^4 nodes)
            curves = {name: (s.steps[1:], 1 - s.mean[1:], s.stderr[1:]) for name, s in studies.items()}
            return cls(curves, xlabel=xlabel, ylabel=f"1 - {ylabel}", yscale="log", title=title)
        return cls({name: (s.steps, s.mean, s.stderr) for name, s in studies.items()}, xlabel=xlabel, ylabel=ylabel,
                   title=title)

    def plot(self, ax=None, **kwargs):
        """Draw the curves.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; a new figure if None.
        **kwargs
            Passed to ``ax.plot`` for every curve.

        Returns
        -------
        self
        """
        ax = new_axes(ax, figsize=(6.4, 4.4))
        ax.set_yscale(self.yscale)
        self.lines_, self.bands_ = {}, {}
        last = 0
        for name, (steps, mean, stderr) in self.curves.items():
            (line,) = ax.plot(steps, mean, marker="o", markersize=3, label=name, **kwargs)
            low = mean - stderr
            if self.yscale == "log":  # not below the smallest positive value drawn: the limits follow the curves
                floor = np.min(mean[mean > 0], initial=np.inf)
                low = np.where(low > 0, low, floor if np.isfinite(floor) else np.nan)
            self.bands_[name] = ax.fill_between(steps, low, mean + stderr, color=line.get_color(), alpha=0.25,
                                                linewidth=0)
            self.lines_[name] = line
            last = max(last, float(steps[-1]) if len(steps) else 0.0)
        from matplotlib.legend_handler import HandlerTuple
        from matplotlib.patches import Patch
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlim(0.0, float(max(last, 1.0)))
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel(self.ylabel)
        ax.autoscale(axis="y")  # the limits follow the data, on a linear or a log axis set later
        ax.grid(True, alpha=0.3)
        handles, labels = ax.get_legend_handles_labels()
        # one swatch in the colours of the bands, side by side
        handles.append(tuple(Patch(facecolor=band.get_facecolor()[0], linewidth=0) for band in self.bands_.values()))
        labels.append("band: mean ± 1 standard error")
        ax.legend(handles, labels, handler_map={tuple: HandlerTuple(ndivide=None, pad=0)})
        if self.title:
            ax.set_title(textwrap.fill(self.title, 80), fontsize=9)
        self.ax_, self.figure_ = ax, ax.figure
        return self


def _what_ran(studies):
    """The title of :meth:`KernelDecayDisplay.from_studies`: ``"power (k=5) after random
    flip steps: 100 sequences of each of 3 networks"``, read from the studies' ``params``
    and curves."""
    kernels = []
    for s in studies.values():
        kernel, k = s.params.get("kernel", "power"), s.params.get("k")
        label = f"{kernel} (k={k})" if kernel == "power" and k is not None else str(kernel)
        if label not in kernels:
            kernels.append(label)
    kinds = {s.params.get("kind", "flip") for s in studies.values()}
    steps = f"random {kinds.pop()} steps" if len(kinds) == 1 else "random perturbations"
    networks = {name: s for name, s in studies.items() if "n_sequences" in s.params}
    collections = {name: s for name, s in studies.items() if name not in networks}
    parts = []
    if networks:
        parts.append(_rows_of(networks, "sequence", f"each of {len(networks)} networks", unnamed="one network"))
    if collections:
        parts.append(_rows_of(collections, "graph", "each collection"))
    return f"{', '.join(kernels)} after {steps}: {' and '.join(parts)}"


def _rows_of(studies, unit, several, *, unnamed=None):
    """``"100 sequences of NAME"`` for one study (``unnamed`` stands for a missing name;
    none: the count alone), ``"100 sequences of SEVERAL"`` for more than one."""
    rows = _counts(studies, unit)
    name = several if len(studies) > 1 else next(iter(studies.values())).params.get("name") or unnamed
    return f"{rows} of {name}" if name else rows


def _counts(studies, unit):
    """``"100 graphs"``, or ``"20 or 100 graphs"`` where the studies' rows differ."""
    sizes = sorted({len(s.curves) for s in studies.values()})
    return " or ".join(map(str, sizes)) + f" {unit}{'s' * (sizes[-1] != 1)}"
