"""A collection of graphs read in one pass into the arrays of a batch (private).

:func:`read_graphs` is what :func:`~graphinvariants.graphs.as_graph_batch` does with a
sequence of graphs. For NetworkX and igraph graphs it reads each graph once and
appends to flat lists: node positions by one dict per NetworkX graph (igraph numbers
its vertices already), edge end points through the libraries' bulk accessors
(``G.edges()``, ``get_edgelist``, ``G.vs[name]``), and labels, bond types,
attributes and weights in the same pass. The reader owns the dispatch per graph: it
asks once where a graph comes from
(:func:`~graphinvariants.graphs.adjacency.graph_library`) and hands the values it
read, with that answer, to :mod:`graphinvariants.graphs.attributes`, which checks them
(a test of the types of a whole graph's values at once; the per-value rules run only
on a graph that fails it, for their messages). One CSR for the whole block diagonal is
built at the end. The result is the batch that a CSR per graph, stacked, gives, to the
bit (``tests/graphs/test_batch_digests.py``).

Matrices (scipy, numpy, :class:`~graphinvariants.graphs.GraphAdjacency`) are taken as
their canonical CSR; a collection of matrices alone is stacked as it is.
"""

import itertools
from operator import itemgetter, methodcaller

import numpy as np

from .adjacency import graph_library, matrix_csr, not_a_graph_message, weight_values
from .attributes import MISSING, checked_labels, graph_attribute_rows, label_array, not_carrying_message
from .csr import edges_to_csr, entry_values, stack_csr
from .files import path_hint
from .smiles import is_molecule_object, mixed_message

__all__ = []

_ENDS = itemgetter(0, 1)
_DATA = itemgetter(1)
_EDGE_DATA = itemgetter(2)


