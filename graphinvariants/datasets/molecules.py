"""Molecules as labelled graphs: atoms are nodes, bonds are edges (needs RDKit).

:func:`from_smiles` and :func:`from_mol` (from ``graphinvariants.graphs.smiles``,
which describes their attributes) turn a SMILES string or an RDKit molecule into a
``networkx.Graph`` of atoms labelled by element symbol and bonds labelled by bond type
name.

So ``node_label="label"`` compares atoms by element and ``edge_label="label"`` bonds by
type, as in the TU molecule data sets, whose labels are integer codes of the same:
:func:`as_molecules` gives such a data set element symbols and bond type names
(:data:`TU_MOLECULES`), so that it and molecules from SMILES share one vocabulary, and
:func:`to_mol` reads a TU graph's codes by its data set's tables.
RDKit is optional: ``pip install "graphinvariants[chem]"``; it is imported when one of
these functions is first called (:func:`as_molecules` does not need it).
"""

import numpy as np

from .._utils.optional import import_extra
from ..graphs import GraphBatch
from ..graphs.smiles import from_mol, from_smiles
from .tu import TUDataset

__all__ = ["TU_MOLECULES", "as_molecules", "atom_symbols", "from_mol", "from_smiles", "to_mol"]


def _chem():
    """``rdkit.Chem``, or an ImportError saying how to install it."""
    return import_extra("rdkit.Chem", needs="molecules need RDKit")


#: Element symbols and bond types of the TU molecule data sets, by their integer node
#: and edge labels (from each data set's README): ``name -> (atoms, bonds)``.
TU_MOLECULES = {
    "MUTAG": ({0: "C", 1: "N", 2: "O", 3: "F", 4: "I", 5: "Cl", 6: "Br"},
              {0: "AROMATIC", 1: "SINGLE", 2: "DOUBLE", 3: "TRIPLE"}),
    "Mutagenicity": ({0: "C", 1: "O", 2: "Cl", 3: "H", 4: "N", 5: "F", 6: "Br", 7: "S", 8: "P", 9: "I", 10: "Na",
                      11: "K", 12: "Li", 13: "Ca"},
                     {0: "SINGLE", 1: "DOUBLE", 2: "TRIPLE"}),
}


#: The element symbols, by atomic number (1..118), so that no RDKit is needed to tell one.
_ELEMENTS = frozenset("""
H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr
Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb
Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md No Lr Rf
Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og""".split())


def _tables_of(name):
    """The :data:`TU_MOLECULES` entry of a data set or graph name such as ``"MUTAG"``,
    ``"MUTAG[0:10]"`` or ``"MUTAG[3]"`` (what a TUDataset calls its slices and
    graphs), or None."""
    if not isinstance(name, str):
        return None, None
    base = name.partition("[")[0]
    return base, TU_MOLECULES.get(base)


