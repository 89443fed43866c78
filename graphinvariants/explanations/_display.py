"""The pictures of explanations: :class:`NodeValuesDisplay` (one graph's node values)
and :class:`PairValuesDisplay` (two graphs' shares of their kernel value)."""

from collections.abc import Mapping

import numpy as np

from .._utils.plotting import new_axes, text_colours
from .._utils.optional import import_extra
from .._utils.validation import describe
from ..datasets.molecules import atom_symbols
from ..graphs.adjacency import graph_library
from ..graphs.smiles import from_mol, from_smiles, is_molecule_object

__all__ = ["NodeValuesDisplay", "PairValuesDisplay"]


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
    text, drawn = _node_text(graph, labels), {}
    if text is not None:
        # black or white, whichever reads better on the node's own fill
        fill = dict(zip(graph.nodes(), text_colours(nodes.to_rgba(np.asarray(values, dtype=float)))))
        for colour in ("black", "white"):
            these = {v: t for v, t in text.items() if fill.get(v, "black") == colour}
            if these:
                drawn.update(nx.draw_networkx_labels(graph, pos, labels=these, ax=ax, font_size=8, font_color=colour))
    ax.set_axis_off()
    return nodes, {v: drawn[v] for v in graph.nodes() if v in drawn}


def _drawn_graph(graph, what):
    """The NetworkX graph drawn for ``graph``, any graph :func:`~graphinvariants.explain`
    takes: a NetworkX graph as it is; a SMILES string or an RDKit molecule as
    :func:`~graphinvariants.datasets.from_smiles` (``from_mol``) reads it, as explain
    does, so its atoms are in the order of their values; an igraph graph as its
    NetworkX copy (vertex ids and attributes kept)."""
    if isinstance(graph, str):
        return from_smiles(graph)
    if is_molecule_object(graph):
        return from_mol(graph)
    if graph_library(graph) == "igraph":
        return graph.to_networkx()
    if hasattr(graph, "number_of_nodes") and hasattr(graph, "nodes"):  # NetworkX's and its subclasses
        return graph
    raise TypeError(f"{what} must be the graph explained: a networkx or igraph graph, a SMILES string or an RDKit "
                    f"molecule, got {describe(graph)}")


def _check_values(graph, values, what):
    values = np.asarray(values, dtype=float)
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
    graph : networkx.Graph, igraph.Graph, str or rdkit.Chem.Mol
        The graph explained, as :func:`~graphinvariants.explain` took it: a SMILES
        string or an RDKit molecule is drawn as the molecule's graph
        (:func:`~graphinvariants.datasets.from_smiles`, whose atom order is the order
        of the values), an igraph graph as its NetworkX copy. Kept as ``graph``, a
        NetworkX graph.
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

    A molecule by its SMILES; each atom's symbol is written in black or in white,
    whichever reads better on its node's colour:

    >>> display = gi.NodeValuesDisplay("OCC=O", [-2.0, 0.0, 0.5, 2.0]).plot()
    >>> [(text.get_text(), text.get_color()) for text in display.labels_.values()]
    [('O', 'white'), ('C', 'black'), ('C', 'black'), ('O', 'white')]
    """

    def __init__(self, graph, values, *, title=None):
        self.graph = _drawn_graph(graph, "graph")
        self.values = _check_values(self.graph, values, "values")
        self.title = title

    @classmethod
    def from_explanation(cls, explanation, graphs, index=0):
        """The display of graph ``index`` of an explanation of ``graphs`` (the same
        collection :func:`~graphinvariants.explain` took: NetworkX or igraph graphs, a
        TUDataset, SMILES strings or RDKit molecules).

        Examples
        --------
        >>> from sklearn.kernel_ridge import KernelRidge
        >>> from sklearn.pipeline import make_pipeline
        >>> import graphinvariants as gi
        >>> smiles = ["CCO", "CCN", "CCCO", "OCC(C)O", "CC(=O)O"]
        >>> model = make_pipeline(gi.GraphKernel(kernel="wl", n_iter=1), KernelRidge(kernel="precomputed"))
        >>> result = gi.explain(model.fit(smiles, [0.1, 0.4, 0.2, 0.6, 0.9]), ["OCCN"])
        >>> display = gi.NodeValuesDisplay.from_explanation(result, ["OCCN"], 0)
        >>> [label for _, label in display.graph.nodes(data="label")]
        ['O', 'C', 'C', 'N']
        """
        n = len(explanation.node_values)
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not -n <= index < n:
            raise IndexError(f"index must be an int from {-n} to {n - 1} (the explanation holds {n} "
                             f"graph{'s' * (n != 1)}), got {index!r}")
        graph = _drawn_graph(graphs[index], f"graphs[{index}]")
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
            None. Each is written in black or in white, whichever contrasts more with
            its node's colour.
        node_size : float, keyword-only
        size : (int, int), keyword-only
            Pixels of the molecule's picture.
        **kwargs
            Passed to ``networkx.draw_networkx_nodes``.

        Returns
        -------
        self
            With ``nodes_`` (the nodes' ``PathCollection``) and ``labels_`` (node ->
            its matplotlib ``Text``) when the graph is drawn, ``image_`` when the
            molecule is.
        """
        ax = new_axes(ax)
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
            self.nodes_, self.labels_ = _draw_values(ax, self.graph, self.values, norm, cmap=cmap, pos=pos,
                                                     labels=labels, node_size=node_size, seed=seed, **kwargs)
            mappable = self.nodes_
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

    Chem = import_extra("rdkit.Chem", needs="drawing a molecule needs RDKit")
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
    G, H : networkx.Graph, igraph.Graph, str or rdkit.Chem.Mol
        The graphs :func:`~graphinvariants.explain_pair` took (a SMILES string or an
        RDKit molecule drawn as the molecule's graph, as in :class:`NodeValuesDisplay`).
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
        self.G, self.H = _drawn_graph(G, "G"), _drawn_graph(H, "H")
        self.values_G = _check_values(self.G, pair.values_G, "pair.values_G")
        self.values_H = _check_values(self.H, pair.values_H, "pair.values_H")
        self.pair = pair

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

        The options are :meth:`NodeValuesDisplay.plot`'s, for both graphs.

        Returns
        -------
        self
            With ``nodes_`` and ``labels_``, one item per graph.
        """
        axes = new_axes(ax, ncols=2, figsize=(9, 4) if ax is None else None)
        norm = _centred_norm(np.concatenate((self.values_G, self.values_H)))
        self.nodes_, self.labels_ = [], []
        for a, graph, values, name in ((axes[0], self.G, self.values_G, "G"), (axes[1], self.H, self.values_H, "H")):
            text = labels if labels != "label" or all("label" in d for _, d in graph.nodes(data=True)) else None
            nodes, drawn = _draw_values(a, graph, values, norm, cmap=cmap, pos=None, labels=text, node_size=node_size,
                                        seed=seed, **kwargs)
            self.nodes_.append(nodes)
            self.labels_.append(drawn)
            a.set_title(f"{name}: nodes sum to {float(values.sum()):.3g}", fontsize=9)
        axes[0].figure.suptitle(f"{self.pair.kernel} kernel {self.pair.value:.3g}", fontsize=10)
        self.colorbar_ = (axes[0].figure.colorbar(self.nodes_[1], ax=list(axes), label="node share")
                          if colorbar else None)
        self.ax_, self.figure_ = tuple(axes), axes[0].figure
        return self