def read_graphs(graphs, *, weight, node_label, edge_label, node_attributes, what):
    """``(matrix, offsets, node_labels, edge_labels, node_attributes)`` of a sequence
    of graphs (the labels and attributes None where not asked for); errors name the
    graph as ``what[i]``."""
    weighted = weight is not None
    ends, counts, directed, weights = [], [], [], []  # edges of the NetworkX and igraph graphs (flat pairs)
    parts, matrix_items = [], []  # canonical CSR of the other graphs, and their positions
    sizes, labels, edge_labels, edge_names, rows = [], [], [], [], []
    n_attributes = None
    first = None
    for i, G in enumerate(graphs):
        library = graph_library(G)  # asked once per graph; the readers below are told it
        if i == 0:
            first = G
        elif library is None and ((isinstance(G, str) and not path_hint(G)) or is_molecule_object(G)):
            # a molecule among graphs: the words read_smiles has for a graph among molecules
            # (a file name is not a molecule: not_a_graph_message names read_edgelist for it)
            raise TypeError(mixed_message(first, G, i, what=what))
        try:
            if library in ("networkx", "igraph"):
                read = _networkx_values if library == "networkx" else _igraph_values
                n, flat, names, edge_weights, bonds, node_values = read(G, weight, node_label, edge_label)
                start = len(ends)
                ends.extend(flat)
                counts.append((len(ends) - start) // 2)
                directed.append(G.is_directed())
                if edge_label is not None:
                    edge_labels.extend(checked_labels(names, bonds, edge_label, library, "edge"))
                    edge_names.append(names)
                if weighted:
                    weights.append(weight_values(edge_weights, weight, names))
                if node_label is not None:
                    nodes = G if library == "networkx" else range(n)
                    labels.extend(checked_labels(nodes, node_values, node_label, library))
            else:
                if edge_label is not None:  # edge labels come from NetworkX and igraph graphs only
                    raise TypeError(not_carrying_message(G, "edge"))
                indptr, indices, values = _block_of(G, weight, library)
                n = len(indptr) - 1
                if node_label is not None:  # likewise
                    raise TypeError(not_carrying_message(G, "node"))
                parts.append((indptr, indices, values))
                matrix_items.append(i)
            if node_attributes is not None:
                own = graph_attribute_rows(G, node_attributes, library)
                if own and n_attributes is None:
                    n_attributes = (i, len(own[0]))
                elif own and len(own[0]) != n_attributes[1]:
                    raise ValueError(f"its nodes have {len(own[0])} values of attribute {node_attributes!r}, those "
                                     f"of {what}[{n_attributes[0]}] have {n_attributes[1]}")
                rows.extend(own)
        except (TypeError, ValueError) as err:
            raise type(err)(f"{what}[{i}]: {err}") from None
        if n == 0:
            raise ValueError(f"{what}[{i}] has no nodes; every kernel needs at least one node per graph")
        sizes.append(n)
    sizes = np.array(sizes, dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    n_nodes = int(offsets[-1])
    if matrix_items and len(matrix_items) == len(sizes):  # matrices only: stacked as they are
        matrix = stack_csr(parts, sizes)
    else:
        counts = np.array(counts, dtype=np.int64)
        shift = np.repeat(offsets[np.setdiff1d(np.arange(len(sizes)), matrix_items)], counts)
        flat = np.array(ends, dtype=np.int64)
        u, v = flat[0::2] + shift, flat[1::2] + shift
        per_edge = np.repeat(np.array(directed, dtype=bool), counts)
        data = (np.concatenate(weights) if weights else np.zeros(0)) if weighted else None
        if parts:  # the matrices' entries, as arcs; each row belongs to one graph, so where they go does not matter
            mu, mv, md = _entries(parts, offsets[matrix_items])
            u, v, per_edge = np.concatenate((u, mu)), np.concatenate((v, mv)), np.concatenate((per_edge, md[0]))
            data = np.concatenate((data, md[1])) if weighted else None
        matrix = edges_to_csr(n_nodes, u, v, data, directed=per_edge, weighted=weighted)
    node_labels = None if node_label is None else label_array(labels)
    aligned = None
    if edge_label is not None:
        aligned = _aligned_edge_labels(n_nodes, u, v, data, per_edge, label_array(edge_labels, "edge"),
                                       counts, edge_names, weighted, what)
    attributes = None
    if node_attributes is not None:
        attributes = np.array(rows, dtype=np.float64).reshape(-1, n_attributes[1] if n_attributes else 1)
    return matrix, offsets, node_labels, aligned, attributes


def _networkx_values(G, weight, node_label, edge_label):
    """What a NetworkX graph gives, raw: ``(n, edge ends as node positions (flat),
    edge names, weights, edge labels, node labels)``, those not asked for None."""
    index = dict(zip(G, range(len(G))))  # node positions: list(G) order
    node_values = None
    if node_label is not None:
        node_values = list(map(methodcaller("get", node_label, MISSING), map(_DATA, G.nodes(data=True))))
    if weight is None and edge_label is None:
        return len(index), map(index.__getitem__, itertools.chain.from_iterable(G.edges())), None, None, None, node_values
    triples = list(G.edges(data=True))
    names = list(map(_ENDS, triples))
    weights = bonds = None
    if weight is not None:
        weights = list(map(methodcaller("get", weight), map(_EDGE_DATA, triples)))
    if edge_label is not None:
        bonds = list(map(methodcaller("get", edge_label, MISSING), map(_EDGE_DATA, triples)))
    return len(index), map(index.__getitem__, itertools.chain.from_iterable(names)), names, weights, bonds, node_values


def _igraph_values(G, weight, node_label, edge_label):
    """:func:`_networkx_values` of an igraph graph (vertex numbers are positions)."""
    n, edges = G.vcount(), G.get_edgelist()
    weights = bonds = node_values = None
    if weight is not None:
        weights = G.es[weight] if weight in G.es.attributes() else [None] * len(edges)
    if edge_label is not None:
        bonds = G.es[edge_label] if edge_label in G.es.attributes() else [MISSING] * len(edges)
    if node_label is not None:
        node_values = G.vs[node_label] if node_label in G.vs.attributes() else [MISSING] * n
    return n, itertools.chain.from_iterable(edges), edges, weights, bonds, node_values


def _aligned_edge_labels(n_nodes, u, v, data, per_edge, values, counts, edge_names, weighted, what):
    """One label per stored entry of the batch's matrix, from the labels of every
    edge; parallel edges with different labels are refused, naming the graph."""
    aligned, conflict = entry_values(n_nodes, u, v, values, data, directed=per_edge, weighted=weighted)
    if conflict is None:
        return aligned
    starts = np.concatenate(([0], np.cumsum(counts)))
    i = int(np.searchsorted(starts, conflict[0], side="right")) - 1
    a, b = (int(p - starts[i]) for p in conflict)
    names, own = edge_names[i], values[starts[i]:starts[i + 1]]
    raise ValueError(f"{what}[{i}]: parallel edges {names[a]!r} and {names[b]!r} have different labels "
                     f"{own[a].item()!r} and {own[b].item()!r}")


def _entries(parts, starts):
    """Rows and columns (in the batch) of the stored entries of canonical CSR blocks
    starting at ``starts``, and ``(directed, data)`` of each."""
    rows, cols, data = [], [], []
    for (indptr, indices, values), start in zip(parts, starts):
        rows.append(start + np.repeat(np.arange(len(indptr) - 1), np.diff(indptr)))
        cols.append(start + np.asarray(indices, dtype=np.int64))
        data.append(np.asarray(values, dtype=np.float64))
    rows, cols, data = np.concatenate(rows), np.concatenate(cols), np.concatenate(data)
    return rows, cols, (np.ones(rows.size, dtype=bool), data)


def _block_of(G, weight, library):
    """``(indptr, indices, data)`` of a matrix's canonical CSR; no conversion at all
    for CSR input that is already canonical."""
    if library == "adjacency":
        A = G.matrix
    elif library == "scipy" and _fast_csr(G):
        return G.indptr, G.indices, (G.data if weight is not None else np.ones(G.nnz))
    elif library in ("scipy", "numpy"):
        A = matrix_csr(G, weight)
    else:
        raise TypeError(not_a_graph_message(G))
    return A.indptr, A.indices, A.data


def _fast_csr(A):
    """A CSR float64 matrix that needs no conversion: canonical, square, no zeros,
    finite and non-negative entries."""
    return (
        A.format == "csr" and A.dtype == np.float64 and A.ndim == 2 and A.shape[0] == A.shape[1]
        and A.has_canonical_format and (A.nnz == 0 or (np.isfinite(A.data).all() and A.data.min() > 0))
    )
