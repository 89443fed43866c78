"""Plots as scikit-learn-style Display objects (matplotlib is imported lazily).

Every Display computes what it shows once, in ``__init__`` or a ``from_*`` constructor;
``plot(ax=None, **kwargs)`` draws it (on a new figure with a layout engine when ``ax``
is None) and keeps ``ax_`` and ``figure_``.
"""

from collections.abc import Mapping

import numpy as np
from scipy.sparse import issparse

from ..embeddings import PowerInvariants, power_invariants
from .validation import import_extra
from ..datasets.molecules import atom_symbols
from ..graphs.adjacency import describe
from ..kernels import power_kernel_matrix

__all__ = ["InvariantsDisplay", "KernelDecayDisplay", "KernelMatrixDisplay", "NodeValuesDisplay", "PairValuesDisplay",
           "plot_invariants", "plot_kernel_matrix"]


def _new_axes(ax, ncols=1, figsize=None):
    """``ax`` checked (one Axes, or ``ncols`` of them), or new ones on a new figure."""
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


#: What KernelDecayDisplay.from_studies reads of a PerturbationStudy.
_STUDY_FIELDS = ("params", "steps", "mean", "stderr")


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

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> graphs = [nx.gnp_random_graph(30, 0.1, seed=i) for i in range(20)]
    >>> study = gi.perturbation_study(graphs, n_graphs=10, n_steps=5, seed=0, name="G(30, 0.1)")
    >>> display = gi.KernelDecayDisplay.from_studies({"G(30, 0.1)": study}).plot()
    >>> display.ax_.get_xlabel(), tuple(float(x) for x in display.ax_.get_xlim())
    ('number of edge flips', (0.0, 5.0))

    One network, 1 - K on a log axis:

    >>> one = gi.perturbation_study(nx.grid_2d_graph(30, 30), n_sequences=4, n_steps=5, seed=0)
    >>> display = one.plot()
    >>> display.ax_.get_yscale(), display.ax_.get_ylabel()
    ('log', '1 - power kernel with the original graph')
    """

    def __init__(self, curves, *, xlabel="number of edge flips", ylabel="power kernel with the original graph",
                 yscale="linear"):
        if not curves:
            raise ValueError("nothing to plot: no curves given")
        if yscale not in ("linear", "log"):
            raise ValueError(f"yscale must be 'linear' or 'log', got {yscale!r}")
        self.curves = {name: tuple(np.asarray(a, dtype=float) for a in c) for name, c in curves.items()}
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.yscale = yscale

    @classmethod
    def from_studies(cls, studies):
        """Build from ``{name: PerturbationStudy}``, or a sequence of studies named by
        their ``params["name"]`` (``"study i"`` where it is None).

        When every study is of one network (its ``params`` hold ``n_sequences``), the
        curves are ``1 - K`` from step 1 on, on a log axis; otherwise ``K`` from step
        0, on a linear axis."""
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
        if all("n_sequences" in s.params for s in studies.values()):
            # one network barely moves per flip (1 - K of 1e-8 after 10 flips of 10^4 nodes)
            curves = {name: (s.steps[1:], 1 - s.mean[1:], s.stderr[1:]) for name, s in studies.items()}
            return cls(curves, xlabel=xlabel, ylabel=f"1 - {ylabel}", yscale="log")
        return cls({name: (s.steps, s.mean, s.stderr) for name, s in studies.items()}, xlabel=xlabel, ylabel=ylabel)

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
        ax = _new_axes(ax, figsize=(6.4, 4.4))
        ax.set_yscale(self.yscale)
        self.lines_ = {}
        last = 0
        for name, (steps, mean, stderr) in self.curves.items():
            (line,) = ax.plot(steps, mean, marker="o", markersize=3, label=name, **kwargs)
            low = mean - stderr
            if self.yscale == "log":  # not below the smallest positive value drawn: the limits follow the curves
                floor = np.min(mean[mean > 0], initial=np.inf)
                low = np.where(low > 0, low, floor if np.isfinite(floor) else np.nan)
            ax.fill_between(steps, low, mean + stderr, color=line.get_color(), alpha=0.25, linewidth=0)
            self.lines_[name] = line
            last = max(last, float(steps[-1]) if len(steps) else 0.0)
        from matplotlib.patches import Patch
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlim(0.0, float(max(last, 1.0)))
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel(self.ylabel)
        ax.autoscale(axis="y")  # the limits follow the data, on a linear or a log axis set later
        ax.grid(True, alpha=0.3)
        handles, labels = ax.get_legend_handles_labels()
        handles.append(Patch(color="grey", alpha=0.25, linewidth=0))
        labels.append("band: mean ± 1 standard error")
        ax.legend(handles, labels)
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
        ax = _new_axes(ax)
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
        ax_mean, ax_cov = _new_axes(ax, ncols=2, figsize=(9, 3.6))
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


def _centred_norm(values):
    """A diverging norm centred at 0 over ``values`` (symmetric, so that equal magnitudes
    get equal strength of colour on both sides)."""
    from matplotlib.colors import TwoSlopeNorm

    top = float(np.max(np.abs(values))) if len(values) else 0.0
    top = top if top > 0 else 1.0
    return TwoSlopeNorm(vcenter=0.0, vmin=-top, vmax=top)


def _node_text(graph, labels):
    """Node labels to draw: a dict as given, ``"label"``-like attribute names read from
    every node, or None."""
    if labels is None or isinstance(labels, Mapping):
        return labels
    if isinstance(labels, str):
        if all(labels in data for _, data in graph.nodes(data=True)):
            return {v: str(data[labels]) for v, data in graph.nodes(data=True)}
        raise ValueError(f"labels={labels!r}: not every node carries that attribute")
    raise TypeError(f"labels must be None, a node attribute name or a dict node -> text, got {describe(labels)}")


def _draw_values(ax, graph, values, norm, *, cmap, pos, labels, node_size, seed, **kwargs):
    import networkx as nx

    if pos is None:
        pos = nx.kamada_kawai_layout(graph) if 1 < graph.number_of_nodes() <= 200 else nx.spring_layout(graph, seed=seed)
    nx.draw_networkx_edges(graph, pos, ax=ax, edge_color="0.6")
    nodes = nx.draw_networkx_nodes(graph, pos, ax=ax, node_color=np.asarray(values, dtype=float), cmap=cmap,
                                   node_size=node_size, edgecolors="0.3", linewidths=0.5, **kwargs)
    nodes.set_norm(norm)
    text = _node_text(graph, labels)
    if text is not None:
        nx.draw_networkx_labels(graph, pos, labels=text, ax=ax, font_size=8)
    ax.set_axis_off()
    return nodes


def _check_values(graph, values, what):
    values = np.asarray(values, dtype=float)
    if not hasattr(graph, "number_of_nodes"):
        raise TypeError(f"{what}: the graph must be a networkx graph (the one explained), got {describe(graph)}")
    if values.shape != (graph.number_of_nodes(),):
        raise ValueError(f"{what}: {values.shape[0] if values.ndim == 1 else values.shape} values for a graph of "
                         f"{graph.number_of_nodes()} nodes; give one per node, in the graph's node order")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{what}: the node values contain NaN or infinite values")
    return values


class NodeValuesDisplay:
    """A graph with each node coloured by its contribution (diverging colours, 0 white).

    Parameters
    ----------
    graph : networkx.Graph
        The graph explained.
    values : array_like of shape (n_nodes,)
        One value per node, in the graph's node order (an
        :class:`~graphinvariants.Explanation`'s ``node_values[i]``).
    title : str, optional

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> display = gi.NodeValuesDisplay(nx.path_graph(4), [-1.0, 0.0, 0.5, 2.0]).plot()
    >>> display.colorbar_.norm.vcenter, display.colorbar_.norm.vmin
    (0.0, -2.0)
    """

    def __init__(self, graph, values, *, title=None):
        self.values = _check_values(graph, values, "values")
        self.graph = graph
        self.title = title

    @classmethod
    def from_explanation(cls, explanation, graphs, index=0):
        """The display of graph ``index`` of an explanation of ``graphs`` (the same
        collection, as networkx graphs: a TUDataset gives them by position)."""
        n = len(explanation.node_values)
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not -n <= index < n:
            raise IndexError(f"index must be an int from {-n} to {n - 1} (the explanation holds {n} "
                             f"graph{'s' * (n != 1)}), got {index!r}")
        graph = graphs[index]
        output, base = float(explanation.output[index]), explanation.base_value
        title = (f"{explanation.method} {output:.3g} = base {base:.3g} + "
                 f"nodes {float(explanation.node_values[index].sum()):.3g}")
        return cls(graph, explanation.node_values[index], title=title)

    def plot(self, ax=None, *, mol=None, cmap="RdBu_r", colorbar=True, pos=None, labels="label", node_size=300,
             seed=0, size=(400, 300), **kwargs):
        """Draw the graph, or with ``mol`` the molecule (RDKit's similarity map).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; a new figure if None.
        mol : rdkit.Chem.Mol, optional, keyword-only
            The molecule whose atoms are the graph's nodes, in the same order
            (:func:`~graphinvariants.datasets.from_mol` and
            :func:`~graphinvariants.datasets.to_mol` keep it): drawn by
            ``rdkit.Chem.Draw.SimilarityMaps.GetSimilarityMapFromWeights`` (the
            ``[chem]`` extra) and shown on ``ax``.
        cmap : str, keyword-only
            Diverging colour map, centred at 0 (``TwoSlopeNorm``, symmetric).
        colorbar : bool, keyword-only
        pos : dict, optional, keyword-only
            Node positions; Kamada-Kawai (spring beyond 200 nodes, with ``seed``) if None.
        labels : str, dict or None, keyword-only
            Node text: a node attribute drawn when every node has it (default
            ``"label"``, ignored when some node lacks it; labels that name elements,
            or a TU molecule set's codes, are drawn as element symbols:
            :func:`~graphinvariants.datasets.atom_symbols`), a dict node -> text, or
            None.
        node_size : float, keyword-only
        size : (int, int), keyword-only
            Pixels of the molecule's picture.
        **kwargs
            Passed to ``networkx.draw_networkx_nodes``.

        Returns
        -------
        self
        """
        ax = _new_axes(ax)
        norm = _centred_norm(self.values)
        if mol is not None:
            self.image_ = _draw_molecule(ax, mol, self.values, cmap=cmap, size=size)
            mappable = _mappable(norm, cmap)
        else:
            if labels == "label":
                # atoms by element where the labels name elements (a TU set's codes by its table)
                symbols = atom_symbols(self.graph)
                if symbols is not None:
                    labels = symbols
                elif not all("label" in d for _, d in self.graph.nodes(data=True)):
                    labels = None
            mappable = self.nodes_ = _draw_values(ax, self.graph, self.values, norm, cmap=cmap, pos=pos,
                                                  labels=labels, node_size=node_size, seed=seed, **kwargs)
        self.colorbar_ = ax.figure.colorbar(mappable, ax=ax, label="node contribution") if colorbar else None
        if self.title:
            ax.set_title(self.title, fontsize=9)
        self.ax_, self.figure_ = ax, ax.figure
        return self


def _mappable(norm, cmap):
    from matplotlib.cm import ScalarMappable

    return ScalarMappable(norm=norm, cmap=cmap)


def _draw_molecule(ax, mol, values, *, cmap, size):
    """RDKit's similarity map of ``mol`` with atom weights ``values``, shown on ``ax``."""
    import io

    import matplotlib.image

    Chem = import_extra("rdkit.Chem", "chem", "drawing a molecule needs RDKit")
    from rdkit.Chem.Draw import SimilarityMaps, rdMolDraw2D
    if not isinstance(mol, Chem.Mol):
        raise TypeError(f"mol must be an RDKit molecule (rdkit.Chem.Mol), got {describe(mol)}")
    if mol.GetNumAtoms() != len(values):
        raise ValueError(f"mol has {mol.GetNumAtoms()} atoms but there are {len(values)} node values; the atoms "
                         "must be the graph's nodes, in its node order")
    draw = rdMolDraw2D.MolDraw2DCairo(*size)
    SimilarityMaps.GetSimilarityMapFromWeights(mol, [float(v) for v in values], draw, colorMap=cmap)
    draw.FinishDrawing()
    image = ax.imshow(matplotlib.image.imread(io.BytesIO(draw.GetDrawingText()), format="png"))
    ax.set_axis_off()
    return image


class PairValuesDisplay:
    """Two graphs side by side, each node coloured by its share of their kernel value.

    Parameters
    ----------
    G, H : networkx.Graph
    pair : PairExplanation
        From :func:`~graphinvariants.explain_pair` of ``G`` and ``H``.

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> G, H = nx.path_graph(5), nx.star_graph(4)
    >>> display = gi.PairValuesDisplay(G, H, gi.explain_pair(G, H, kernel="wl", n_iter=2)).plot()
    >>> len(display.ax_)
    2
    """

    def __init__(self, G, H, pair):
        self.values_G = _check_values(G, pair.values_G, "G")
        self.values_H = _check_values(H, pair.values_H, "H")
        self.G, self.H, self.pair = G, H, pair

    @classmethod
    def from_explanation(cls, pair, G, H):
        """The display of a :class:`~graphinvariants.PairExplanation` of ``G`` and ``H``
        (:func:`~graphinvariants.explain_pair`), as :meth:`NodeValuesDisplay.from_explanation`
        is of an :class:`~graphinvariants.Explanation`; each graph must have as many nodes
        as its values.

        Examples
        --------
        >>> import networkx as nx
        >>> import graphinvariants as gi
        >>> G, H = nx.path_graph(4), nx.star_graph(3)
        >>> pair = gi.explain_pair(G, H, n_iter=1)
        >>> display = gi.PairValuesDisplay.from_explanation(pair, G, H)
        >>> bool(abs(display.values_G.sum() - pair.value) < 1e-12)
        True
        """
        if not hasattr(pair, "values_G") or not hasattr(pair, "values_H"):
            raise TypeError(f"pair must be a PairExplanation (from explain_pair), got {type(pair).__name__}")
        return cls(G, H, pair)

    def plot(self, ax=None, *, cmap="RdBu_r", colorbar=True, labels="label", node_size=300, seed=0, **kwargs):
        """Draw both graphs on one colour scale (``ax``: two Axes, or a new 1 x 2 figure).

        Returns
        -------
        self
        """
        axes = _new_axes(ax, ncols=2, figsize=(9, 4) if ax is None else None)
        norm = _centred_norm(np.concatenate((self.values_G, self.values_H)))
        self.nodes_ = []
        for a, graph, values, name in ((axes[0], self.G, self.values_G, "G"), (axes[1], self.H, self.values_H, "H")):
            text = labels if labels != "label" or all("label" in d for _, d in graph.nodes(data=True)) else None
            self.nodes_.append(_draw_values(a, graph, values, norm, cmap=cmap, pos=None, labels=text,
                                            node_size=node_size, seed=seed, **kwargs))
            a.set_title(f"{name}: nodes sum to {float(values.sum()):.3g}", fontsize=9)
        axes[0].figure.suptitle(f"{self.pair.kernel} kernel {self.pair.value:.3g}", fontsize=10)
        self.colorbar_ = (axes[0].figure.colorbar(self.nodes_[1], ax=list(axes), label="node share")
                          if colorbar else None)
        self.ax_, self.figure_ = tuple(axes), axes[0].figure
        return self
