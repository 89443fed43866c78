"""Molecules in: SMILES strings and RDKit molecules as labelled graphs (needs RDKit).

:func:`from_smiles` and :func:`from_mol` turn a SMILES string or an RDKit molecule into
a ``networkx.Graph`` whose nodes are the atoms (numbered as RDKit numbers them) and
whose edges are the bonds, with what the labelled members read:

* node attribute ``"label"``: the element symbol (``"C"``, ``"N"``, ``"Cl"``);
  ``"atomic_number"`` (int) and ``"formal_charge"`` (int) too;
* edge attribute ``"label"``: the bond type's name, ``"SINGLE"``, ``"DOUBLE"``,
  ``"TRIPLE"`` or ``"AROMATIC"`` (RDKit's other types by their names);
  ``"bond_order"`` (float: 1, 2, 3, 1.5 for aromatic) too.

A list of SMILES strings (or of RDKit molecules) is a collection of graphs wherever one
is taken: :func:`~graphinvariants.graphs.as_graph_batch` reads it through
:func:`read_smiles` (errors name the string's position), and the kernels named by
string read the atoms and bonds of molecules given so (``node_label="label"``,
``edge_label="label"``, unless told otherwise; see
:func:`graphinvariants.kernels.registry.molecule_parameters`).
RDKit is optional: ``pip install "graphinvariants[chem]"``; it is imported when a
string is first read.
"""

from operator import methodcaller

import networkx as nx
import numpy as np

from .._utils.optional import import_extra
from .attributes import label_array
from .csr import CSRArrays
from .files import path_hint

__all__ = ["MOLECULE_LABEL", "from_mol", "from_smiles", "holds_molecules", "is_molecule_object", "is_smiles",
           "molecule_arrays", "read_smiles", "reads_straight", "smiles_lines"]

#: The node and edge attribute that molecules carry their element and bond type in.
MOLECULE_LABEL = "label"


def _chem():
    """``rdkit.Chem``, or an ImportError saying how to install it."""
    return import_extra("rdkit.Chem", needs="molecules need RDKit")


def from_mol(mol, *, hydrogens=False):
    """Return an RDKit molecule as a labelled ``networkx.Graph``.

    Parameters
    ----------
    mol : rdkit.Chem.Mol
        The molecule.
    hydrogens : bool, keyword-only
        If True, hydrogens are added as atoms (``Chem.AddHs``); by default only the
        atoms the molecule holds are nodes (RDKit keeps hydrogens implicit).

    Returns
    -------
    networkx.Graph
        Nodes ``0..n-1`` in RDKit's atom order with attributes ``"label"`` (element
        symbol), ``"atomic_number"`` and ``"formal_charge"``; edges with ``"label"``
        (bond type name) and ``"bond_order"``. See the module's description.

    Raises
    ------
    ImportError
        If RDKit is not installed (the message says how to install it).
    TypeError
        If ``mol`` is not an RDKit molecule.

    Examples
    --------
    >>> from rdkit import Chem
    >>> from graphinvariants.datasets import from_mol
    >>> G = from_mol(Chem.MolFromSmiles("C=O"))
    >>> G.nodes(data="label"), G.edges[0, 1]
    (NodeDataView({0: 'C', 1: 'O'}, data='label'), {'label': 'DOUBLE', 'bond_order': 2.0})
    """
    Chem = _chem()
    if not isinstance(mol, Chem.Mol):
        raise TypeError(f"mol must be an RDKit molecule (rdkit.Chem.Mol), got {type(mol).__name__}; "
                        "for a SMILES string use from_smiles")
    if not isinstance(hydrogens, bool):
        raise TypeError(f"hydrogens must be True or False, got {hydrogens!r}")
    if hydrogens:
        mol = Chem.AddHs(mol)
    G = nx.Graph()
    for atom in mol.GetAtoms():
        G.add_node(atom.GetIdx(), label=atom.GetSymbol(), atomic_number=atom.GetAtomicNum(),
                   formal_charge=atom.GetFormalCharge())
    for bond in mol.GetBonds():
        G.add_edge(bond.GetBeginAtomIdx(), bond.GetEndAtomIdx(), label=str(bond.GetBondType()),
                   bond_order=float(bond.GetBondTypeAsDouble()))
    return G


