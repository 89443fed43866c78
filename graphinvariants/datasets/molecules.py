"""Molecules as labelled graphs: atoms are nodes, bonds are edges (needs RDKit).

:func:`from_smiles` and :func:`from_mol` turn a SMILES string or an RDKit molecule into
a ``networkx.Graph`` whose nodes are the atoms (numbered as RDKit numbers them) and
whose edges are the bonds, with what the labelled members read:

* node attribute ``"label"``: the element symbol (``"C"``, ``"N"``, ``"Cl"``);
  ``"atomic_number"`` (int) and ``"formal_charge"`` (int) too;
* edge attribute ``"label"``: the bond type's name, ``"SINGLE"``, ``"DOUBLE"``,
  ``"TRIPLE"`` or ``"AROMATIC"`` (RDKit's other types by their names);
  ``"bond_order"`` (float: 1, 2, 3, 1.5 for aromatic) too.

So ``node_label="label"`` compares atoms by element and ``edge_label="label"`` bonds by
type, as in the TU molecule data sets (whose labels are integer codes of the same).
RDKit is optional: ``pip install "graphinvariants[chem]"``; it is imported when one of
these functions is first called.
"""

import networkx as nx

from .._validation import import_extra

__all__ = ["TU_MOLECULES", "from_mol", "from_smiles", "to_mol"]


def _chem():
    """``rdkit.Chem``, or an ImportError saying how to install it."""
    return import_extra("rdkit.Chem", "chem", "molecules need RDKit")


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
        If ``smiles`` is not a string (for many, ``[from_smiles(s) for s in smiles]``).
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
    """
    Chem = _chem()
    if not isinstance(smiles, str):
        hint = "; for many molecules: [from_smiles(s) for s in smiles]" if isinstance(smiles, (list, tuple)) else ""
        raise TypeError(f"smiles must be a SMILES string, got {type(smiles).__name__}{hint}")
    from rdkit import rdBase

    with rdBase.BlockLogs():  # RDKit would print its own complaint to stderr
        mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        raise ValueError(f"RDKit cannot read {smiles!r} as a SMILES string")
    if mol.GetNumAtoms() == 0:
        raise ValueError(f"the SMILES string {smiles!r} holds no atom")
    G = from_mol(mol, hydrogens=hydrogens)
    G.graph["smiles"] = smiles
    return G


#: Element symbols and bond types of the TU molecule data sets, by their integer node
#: and edge labels (from each data set's README): ``name -> (atoms, bonds)``.
TU_MOLECULES = {
    "MUTAG": ({0: "C", 1: "N", 2: "O", 3: "F", 4: "I", 5: "Cl", 6: "Br"},
              {0: "AROMATIC", 1: "SINGLE", 2: "DOUBLE", 3: "TRIPLE"}),
    "Mutagenicity": ({0: "C", 1: "O", 2: "Cl", 3: "H", 4: "N", 5: "F", 6: "Br", 7: "S", 8: "P", 9: "I", 10: "Na",
                      11: "K", 12: "Li", 13: "Ca"},
                     {0: "SINGLE", 1: "DOUBLE", 2: "TRIPLE"}),
}


def to_mol(G, *, atoms=None, bonds=None):
    """Return a labelled graph as an RDKit molecule, atoms in the graph's node order.

    The inverse of :func:`from_mol` (node ``"label"``: element symbol; edge
    ``"label"``: bond type name), and for the TU molecule sets, whose labels are
    integer codes, with their maps (:data:`TU_MOLECULES`).

    Parameters
    ----------
    G : networkx.Graph
        Nodes with a ``"label"`` attribute (an element symbol, an atomic number, or a
        code that ``atoms`` maps to one) and optionally ``"formal_charge"``; edges with a ``"label"`` (a bond type name
        such as ``"DOUBLE"``, or a code that ``bonds`` maps to one).
    atoms, bonds : dict, optional, keyword-only
        Node label -> element symbol, edge label -> bond type name.

    Returns
    -------
    rdkit.Chem.Mol
        Atom ``i`` is the ``i``-th node of ``G``. The molecule is sanitised as far as its
        valences allow: the TU sets draw nitro groups with a pentavalent nitrogen and no
        charges, which RDKit's valence check refuses, so that check is skipped and
        rings, aromaticity and conjugation are set.

    Raises
    ------
    ImportError
        If RDKit is not installed.
    ValueError
        If a node or edge has no label, or a label is not an element or bond type.

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
    """
    Chem = _chem()
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
            raise ValueError(f"edge {(u, v)!r}: {name!r} is not a bond type name (SINGLE, DOUBLE, TRIPLE, AROMATIC)")
        mol.AddBond(index[u], index[v], kind)
        if kind == Chem.BondType.AROMATIC:
            for end in (u, v):
                mol.GetAtomWithIdx(index[end]).SetIsAromatic(True)
            mol.GetBondBetweenAtoms(index[u], index[v]).SetIsAromatic(True)
    mol = mol.GetMol()
    mol.UpdatePropertyCache(strict=False)
    flags = Chem.SanitizeFlags
    Chem.SanitizeMol(mol, flags.SANITIZE_SYMMRINGS | flags.SANITIZE_SETCONJUGATION | flags.SANITIZE_SETHYBRIDIZATION,
                     catchErrors=True)
    return mol