def as_molecules(dataset, *, atoms=None, bonds=None):
    """Return a TU molecule data set with element symbols and bond type names as labels.

    The TU molecule sets (MUTAG, Mutagenicity) label atoms and bonds by integer codes;
    molecules read from SMILES (:func:`from_smiles`, or a list of SMILES strings given
    wherever graphs are taken) carry element symbols and bond type names. Kernels
    compare labels by equality, so the two are searched and compared together only on
    one vocabulary: this one.

    Parameters
    ----------
    dataset : TUDataset
        A TU data set (or a slice of one) with node and edge labels.
    atoms, bonds : dict, optional, keyword-only
        Node label -> element symbol and edge label -> bond type name; by default
        ``TU_MOLECULES[name]`` for the data set's name (slices keep it).

    Returns
    -------
    TUDataset
        The same graphs, classes and attributes, with string labels; its name is the
        data set's. MUTAG, like SMILES read without ``hydrogens``, has heavy atoms
        only and aromatic bonds as ``"AROMATIC"``; Mutagenicity holds its hydrogens
        as atoms and Kekulé bonds (``"SINGLE"`` and ``"DOUBLE"``, never
        ``"AROMATIC"``). To read SMILES into Mutagenicity's vocabulary, kekulize the
        molecule and read it with :func:`from_mol` and ``hydrogens=True``, as in the
        last example: ``from_smiles(s, hydrogens=True)`` parses the SMILES again and
        keeps its aromatic bonds.

    Raises
    ------
    TypeError
        If ``dataset`` is not a TUDataset.
    ValueError
        If it has no node or edge labels, there is no table for its name and none is
        given, or a label has no entry in the table (the message names it).

    Examples
    --------
    >>> import graphinvariants as gi
    >>> from graphinvariants.datasets import as_molecules
    >>> mutag = as_molecules(gi.load_tu("MUTAG"))
    >>> mutag
    <TUDataset MUTAG: 188 graphs, 2 classes, 3371 nodes, 3721 edges; node labels, edge labels>
    >>> sorted(set(dict(mutag[0].nodes(data="label")).values())), mutag[0].edges[0, 1]
    (['C', 'N', 'O'], {'label': 'AROMATIC'})
    >>> search = gi.NearestGraphs(kernel="wl", n_neighbors=1).fit(mutag)  # reads its atoms and bonds
    >>> search.kneighbors(["c1ccc2ccccc2c1[N+](=O)[O-]"])  # SMILES against MUTAG: 1-nitronaphthalene is there
    (array([[0.]]), array([[39]]))
    >>> search.kneighbors(["CCCCCCO", "CCCCCCS"])[0].round(3).ravel().tolist()  # the atoms count
    [0.853, 0.869]

    A SMILES string in Mutagenicity's vocabulary (hydrogens as atoms, Kekulé bonds):

    >>> from rdkit import Chem
    >>> from graphinvariants.datasets import from_mol
    >>> mol = Chem.MolFromSmiles("c1ccccc1[N+](=O)[O-]")
    >>> Chem.Kekulize(mol, clearAromaticFlags=True)
    >>> G = from_mol(mol, hydrogens=True)
    >>> sorted(set(dict(G.nodes(data="label")).values())), sorted({b for _, _, b in G.edges(data="label")})
    (['C', 'H', 'N', 'O'], ['DOUBLE', 'SINGLE'])
    """
    if not isinstance(dataset, TUDataset):
        raise TypeError(f"dataset must be a TUDataset (gi.load_tu), got {type(dataset).__name__}")
    name, tables = _tables_of(dataset.name)
    if atoms is None or bonds is None:
        if tables is None:
            raise ValueError(f"there are no atom and bond tables for {name!r} (TU_MOLECULES has "
                             f"{', '.join(sorted(TU_MOLECULES))}): pass atoms= (node label -> element symbol) and "
                             "bonds= (edge label -> bond type name) from the data set's README")
        atoms = tables[0] if atoms is None else atoms
        bonds = tables[1] if bonds is None else bonds
    batch = dataset.batch
    if batch.node_labels is None or batch.edge_labels is None:
        raise ValueError(f"{dataset.name} has no {'node' if batch.node_labels is None else 'edge'} labels to "
                         "read as atoms and bonds")
    node_labels = _translated(batch.node_labels, atoms, "atoms", "node")
    edge_labels = _translated(batch.edge_labels, bonds, "bonds", "edge")
    molecules = GraphBatch(batch.matrix, batch.offsets, weighted=batch.weighted, node_labels=node_labels,
                           edge_labels=edge_labels, node_attributes=batch.node_attributes)
    return TUDataset(dataset.name, molecules, dataset.y, dataset.path, dataset.edge_attributes)


def _separate_charges(mol, Chem):
    """Write the neutral nitrogens of a molecule without charges (the TU sets') with
    their formal charges, in place: a nitrogen of four bonds is ``N+``, and a terminal
    oxygen single-bonded to it is ``O-``; a nitrogen of five (``N(=O)=O``) first has one
    of its terminal ``=O`` made single. So a nitro group is ``[N+](=O)[O-]`` (RDKit would
    otherwise give the singly bonded oxygen a hydrogen: ``N(=O)O``, an N-hydroxy group)
    and an N-oxide ``[N+][O-]``. Nitrogens with charges given, or with an aromatic
    valence that is not a whole number, are left alone."""
    single, double = Chem.BondType.SINGLE, Chem.BondType.DOUBLE
    for atom in mol.GetAtoms():
        if atom.GetSymbol() != "N" or atom.GetFormalCharge() != 0:
            continue
        valence = sum(bond.GetBondTypeAsDouble() for bond in atom.GetBonds())
        if valence not in (4.0, 5.0):
            continue
        terminal = [(bond, bond.GetOtherAtom(atom)) for bond in atom.GetBonds()
                    if bond.GetOtherAtom(atom).GetSymbol() == "O" and bond.GetOtherAtom(atom).GetDegree() == 1
                    and bond.GetOtherAtom(atom).GetFormalCharge() == 0]
        if valence == 5.0:
            doubles = [(bond, oxygen) for bond, oxygen in terminal if bond.GetBondType() == double]
            if not doubles:
                continue
            doubles[-1][0].SetBondType(single)
        atom.SetFormalCharge(1)
        singles = [oxygen for bond, oxygen in terminal if bond.GetBondType() == single]
        if singles:
            singles[0].SetFormalCharge(-1)