def from_smiles(smiles, *, hydrogens=False):
    """Return the molecule of a SMILES string as a labelled ``networkx.Graph``.

    One string, one graph. For many molecules there is nothing to convert: every
    function that takes graphs takes a list of SMILES strings too (they are read as
    :func:`read_smiles` reads them).

    Parameters
    ----------
    smiles : str
        One molecule in SMILES notation, e.g. ``"c1ccccc1"`` (benzene).
    hydrogens : bool, keyword-only
        If True, hydrogens are added as atoms (see :func:`from_mol`).

    Returns
    -------
    networkx.Graph
        As :func:`from_mol`; the graph attribute ``"smiles"`` holds the string.

    Raises
    ------
    ImportError
        If RDKit is not installed (the message says how to install it).
    TypeError
        If ``smiles`` is not a string (a list gets a hint: see above).
    ValueError
        If RDKit cannot read the string (or it holds no atom).

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> from graphinvariants.datasets import from_smiles
    >>> benzene, pyridine = from_smiles("c1ccccc1"), from_smiles("c1ccncc1")
    >>> sorted(set(nx.get_node_attributes(pyridine, "label").values()))
    ['C', 'N']
    >>> set(nx.get_edge_attributes(benzene, "label").values())
    {'AROMATIC'}
    >>> K = gi.kernel_matrix([benzene, pyridine], kernel="wl", node_label="label")
    >>> bool(K[0, 1] < 1)  # the same ring, told apart by the nitrogen
    True
    >>> K = gi.kernel_matrix(["c1ccccc1", "c1ccncc1"], kernel="wl")  # SMILES: atoms and bonds read
    >>> bool(K[0, 1] < 1)
    True
    """
    Chem = _chem()
    if not isinstance(smiles, str):
        hint = ""
        if isinstance(smiles, (list, tuple, np.ndarray)):
            hint = ("; from_smiles reads one SMILES string, and every function that takes graphs takes a list of "
                    "SMILES strings as it is (or [from_smiles(s) for s in smiles])")
        raise TypeError(f"smiles must be a SMILES string, got {type(smiles).__name__}{hint}")
    G = from_mol(_parsed(Chem, smiles), hydrogens=hydrogens)
    G.graph["smiles"] = smiles
    return G


def _parsed(Chem, smiles):
    """The RDKit molecule of a SMILES string; ValueError if RDKit cannot read it or it
    holds no atom."""
    from rdkit import rdBase

    with rdBase.BlockLogs():  # RDKit would print its own complaint to stderr
        mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        raise ValueError(f"RDKit cannot read {smiles!r} as a SMILES string")
    if mol.GetNumAtoms() == 0:
        raise ValueError(f"the SMILES string {smiles!r} holds no atom")
    return mol


def is_molecule_object(item):
    """Whether ``item`` is an RDKit molecule (``rdkit.Chem.Mol``), asked without
    importing RDKit (an object of its type exists only if RDKit was imported).

    Examples
    --------
    >>> from rdkit import Chem
    >>> from graphinvariants.graphs.smiles import is_molecule_object
    >>> is_molecule_object(Chem.MolFromSmiles("CCO")), is_molecule_object("CCO")
    (True, False)
    """
    import sys

    chem = sys.modules.get("rdkit.Chem")
    return chem is not None and isinstance(item, getattr(chem, "Mol", ()))


