"""Small intersphinx inventories for an offline docs build.

Each lists the names these docs link to in another project, with that project's real
URL, in the ``objects.inv`` version 2 format. ``conf.py`` uses them unless
``GRAPHINVARIANTS_DOCS_ONLINE=1`` asks for the projects' full inventories.
"""

import zlib
from pathlib import Path

#: project -> [(name, role, uri relative to the project's docs root)]
LINKED = {
    "python": [
        ("int", "py:class", "library/functions.html#int"),
        ("float", "py:class", "library/functions.html#float"),
        ("str", "py:class", "library/stdtypes.html#str"),
        ("dict", "py:class", "library/stdtypes.html#dict"),
        ("list", "py:class", "library/stdtypes.html#list"),
        ("tuple", "py:class", "library/stdtypes.html#tuple"),
        ("bool", "py:class", "library/functions.html#bool"),
    ],
    "numpy": [
        ("numpy.ndarray", "py:class", "reference/generated/numpy.ndarray.html#numpy.ndarray"),
        ("numpy.random.Generator", "py:class", "reference/random/generator.html#numpy.random.Generator"),
        ("numpy.random.SeedSequence", "py:class", "reference/random/bit_generators/generated/numpy.random.SeedSequence.html#numpy.random.SeedSequence"),
    ],
    "scipy": [
        ("scipy.sparse.csr_array", "py:class", "reference/generated/scipy.sparse.csr_array.html#scipy.sparse.csr_array"),
    ],
    "networkx": [
        ("networkx.Graph", "py:class", "reference/classes/graph.html#networkx.Graph"),
        ("networkx.DiGraph", "py:class", "reference/classes/digraph.html#networkx.DiGraph"),
        ("networkx.MultiGraph", "py:class", "reference/classes/multigraph.html#networkx.MultiGraph"),
        ("networkx.to_scipy_sparse_array", "py:function", "reference/generated/networkx.convert_matrix.to_scipy_sparse_array.html#networkx.convert_matrix.to_scipy_sparse_array"),
        ("networkx.weisfeiler_lehman_graph_hash", "py:function", "reference/algorithms/generated/networkx.algorithms.graph_hashing.weisfeiler_lehman_graph_hash.html#networkx.algorithms.graph_hashing.weisfeiler_lehman_graph_hash"),
        ("networkx.weisfeiler_lehman_subgraph_hashes", "py:function", "reference/algorithms/generated/networkx.algorithms.graph_hashing.weisfeiler_lehman_subgraph_hashes.html#networkx.algorithms.graph_hashing.weisfeiler_lehman_subgraph_hashes"),
        ("networkx.number_of_walks", "py:function", "reference/algorithms/generated/networkx.algorithms.walks.number_of_walks.html#networkx.algorithms.walks.number_of_walks"),
    ],
    "igraph": [
        ("igraph.Graph", "py:class", "igraph.Graph.html#igraph.Graph"),
    ],
    "sklearn": [
        ("sklearn.svm.SVC", "py:class", "modules/generated/sklearn.svm.SVC.html#sklearn.svm.SVC"),
        ("sklearn.pipeline.Pipeline", "py:class", "modules/generated/sklearn.pipeline.Pipeline.html#sklearn.pipeline.Pipeline"),
        ("sklearn.model_selection.GridSearchCV", "py:class", "modules/generated/sklearn.model_selection.GridSearchCV.html#sklearn.model_selection.GridSearchCV"),
        ("sklearn.model_selection.cross_val_score", "py:function", "modules/generated/sklearn.model_selection.cross_val_score.html#sklearn.model_selection.cross_val_score"),
    ],
    "matplotlib": [
        ("matplotlib.axes.Axes", "py:class", "api/_as_gen/matplotlib.axes.Axes.html#matplotlib.axes.Axes"),
        ("matplotlib.figure.Figure", "py:class", "api/_as_gen/matplotlib.figure.Figure.html#matplotlib.figure.Figure"),
    ],
}


def write_inventories(folder):
    """Write ``<project>.inv`` files into ``folder``; return ``{project: path}``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for project, entries in LINKED.items():
        header = f"# Sphinx inventory version 2\n# Project: {project}\n# Version: \n# The remainder of this file is compressed using zlib.\n"
        body = "".join(f"{name} {role} 1 {uri} -\n" for name, role, uri in entries)
        path = folder / f"{project}.inv"
        path.write_bytes(header.encode() + zlib.compress(body.encode()))
        paths[project] = path
    return paths