def atom_symbols(G):
    """Each node's element symbol, where the graph's labels name elements, else None.

    A graph of a TU molecule set (its ``G.graph["name"]`` such as ``"MUTAG[3]"``, as
    the data set gives its graphs) has its integer codes read by :data:`TU_MOLECULES`; a
    molecule read from SMILES or RDKit (:func:`from_smiles`, :func:`from_mol`), or a
    graph of :func:`as_molecules`, has the symbols as labels already.

    Parameters
    ----------
    G : networkx.Graph

    Returns
    -------
    dict or None
        Node -> element symbol, or None when some node has no label or a label that is
        not an element.

    Examples
    --------
    >>> import graphinvariants as gi
    >>> from graphinvariants.datasets import atom_symbols, from_smiles
    >>> atom_symbols(from_smiles("CCO"))
    {0: 'C', 1: 'C', 2: 'O'}
    >>> symbols = atom_symbols(gi.load_tu("MUTAG")[0])  # integer codes read by MUTAG's table
    >>> sorted(set(symbols.values()))
    ['C', 'N', 'O']
    >>> import networkx as nx
    >>> atom_symbols(nx.path_graph(3)) is None
    True
    """
    _, tables = _tables_of(G.graph.get("name"))
    atoms = tables[0] if tables is not None else {}
    symbols = {}
    for v, label in G.nodes(data="label"):
        symbol = atoms.get(label, label) if isinstance(label, (int, np.integer)) else label
        if not isinstance(symbol, str) or symbol not in _ELEMENTS:
            return None
        symbols[v] = symbol
    return symbols


def _translated(labels, table, option, kind):
    """``labels`` through ``table`` as one string array (the codes looked up once)."""
    codes, place = np.unique(labels, return_inverse=True)
    missing = [code for code in codes.tolist() if code not in table]
    if missing:
        raise ValueError(f"{kind} label {missing[0]!r} has no entry in {option}= ({dict(table)!r})")
    return np.array([str(table[code]) for code in codes.tolist()])[place.reshape(-1)]