def is_smiles(graphs):
    """Whether ``graphs`` is a collection of molecules given as SMILES strings or RDKit
    molecules: a list, tuple or numpy array whose first item is a string or an
    ``rdkit.Chem.Mol`` (an array of strings counts whole). Such a collection is read by
    :func:`read_smiles` wherever graphs are taken.

    Examples
    --------
    >>> from rdkit import Chem
    >>> from graphinvariants.graphs.smiles import is_smiles
    >>> is_smiles(["CCO", "CC"]), is_smiles("CCO"), is_smiles([])
    (True, False, False)
    >>> is_smiles([Chem.MolFromSmiles("CCO")])
    True
    """
    if isinstance(graphs, np.ndarray):
        return graphs.ndim == 1 and graphs.size > 0 and (graphs.dtype.kind in "US" or isinstance(graphs[0], str)
                                                         or is_molecule_object(graphs[0]))
    return (isinstance(graphs, (list, tuple)) and len(graphs) > 0
            and (isinstance(graphs[0], str) or is_molecule_object(graphs[0])))


def mixed_message(first, item, i, *, what="graphs"):
    """The message that refuses a collection that mixes molecules (SMILES strings, RDKit
    molecules) and graphs, at its first item ``item`` (at position ``i``) of another
    kind than its item 0, ``first``: the same words whichever kind comes first.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphinvariants.graphs.smiles import mixed_message
    >>> print(mixed_message(nx.path_graph(3), "CCO", 1))  # doctest: +NORMALIZE_WHITESPACE
    graphs[1] is a molecule (a SMILES string), but graphs[0] is a graph (networkx.Graph): a collection is SMILES
    strings (or RDKit molecules) or graphs (SMILES strings and graphs are not mixed; from_smiles and from_mol turn
    one molecule into a graph)
    """

    def kind(item):
        if isinstance(item, str):
            return "molecule (a SMILES string)"
        if is_molecule_object(item):
            return "molecule (an rdkit.Chem.Mol)"
        module = type(item).__module__.split(".")[0]
        if module in ("networkx", "igraph"):
            return f"graph ({module}.{type(item).__name__})"
        return type(item).__name__

    return (f"{what}[{i}] is a {kind(item)}, but {what}[0] is a {kind(first)}: a collection is SMILES "
            "strings (or RDKit molecules) or graphs (SMILES strings and graphs are not mixed; from_smiles and "
            "from_mol turn one molecule into a graph)")


def read_smiles(graphs, *, what="graphs"):
    """The molecules of a collection of SMILES strings (or RDKit molecules), as
    :func:`from_smiles` (:func:`from_mol`) reads each (the atoms the string or molecule
    holds; element and bond type as ``"label"``).

    Parameters
    ----------
    graphs : list, tuple or numpy array of str or rdkit.Chem.Mol
    what : str, keyword-only
        Name of the argument, for error messages.

    Returns
    -------
    list of networkx.Graph

    Raises
    ------
    ImportError
        If RDKit is not installed (the ``[chem]`` extra).
    TypeError
        If an item is not a string (strings and graphs are not mixed); the message
        gives its position.
    ValueError
        If RDKit cannot read a string; the message gives its position and the string.

    Examples
    --------
    >>> from graphinvariants.graphs.smiles import read_smiles
    >>> [G.number_of_nodes() for G in read_smiles(["CCO", "c1ccccc1"])]
    [3, 6]
    >>> read_smiles(["CCO", "C1CC"])
    Traceback (most recent call last):
    ...
    ValueError: graphs[1]: RDKit cannot read 'C1CC' as a SMILES string
    """
    out = []
    for item, mol in _molecules(graphs, what):
        G = from_mol(mol)
        if isinstance(item, str):
            G.graph["smiles"] = item  # (as from_smiles gives it)
        out.append(G)
    return out


def _molecules(graphs, what):
    """``(item, molecule)`` for every item of a collection of SMILES strings or RDKit
    molecules, in order; the errors of :func:`read_smiles`, naming the position."""
    items = graphs.tolist() if isinstance(graphs, np.ndarray) else graphs
    # file names are not SMILES: say so before RDKit is asked (by their form: a SMILES
    # string may name a file of the working folder; RDKit's refusal names one below)
    hint = path_hint(items[0], exists=False) if len(items) else ""
    if hint:
        raise TypeError(f"{what}[0] is a string, but not a SMILES string{hint}")
    Chem = _chem()  # the extra's message before anything else
    for i, item in enumerate(items):
        if is_molecule_object(item):
            yield item, item
            continue
        if not isinstance(item, str):
            raise TypeError(mixed_message(items[0], item, i, what=what))
        try:
            yield item, _parsed(Chem, item)
        except ValueError as err:
            raise ValueError(f"{what}[{i}]: {err}{path_hint(item)}") from None


#: The node attributes of :func:`from_mol` by what gives them on an RDKit atom.
ATOM_VALUES = {"label": methodcaller("GetSymbol"), "atomic_number": methodcaller("GetAtomicNum"),
               "formal_charge": methodcaller("GetFormalCharge")}
#: The edge attributes of :func:`from_mol` by what gives them on an RDKit bond.
BOND_VALUES = {"label": lambda bond: str(bond.GetBondType()),
               "bond_order": lambda bond: float(bond.GetBondTypeAsDouble())}


def reads_straight(graphs, node_label=None, edge_label=None):
    """Whether ``graphs`` is a collection of molecules (:func:`is_smiles`) whose batch
    with these labels :func:`molecule_arrays` reads (labels of :data:`ATOM_VALUES` and
    :data:`BOND_VALUES`, or none)."""
    return node_label in (None, *ATOM_VALUES) and edge_label in (None, *BOND_VALUES) and is_smiles(graphs)