def to_mol(G, *, atoms=None, bonds=None):
    """Return a labelled graph as an RDKit molecule, atoms in the graph's node order.

    The inverse of :func:`from_mol` (node ``"label"``: element symbol; edge
    ``"label"``: bond type name), and for the TU molecule sets, whose labels are
    integer codes, with their maps (:data:`TU_MOLECULES`): a graph of a TU data set
    (``mutag[150]``, whose ``G.graph["name"]`` is ``"MUTAG[150]"``) is read by its
    data set's tables unless ``atoms`` or ``bonds`` is given.

    Parameters
    ----------
    G : networkx.Graph
        Nodes with a ``"label"`` attribute (an element symbol, an atomic number, or a
        code that ``atoms`` maps to one) and optionally ``"formal_charge"``; edges with a ``"label"`` (a bond type name
        such as ``"DOUBLE"``, or a code that ``bonds`` maps to one).
    atoms, bonds : dict, optional, keyword-only
        Node label -> element symbol, edge label -> bond type name; by default, for a
        graph named after a data set of :data:`TU_MOLECULES`, that data set's.

    Returns
    -------
    rdkit.Chem.Mol
        Atom ``i`` is the ``i``-th node of ``G``. The TU sets carry no charges: their
        nitro groups are drawn with a neutral nitrogen of four bonds (MUTAG) or five
        (Mutagenicity, ``N(=O)=O``), which RDKit would read as an N-hydroxy group or
        refuse. A neutral nitrogen of four bonds is written ``N+``, and a terminal
        oxygen singly bonded to it ``O-`` (one ``=O`` of a five-bond nitrogen made
        single first): nitro groups are ``[N+](=O)[O-]``, N-oxides ``[N+][O-]``. The
        molecule is then sanitised as far as its valences allow (the valence check is
        skipped, for the few graphs whose drawing is wrong otherwise; rings,
        aromaticity and conjugation are set).

    Raises
    ------
    ImportError
        If RDKit is not installed.
    ValueError
        If a node or edge has no label, or a label is not an element or bond type
        (integer bond codes without a table: the message says how to give one).

    Examples
    --------
    >>> from rdkit import Chem
    >>> from graphinvariants.datasets import from_smiles, to_mol
    >>> Chem.MolToSmiles(to_mol(from_smiles("c1ccccc1[N+](=O)[O-]")))
    'O=[N+]([O-])c1ccccc1'
    >>> import networkx as nx
    >>> from graphinvariants.datasets.molecules import TU_MOLECULES
    >>> G = nx.Graph([(0, 1, {"label": 1})]); nx.set_node_attributes(G, {0: 0, 1: 1}, "label")
    >>> Chem.MolToSmiles(to_mol(G, atoms=TU_MOLECULES["Mutagenicity"][0], bonds=TU_MOLECULES["Mutagenicity"][1]))
    'C=O'
    >>> import graphinvariants as gi
    >>> Chem.MolToSmiles(to_mol(gi.load_tu("MUTAG")[0]))  # MUTAG's own tables; its nitro group charged
    'O=[N+]([O-])c1ccc2c(ccc3ccccc32)c1'
    """
    Chem = _chem()
    if atoms is None and bonds is None:
        name, tables = _tables_of(G.graph.get("name"))
        if tables is not None:
            atoms, bonds = tables
    index = {v: i for i, v in enumerate(G)}
    mol = Chem.RWMol()
    for v, data in G.nodes(data=True):
        if "label" not in data:
            raise ValueError(f"node {v!r} has no 'label' attribute (its element)")
        symbol = atoms.get(data["label"], data["label"]) if atoms is not None else data["label"]
        try:
            atom = Chem.Atom(int(symbol) if isinstance(symbol, int) else str(symbol))
        except RuntimeError:
            raise ValueError(f"node {v!r}: {symbol!r} is not an element symbol or atomic number") from None
        atom.SetFormalCharge(int(data.get("formal_charge", 0)))
        mol.AddAtom(atom)
    for u, v, data in G.edges(data=True):
        if "label" not in data:
            raise ValueError(f"edge {(u, v)!r} has no 'label' attribute (its bond type)")
        name = bonds.get(data["label"], data["label"]) if bonds is not None else data["label"]
        kind = getattr(Chem.BondType, str(name).upper(), None) if isinstance(name, str) else None
        if kind is None:
            hint = ""
            if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
                hint = ("; integer codes, as a TU data set's: pass atoms=TU_MOLECULES[NAME][0], "
                        "bonds=TU_MOLECULES[NAME][1] (data sets: " + ", ".join(sorted(TU_MOLECULES)) + "), or take the "
                        "graph from as_molecules(dataset), whose labels are element symbols and bond type names")
            raise ValueError(f"edge {(u, v)!r}: {name!r} is not a bond type name (SINGLE, DOUBLE, TRIPLE, "
                             f"AROMATIC){hint}")
        mol.AddBond(index[u], index[v], kind)
        if kind == Chem.BondType.AROMATIC:
            for end in (u, v):
                mol.GetAtomWithIdx(index[end]).SetIsAromatic(True)
            mol.GetBondBetweenAtoms(index[u], index[v]).SetIsAromatic(True)
    _separate_charges(mol, Chem)
    mol = mol.GetMol()
    mol.UpdatePropertyCache(strict=False)
    flags = Chem.SanitizeFlags
    Chem.SanitizeMol(mol, flags.SANITIZE_SYMMRINGS | flags.SANITIZE_SETCONJUGATION | flags.SANITIZE_SETHYBRIDIZATION,
                     catchErrors=True)
    return mol