def molecule_arrays(graphs, *, node_label=None, edge_label=None, what="graphs"):
    """The arrays of the batch of a collection of SMILES strings (or RDKit molecules),
    read straight from RDKit's atoms and bonds: what
    :func:`~graphinvariants.graphs.as_graph_batch` builds from the graphs of
    :func:`read_smiles`, to the bit, without a NetworkX graph between (for one small
    molecule those graphs cost several times RDKit's own parse).

    Parameters
    ----------
    graphs : list, tuple or numpy array of str or rdkit.Chem.Mol
    node_label : None or a key of :data:`ATOM_VALUES`, keyword-only
    edge_label : None or a key of :data:`BOND_VALUES`, keyword-only
    what : str, keyword-only
        Name of the argument, for error messages.

    Returns
    -------
    CSRArrays
        The block-diagonal 0/1 adjacency's ``indptr`` and ``indices`` (int32), the
        ``offsets`` (int64), and one node label per atom, in RDKit's atom order, and one
        edge label per stored entry, in CSR order (both entries of a bond carry its
        value); None where not asked for.

    Raises
    ------
    ImportError, TypeError, ValueError
        As :func:`read_smiles` raises them.

    Examples
    --------
    >>> from graphinvariants.graphs.smiles import molecule_arrays
    >>> arrays = molecule_arrays(["C=O", "CC"], node_label="label", edge_label="label")
    >>> arrays.indptr.tolist(), arrays.indices.tolist(), arrays.offsets.tolist()
    ([0, 1, 2, 3, 4], [1, 0, 3, 2], [0, 2, 4])
    >>> arrays.node_labels.tolist(), arrays.edge_labels.tolist()
    (['C', 'O', 'C', 'C'], ['DOUBLE', 'DOUBLE', 'SINGLE', 'SINGLE'])
    """
    atom_value = None if node_label is None else ATOM_VALUES[node_label]
    bond_value = None if edge_label is None else BOND_VALUES[edge_label]
    sizes, atoms, begin, end, bonds = [], [], [], [], []
    n = 0
    for _, mol in _molecules(graphs, what):
        # atoms and bonds by index: RDKit's GetAtoms() and GetBonds() sequences cost a
        # Python call of RDKit's own per item, twice what the reads themselves cost
        size, atom, bond_at = mol.GetNumAtoms(), mol.GetAtomWithIdx, mol.GetBondWithIdx
        if atom_value is not None:
            atoms.extend([atom_value(atom(i)) for i in range(size)])
        for i in range(mol.GetNumBonds()):
            bond = bond_at(i)
            begin.append(bond.GetBeginAtomIdx() + n)
            end.append(bond.GetEndAtomIdx() + n)
            if bond_value is not None:
                bonds.append(bond_value(bond))
        sizes.append(size)
        n += size
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    # both entries of every bond, in CSR order (RDKit has no parallel bonds and no loops)
    rows, cols = np.array(begin + end, dtype=np.int64), np.array(end + begin, dtype=np.int32)
    order = np.argsort(rows * n + cols, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    node_labels = None if node_label is None else label_array(atoms)
    edge_labels = None
    if edge_label is not None:
        edge_labels = label_array(bonds + bonds, "edge")[order]
    return CSRArrays(indptr, cols[order], offsets, node_labels, edge_labels)


def holds_molecules(batch):
    """Whether every graph of a :class:`~graphinvariants.GraphBatch` reads as a
    molecule: its node labels are element symbols and its edge labels bond type names
    (what :func:`from_smiles`, :func:`from_mol`, lists of SMILES strings and
    :func:`~graphinvariants.datasets.as_molecules` give), and RDKit, which reads them,
    is installed (False without it: nothing is imported but RDKit, and only when the
    labels are strings).

    Examples
    --------
    >>> import networkx as nx
    >>> import graphinvariants as gi
    >>> from graphinvariants.graphs.smiles import holds_molecules
    >>> holds_molecules(gi.as_graph_batch(["CCO", "c1ccccc1"], node_label="label", edge_label="label"))
    True
    >>> holds_molecules(gi.as_graph_batch([nx.path_graph(3)]))
    False
    """
    labels, bonds = batch.node_labels, batch.edge_labels
    if labels is None or bonds is None or not len(labels):
        return False
    symbols, names = np.unique(labels), np.unique(bonds)
    if not all(isinstance(v, str) for v in symbols.tolist() + names.tolist()):
        return False
    try:
        from rdkit import Chem
    except ImportError:
        return False
    table = Chem.GetPeriodicTable()
    elements = {table.GetElementSymbol(z) for z in range(1, 119)}  # asked by number: RDKit prints no error
    known = set(Chem.BondType.names)
    return set(symbols.tolist()) <= elements and all(name.upper() in known for name in names.tolist())


def smiles_lines(source):
    """The SMILES of a file, one a line, read lazily: a path, or an open text file (any
    iterable of lines).

    Each line's first whitespace-separated field is its SMILES (a ``.smi`` file's name
    column is dropped); blank lines and lines starting with ``#`` are skipped. A header
    line (MOSES' ``SMILES``) is not recognised: drop it (``itertools.islice(lines, 1,
    None)``). :class:`~graphinvariants.NearestGraphs` and
    :meth:`GraphFeatures.fit_transform <graphinvariants.GraphFeatures.fit_transform>`
    take a path (``pathlib.Path``) or an open file this way and read it a block at a
    time; a string is never read as a path (it is a SMILES).

    Parameters
    ----------
    source : path-like or iterable of str

    Yields
    ------
    str

    Examples
    --------
    >>> import io
    >>> from graphinvariants.graphs.smiles import smiles_lines
    >>> list(smiles_lines(io.StringIO("# solvents\\nCCO ethanol\\n\\nc1ccccc1\\n")))
    ['CCO', 'c1ccccc1']
    """
    import os

    if isinstance(source, (str, bytes)):
        raise TypeError(f"smiles_lines reads a path-like object or an open text file, not a string: {source!r}; "
                        "give pathlib.Path(...) for a path")
    if isinstance(source, os.PathLike):
        with open(source, encoding="utf-8") as f:
            yield from smiles_lines(f)
        return
    for line in source:
        fields = line.split(None, 1)
        if fields and not fields[0].startswith("#"):
            yield fields[0]
