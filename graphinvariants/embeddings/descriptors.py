"""Molecules' own numbers: an RBF kernel on standardised RDKit 2D descriptors.

Every other member counts local structure (subtrees, walks, rooted subgraphs). What
drives solubility or solvation is mostly global: lipophilicity, polar surface, size.
:class:`MolecularDescriptors` reads each graph as a molecule, computes RDKit 2D
descriptors (by default every one but a few, :func:`rdkit_descriptors`), standardises
each column on the data it is fitted on, and compares molecules by the RBF kernel of
the standardised rows::

    K(G, H) = exp(-|z_G - z_H|^2 / (2 h^2)),   z = (descriptors - mean) / std

It is the mean map of :class:`~graphinvariants.embeddings.PropagatedAttributes` with one
"node" per molecule (its descriptor row), so it inherits that functional's fitted scaling
and bandwidth, its exact sums and random Fourier features: ``K(G, G) == 1`` and
``K(G, H) == K(H, G)`` to the last bit, PSD, and ``n_features=D`` gives an explicit map
(:class:`~graphinvariants.GraphFeatures` rows are then those random features; without
it the exact RBF is mapped there by Nystroem, as every approximate term is).

Fitted parameters, as for node attributes: the column means and standard deviations
and the bandwidth ``h = bandwidth_scale * median distance`` between the standardised
rows come from the graphs the functional is fitted on (the Gram matrix's, both sides of
a cross matrix, :class:`~graphinvariants.GraphKernel`'s training graphs), and every
later batch uses the same numbers.

What a molecule is. The graph's node labels must be element symbols and its edge labels
bond type names (``node_label="label"``, ``edge_label="label"``: what
:func:`~graphinvariants.datasets.from_smiles`, :func:`~graphinvariants.datasets.from_mol`,
lists of SMILES strings and :func:`~graphinvariants.datasets.as_molecules` give); each
graph becomes an RDKit molecule by :func:`~graphinvariants.datasets.to_mol`, atoms in
RDKit's canonical order (so a renumbered graph gives the same descriptors to the last
bit). The molecule is read from those labels only, as the other members read it: the
formal charges and hydrogen counts a SMILES string spells are not kept (a graph batch
holds neither), so ``[nH]`` is read as an aromatic nitrogen without hydrogen and a
carboxylate as its acid; :func:`~graphinvariants.datasets.to_mol`'s reading of a
charge-separated group decides its descriptors. Reading every input the same way keeps
the kernel of a SMILES string and of its graph equal, and explanations complete.

A value RDKit gives as NaN or infinite (``LabuteASA`` of ``[Cm][Cm]``: RDKit has no
radius for curium) is imputed, and a warning says so, naming the molecule and the
descriptor: the column statistics are fitted on the finite values, and a missing value
reads as its column's fitted mean (a standardised 0). One odd molecule thus neither
sinks a fit on a whole collection nor moves the other molecules' values.

Explanations. Some descriptors are sums over atoms, and RDKit gives each atom's part
(:data:`ADDITIVE`, :func:`atom_contributions`, :meth:`MolecularDescriptors.atom_values`:
Crippen logP and MR, TPSA, Labute ASA, the molecular weights and the 57 VSA descriptors,
63 of the default set's 201). :func:`~graphinvariants.explain` splits their share of a
prediction over the atoms exactly, and samples only the rest
(:mod:`graphinvariants.explanations._descriptors`, docs/explanations.rst).

Cost by size. Most descriptors take time linear in the atoms; a few read the distance
matrix or walk the whole molecule (the E-state indices, ``BertzCT``, ``BalabanJ``), so a
molecule far larger than a drug costs more than its share. One molecule at a time, median
of 3 (measured by the timing that is now the asv benchmark
``embeddings.DescriptorsBySize``, ``asv run --bench DescriptorsBySize``; RDKit 2026.09, a 2-core
machine shared with other jobs, so the large sizes are slower than on a quiet one)::

    heavy atoms   molecule           default set (201)   BASIC_DESCRIPTORS   AvgIpc alone
    101           vancomycin         24 ms               1.1 ms              85 ms
    100           a carbon chain     71 ms               1.0 ms              13 ms
    200           a carbon chain     0.15 s              1.6 ms              3.1 s
    400           a carbon chain     0.60 s              3.0 ms              25 s
    800           a carbon chain     7.6 s               8.8 ms              117 s
    1,200         a carbon chain     42 s                22 ms               (NaN, issue 52)

``AvgIpc`` is left out of the default set because it does not scale (and gave NaN for a
1,200-atom chain after 80 s). For molecules of hundreds of atoms, take
``descriptors=BASIC_DESCRIPTORS``, which stays near-linear.
"""

import warnings

import numpy as np

from .._utils.optional import import_extra
from .._utils.validation import refuses_random_state
from .attributes import PropagatedAttributes
from .meanmap import MeanMapBatch

__all__ = ["ADDITIVE", "BASIC_DESCRIPTORS", "EXCLUDED", "MolecularDescriptors", "atom_contributions",
           "batch_molecules", "descriptor_table", "not_finite_message", "rdkit_descriptors"]

#: A dozen common descriptors (names in ``rdkit.Chem.Descriptors.descList``):
#: lipophilicity (Crippen logP and molar refractivity), size (weight, heavy atoms, valence
#: electrons), polarity (topological polar surface, hydrogen-bond donors and acceptors),
#: rings and aromaticity, flexibility (rotatable bonds) and saturation (sp3 carbon share).
#: ``descriptors=BASIC_DESCRIPTORS`` is the cheap choice (0.6 ms a molecule).
BASIC_DESCRIPTORS = ("MolLogP", "MolWt", "TPSA", "NumHDonors", "NumHAcceptors", "RingCount", "NumRotatableBonds",
                     "FractionCSP3", "NumAromaticRings", "HeavyAtomCount", "MolMR", "NumValenceElectrons")

#: RDKit descriptors the default (``descriptors="rdkit"``) leaves out: the partial charges
#: and the BCUT2D descriptors (Gasteiger charges, not finite for some elements), ``Ipc``
#: (values up to 1e10), ``AvgIpc`` (its time grows about as the cube of the atoms: 27 s
#: for an 800-atom chain, NaN for a 1,200-atom one), and ``qed`` and ``SPS``, a quarter
#: of the time of all the rest together.
EXCLUDED = ("MaxPartialCharge", "MinPartialCharge", "MaxAbsPartialCharge", "MinAbsPartialCharge", "Ipc", "AvgIpc",
            "qed", "SPS", "BCUT2D_MWHI", "BCUT2D_MWLOW", "BCUT2D_CHGHI", "BCUT2D_CHGLO", "BCUT2D_LOGPHI",
            "BCUT2D_LOGPLOW", "BCUT2D_MRHI", "BCUT2D_MRLOW")


def rdkit_descriptors():
    """The names of the default descriptors, ``descriptors="rdkit"``: every 2D descriptor
    of the installed RDKit (``rdkit.Chem.Descriptors.descList``: 2026.09 has 217, of which
    201 are taken) but
    :data:`EXCLUDED`, in RDKit's order.

    Examples
    --------
    >>> from graphinvariants.embeddings.descriptors import BASIC_DESCRIPTORS, rdkit_descriptors
    >>> set(BASIC_DESCRIPTORS) <= set(rdkit_descriptors())
    True
    """
    return tuple(name for name in _rdkit_descriptors() if name not in EXCLUDED)


def _rdkit_descriptors():
    """``name -> function`` of RDKit's 2D descriptors, or the ImportError of the extra."""
    module = import_extra("rdkit.Chem.Descriptors", needs="the descriptors member needs RDKit")
    return dict(module.descList)


def _not_molecules(what, reason):
    return ValueError(f"{what} are not molecules ({reason}): the descriptors member reads graphs whose node labels "
                      "are element symbols and edge labels bond type names (from_smiles, from_mol, a list of SMILES "
                      "strings, or a TU molecule set through as_molecules)")


def batch_molecules(batch, *, what="graphs", canonical=True):
    """The graphs of a :class:`~graphinvariants.GraphBatch` as RDKit molecules.

    Each graph goes through :func:`~graphinvariants.datasets.to_mol` (node label: element
    symbol, edge label: bond type name), and its atoms are put in RDKit's canonical
    order (``CanonicalRankAtoms``, ties broken), so that a graph with its nodes numbered
    otherwise gives the same molecule, atom for atom.

    Parameters
    ----------
    batch : GraphBatch
        Read with node and edge labels.
    what : str, keyword-only
        Name of the argument, for error messages.
    canonical : bool, keyword-only, default=True
        False: the atoms stay in the graph's node order (atom ``i`` is node ``i``), as
        :func:`atom_contributions` reads them.

    Returns
    -------
    list of rdkit.Chem.Mol

    Raises
    ------
    ImportError
        If RDKit is not installed (the ``[chem]`` extra).
    ValueError
        If the graphs carry no node or edge labels, or labels that are not element
        symbols and bond type names (integer codes of a TU set: read it through
        :func:`~graphinvariants.datasets.as_molecules`); the message names the graph.

    Examples
    --------
    >>> import graphinvariants as gi
    >>> from rdkit import Chem
    >>> from graphinvariants.embeddings import batch_molecules
    >>> batch = gi.as_graph_batch(["OCC", "c1ccccc1"], node_label="label", edge_label="label")
    >>> [Chem.MolToSmiles(m) for m in batch_molecules(batch)]
    ['CCO', 'c1ccccc1']
    """
    import networkx as nx

    Chem = import_extra("rdkit.Chem", needs="the descriptors member needs RDKit")
    from ..datasets.molecules import to_mol

    labels, bonds = batch.node_labels, batch.edge_labels
    if labels is None or bonds is None:
        raise _not_molecules(what, f"they carry no {'node' if labels is None else 'edge'} labels")
    for values, kind in ((labels, "node"), (bonds, "edge")):
        if len(values) and not (values.dtype.kind == "U" or all(isinstance(v, str) for v in values.tolist())):
            first = next(v for v in values.tolist() if not isinstance(v, str))
            raise _not_molecules(what, f"{kind} label {first!r} is not a name; integer codes of a TU data set "
                                       "become element symbols and bond types through as_molecules")
    A = batch.matrix.tocsr()
    offsets = np.asarray(batch.offsets)
    molecules = []
    for g in range(len(offsets) - 1):
        a, b = int(offsets[g]), int(offsets[g + 1])
        G = nx.Graph()
        G.add_nodes_from((i, {"label": str(labels[a + i])}) for i in range(b - a))
        for row in range(a, b):  # every stored entry: an arc of a directed graph is a bond too
            for p in range(A.indptr[row], A.indptr[row + 1]):
                if int(A.indices[p]) != row and not G.has_edge(row - a, int(A.indices[p]) - a):
                    G.add_edge(row - a, int(A.indices[p]) - a, label=str(bonds[p]))
        try:
            mol = to_mol(G)
        except ValueError as err:
            raise _not_molecules(f"{what}[{g}]", str(err)) from None
        if canonical and mol.GetNumAtoms():
            ranks = list(Chem.CanonicalRankAtoms(mol, breakTies=True))
            mol = Chem.RenumberAtoms(mol, sorted(range(len(ranks)), key=ranks.__getitem__))
        molecules.append(mol)
    return molecules


#: Descriptor rows kept by :func:`cached_descriptor_table` (about 10 MB of 200 descriptors).
CACHE_SIZE = 2**13
_CACHE = {}


def cached_descriptor_table(molecules, names, *, what="graphs"):
    """:func:`descriptor_table`, each molecule's row kept by its canonical SMILES (with
    explicit hydrogens spelled) and the names, up to :data:`CACHE_SIZE` rows. Molecules
    that share a canonical SMILES, put in canonical atom order as
    :func:`batch_molecules` does, are the same molecule atom for atom, so a kept row is
    the row the molecule would get, to the last bit: the cache changes no value. The
    learned default is fitted on many training parts of one collection
    (cross-validation), and each part reads its molecules anew. An error names the
    molecule by its position in ``molecules``, cached or not."""
    from rdkit import Chem

    keys = [(Chem.MolToSmiles(mol, canonical=True), tuple(names)) for mol in molecules]
    missing = [i for i, key in enumerate(keys) if key not in _CACHE]
    computed = _table([molecules[i] for i in missing], names, missing, what)
    table = np.empty((len(molecules), len(names)))
    if missing:
        table[missing] = computed
    for i, key in enumerate(keys):
        if key in _CACHE:
            table[i] = _CACHE[key]
    if len(_CACHE) + len(missing) > CACHE_SIZE:
        _CACHE.clear()
    for row, i in zip(computed, missing):
        _CACHE[keys[i]] = row
    return table


def descriptor_table(molecules, names=BASIC_DESCRIPTORS, *, what="graphs"):
    """RDKit descriptors of molecules, one row per molecule.

    Parameters
    ----------
    molecules : sequence of rdkit.Chem.Mol
    names : sequence of str, default=BASIC_DESCRIPTORS
        Names in ``rdkit.Chem.Descriptors.descList``.
    what : str, keyword-only
        Name of the argument, for error messages.

    Returns
    -------
    numpy.ndarray of shape (len(molecules), len(names))
        NaN where RDKit's value is not finite (NaN or infinite: ``LabuteASA`` of
        ``[Cm][Cm]``); :func:`not_finite_message` says where.

    Raises
    ------
    ValueError
        If a name is not an RDKit descriptor, or RDKit fails on a molecule (the
        message names the molecule and the descriptor).

    Examples
    --------
    >>> from rdkit import Chem
    >>> from graphinvariants.embeddings import descriptor_table
    >>> descriptor_table([Chem.MolFromSmiles("CCO")], ["HeavyAtomCount", "NumHDonors"]).tolist()
    [[3.0, 1.0]]
    """
    return _table(molecules, names, range(len(molecules)), what)


def _table(molecules, names, positions, what):
    """:func:`descriptor_table` of ``molecules``, whose positions in the caller's
    collection (for messages) are ``positions``."""
    functions = _rdkit_descriptors()
    unknown = [name for name in names if name not in functions]
    if unknown:
        raise ValueError(f"{unknown[0]!r} is not an RDKit descriptor (rdkit.Chem.Descriptors.descList)")
    table = np.empty((len(molecules), len(names)))
    for i, (position, mol) in enumerate(zip(positions, molecules)):
        for j, name in enumerate(names):
            try:
                table[i, j] = functions[name](mol)
            except Exception as err:  # RDKit raises its own errors (RuntimeError, Boost's) on broken molecules
                raise ValueError(f"{what}[{position}]: RDKit cannot compute {name} ({type(err).__name__}: "
                                 f"{err})") from None
    table[~np.isfinite(table)] = np.nan
    return table


def not_finite_message(table, names, *, what="graphs"):
    """What a warning says of the values of ``table`` (:func:`descriptor_table`) that are
    not finite, or None when every value is: the first molecule and descriptor by name,
    and how many values of how many molecules.

    Examples
    --------
    >>> import numpy as np
    >>> from graphinvariants.embeddings.descriptors import not_finite_message
    >>> print(not_finite_message(np.array([[1.0, 2.0], [3.0, np.nan]]), ["MolWt", "LabuteASA"]))
    graphs[1]: RDKit's LabuteASA is not finite (1 value of 1 molecule in all)
    """
    where = np.argwhere(np.isnan(table))
    if not len(where):
        return None
    i, j = where[0]
    count, molecules = len(where), len(np.unique(where[:, 0]))
    return (f"{what}[{i}]: RDKit's {names[j]} is not finite ({count} value{'s' * (count > 1)} of {molecules} "
            f"molecule{'s' * (molecules > 1)} in all)")


def _folded(mol, full, values):
    """Per-atom ``values`` of ``full`` (``mol`` with its implicit hydrogens made atoms,
    appended by ``AddHs``) for the atoms of ``mol``: a hydrogen that is not an atom of
    ``mol`` is added to the heavy atom it is bonded to."""
    out = np.array(values[: mol.GetNumAtoms()], dtype=np.float64)
    for atom in list(full.GetAtoms())[mol.GetNumAtoms() :]:
        out[atom.GetNeighbors()[0].GetIdx()] += values[atom.GetIdx()]
    return out


def _crippen(mol, Chem, R):
    """Crippen's per-atom logP and MR (two columns), computed as ``MolLogP`` computes
    them: on the molecule with every hydrogen an atom."""
    full = Chem.AddHs(mol)
    values = np.array(R._CalcCrippenContribs(full), dtype=np.float64).reshape(-1, 2)
    return np.stack([_folded(mol, full, values[:, 0]), _folded(mol, full, values[:, 1])], axis=1)


def _tpsa(mol, Chem, R):
    """Ertl's per-atom polar surface (a polar atom's hydrogens counted with it)."""
    return np.array(R._CalcTPSAContribs(mol), dtype=np.float64)[:, None]


def _labute(mol, Chem, R):
    """Labute's per-atom surface; RDKit gives the implicit hydrogens one term of the
    whole molecule (about 1 A^2), shared here by the atoms in proportion to the implicit
    hydrogens they carry."""
    atoms, hydrogens = R._CalcLabuteASAContribs(mol)
    out = np.array(atoms, dtype=np.float64)
    counts = np.array([atom.GetTotalNumHs() for atom in mol.GetAtoms()], dtype=np.float64)
    if hydrogens and len(out):
        out += hydrogens * (counts / counts.sum() if counts.sum() else np.full(len(out), 1.0 / len(out)))
    return out[:, None]


def _masses(mol, Chem, R):
    """Atomic weights: with the implicit hydrogens (``MolWt``) and of the heavy atoms
    alone (``HeavyAtomMolWt``)."""
    full = Chem.AddHs(mol)
    heavy = [a.GetMass() if a.GetAtomicNum() != 1 else 0.0 for a in mol.GetAtoms()]
    return np.stack([_folded(mol, full, [a.GetMass() for a in full.GetAtoms()]), heavy], axis=1)


def _binned(values, keys, bins):
    """``values`` put in the column of the bin of ``keys`` (bins as RDKit's bisection
    makes them: bin ``i`` holds ``bins[i - 1] <= key < bins[i]``)."""
    out = np.zeros((len(values), len(bins) + 1))
    out[np.arange(len(values)), np.searchsorted(bins, keys, side="right")] = values
    return out


def _vsa(mol, Chem, R):
    """The VSA descriptors (Labute): each atom's surface (its own part, as RDKit's VSA
    descriptors take it) in the bin of its Crippen logP (``SlogP_VSA``), MR
    (``SMR_VSA``), Gasteiger charge (``PEOE_VSA``) or E-state index (``EState_VSA``),
    and each atom's E-state index in the bin of its surface (``VSA_EState``), with
    RDKit's own per-atom values and bins: 57 columns."""
    from rdkit.Chem import MolSurf, rdPartialCharges
    from rdkit.Chem.EState import EState, EState_VSA

    surface = np.array(R._CalcLabuteASAContribs(mol)[0], dtype=np.float64)
    crippen = np.array(R._CalcCrippenContribs(mol), dtype=np.float64).reshape(-1, 2)
    mol = Chem.Mol(mol)
    rdPartialCharges.ComputeGasteigerCharges(mol)
    charges = np.array([a.GetDoubleProp("_GasteigerCharge") for a in mol.GetAtoms()])
    estate = np.array(EState.EStateIndices(mol), dtype=np.float64)
    return np.concatenate([_binned(surface, crippen[:, 0], MolSurf.logpBins),
                           _binned(surface, crippen[:, 1], MolSurf.mrBins),
                           _binned(surface, charges, MolSurf.chgBins),
                           _binned(surface, estate, EState_VSA.estateBins),
                           _binned(estate, surface, EState_VSA.vsaBins)], axis=1)


_VSA_FAMILIES = (("SlogP_VSA", 12), ("SMR_VSA", 10), ("PEOE_VSA", 14), ("EState_VSA", 11), ("VSA_EState", 10))

#: The descriptors that are sums over atoms, and how RDKit gives each atom's part:
#: name -> ``(f, column)``, ``f(mol, rdkit.Chem, rdkit.Chem.rdMolDescriptors)`` an array
#: with one row per atom of ``mol`` whose column ``column`` sums to the descriptor to
#: rounding (the tests check every one on FreeSolv and Mutagenicity). Crippen logP and MR
#: (``_CalcCrippenContribs``), TPSA (``_CalcTPSAContribs``), Labute ASA
#: (``_CalcLabuteASAContribs``; its one term for the implicit hydrogens shared by the
#: atoms that carry them), the molecular weights (``Atom.GetMass``) and the 57 VSA
#: descriptors (RDKit's per-atom surfaces, Crippen values, Gasteiger charges and E-state
#: indices in RDKit's bins). An implicit hydrogen's part goes to its heavy atom.
ADDITIVE = {"MolLogP": (_crippen, 0), "MolMR": (_crippen, 1), "TPSA": (_tpsa, 0), "LabuteASA": (_labute, 0),
            "MolWt": (_masses, 0), "HeavyAtomMolWt": (_masses, 1)}
_first = 0
for _family, _bins in _VSA_FAMILIES:
    ADDITIVE.update({f"{_family}{i + 1}": (_vsa, _first + i) for i in range(_bins)})
    _first += _bins
del _family, _bins, _first


def atom_contributions(molecules, names):
    """Each atom's part of the additive descriptors :data:`ADDITIVE` among ``names``.

    Parameters
    ----------
    molecules : sequence of rdkit.Chem.Mol
    names : sequence of str
        Descriptor names; those not in :data:`ADDITIVE` get NaN columns.

    Returns
    -------
    list of numpy.ndarray
        One ``(n_atoms, len(names))`` array per molecule, atoms in the molecule's order;
        a column of an additive descriptor sums to :func:`descriptor_table`'s value to
        rounding. NaN where RDKit gives no finite value.

    Examples
    --------
    >>> from rdkit import Chem
    >>> from graphinvariants.embeddings.descriptors import atom_contributions, descriptor_table
    >>> mol = Chem.MolFromSmiles("CCO")
    >>> parts = atom_contributions([mol], ["MolLogP", "NumHDonors"])[0]
    >>> parts.round(4).tolist()  # a methyl, a methylene and a hydroxyl, hydrogens included
    [[0.5131, nan], [0.0425, nan], [-0.557, nan]]
    >>> bool(abs(parts[:, 0].sum() - descriptor_table([mol], ["MolLogP"])[0, 0]) < 1e-12)
    True
    """
    Chem = import_extra("rdkit.Chem", needs="the descriptors member needs RDKit")
    from rdkit.Chem import rdMolDescriptors

    columns = [(j, *ADDITIVE[name]) for j, name in enumerate(names) if name in ADDITIVE]
    out = []
    for mol in molecules:
        parts, computed = np.full((mol.GetNumAtoms(), len(names)), np.nan), {}
        for j, contributions, column in columns:
            if contributions not in computed:
                computed[contributions] = np.asarray(contributions(mol, Chem, rdMolDescriptors), dtype=np.float64)
            parts[:, j] = computed[contributions][:, column]
        parts[~np.isfinite(parts)] = np.nan
        out.append(parts)
    return out


class MolecularDescriptors(PropagatedAttributes):
    """RBF kernel on standardised RDKit 2D descriptors of molecules (registered as ``"descriptors"``).

    Parameters
    ----------
    descriptors : "rdkit" or sequence of str, default="rdkit"
        Names of RDKit descriptors (``rdkit.Chem.Descriptors.descList``); ``"rdkit"``:
        every one but :data:`EXCLUDED` (:func:`rdkit_descriptors`), which did better than
        :data:`BASIC_DESCRIPTORS` on every training fold of FreeSolv and the solubility
        set (docs/regression.rst), at 5-10 ms a molecule of FreeSolv or MUTAG (more for larger
        molecules: about 25 ms for Mutagenicity's, whose hydrogens are atoms, and for
        vancomycin's 101 atoms; 0.6 s for 400 atoms: the cost by size is in
        :mod:`graphinvariants.embeddings.descriptors`).
    bandwidth : "median" or float, default="median"
        RBF bandwidth ``h`` on the standardised rows; ``"median"`` fits it: the median
        Euclidean distance between the rows fitted on, times ``bandwidth_scale``.
    bandwidth_scale : float, default=1.0
        Multiplies the median (1 measured best on the training folds of FreeSolv and
        the solubility set, against 0.25, 0.5 and 2: docs/regression.rst).
    n_features : int or None, default=None
        ``None``: the exact RBF; an int ``D``: ``D`` random Fourier features (their
        cosine-normalised inner product), an explicit map.
    seed : int, numpy.random.Generator or None, default=0
        Seed of the random features.
    node_label, edge_label : str, default="label"
        The node attribute holding the element symbol and the edge attribute holding
        the bond type name (what :func:`~graphinvariants.datasets.from_smiles` sets).

    Attributes
    ----------
    bandwidth_ : float
        The bandwidth used, once fitted.
    attribute_mean_, attribute_scale_ : numpy.ndarray of shape (n_descriptors,)
        Column means and standard deviations (1 for a constant column) of the
        descriptors of the molecules fitted on.

    Raises
    ------
    ImportError
        At construction, if RDKit is not installed (``pip install "graphinvariants[chem]"``).

    Notes
    -----
    Read :mod:`graphinvariants.embeddings.descriptors` for how a graph is read as a
    molecule (element and bond labels only, canonical atom order). A graph that is not a
    molecule is refused with a ValueError that says which graph and why.

    Examples
    --------
    >>> import graphinvariants as gi
    >>> from graphinvariants.embeddings import MolecularDescriptors
    >>> from graphinvariants.embeddings.descriptors import BASIC_DESCRIPTORS
    >>> functional = MolecularDescriptors(descriptors=BASIC_DESCRIPTORS)  # the dozen: the same in every RDKit
    >>> K = gi.kernels.pairwise_kernels(["CCO", "CCCO", "c1ccccc1"], functional=functional)
    >>> K.round(3)
    array([[1.   , 0.896, 0.519],
           [0.896, 1.   , 0.607],
           [0.519, 0.607, 1.   ]])
    >>> round(functional.bandwidth_, 3)
    6.533
    """

    embedding_kind = "descriptors"

    @refuses_random_state
    def __init__(self, *, descriptors="rdkit", bandwidth="median", bandwidth_scale=1.0, n_features=None, seed=0,
                 node_label="label", edge_label="label"):
        functions = _rdkit_descriptors()  # the extra's message at construction
        if isinstance(descriptors, str) and descriptors == "rdkit":
            names = rdkit_descriptors()
        elif isinstance(descriptors, str) or not hasattr(descriptors, "__iter__"):
            raise TypeError(f"descriptors must be 'rdkit' or a sequence of RDKit descriptor names, got {descriptors!r}")
        else:
            names = descriptors = tuple(descriptors)
        if not names or not all(isinstance(name, str) for name in names):
            raise TypeError(f"descriptors must be a non-empty sequence of names (str), got {descriptors!r}")
        if len(set(names)) < len(names):
            raise ValueError(f"descriptors must be distinct, got {names!r}")
        unknown = [name for name in names if name not in functions]
        if unknown:
            raise ValueError(f"{unknown[0]!r} is not an RDKit descriptor (rdkit.Chem.Descriptors.descList)")
        for option, value in (("node_label", node_label), ("edge_label", edge_label)):
            if not isinstance(value, str):
                raise TypeError(f"{option} must be the name of an attribute (str), got {value!r}")
        super().__init__(0, bandwidth=bandwidth, bandwidth_scale=bandwidth_scale, n_features=n_features, seed=seed)
        del self.k, self.propagation, self.node_attributes  # PropagatedAttributes' options that do not apply
        self.descriptors = descriptors
        self.names_ = names
        self.node_label = node_label
        self.edge_label = edge_label
        self._raw = []  # (batch, descriptor rows) of the batches of the fit under way

    node_attributes = None  # reads no node attributes (Functional.graph_reads asks)
    k = 0

    def read_batch(self, graphs, *, what="graphs"):
        """``graphs`` read with their element and bond labels; graphs without them are
        refused as not molecules."""
        try:
            return super().read_batch(graphs, what=what)
        except ValueError as err:
            if "has no attribute" not in str(err):
                raise
            raise _not_molecules(what, str(err)) from None

    def raw_values(self, batch):
        """The descriptors of every molecule of ``batch``, one row per graph, NaN where
        RDKit's value is not finite (with a warning that names the molecule; such a value
        is imputed by :meth:`_standardisation` and :meth:`_sorted_profiles`)."""
        for known, values in self._raw:
            if known is batch:
                return values
        values = cached_descriptor_table(batch_molecules(batch), self.names_)
        message = not_finite_message(values, self.names_)
        if message is not None:
            warnings.warn(f"{message}: the descriptors member reads such a value as its descriptor's fitted mean "
                          "(a standardised 0), and fits the means and spreads on the finite values",
                          UserWarning, stacklevel=2)
        return values

    def _standardisation(self, Z):
        """Column means and spreads of the finite values (as a column without missing
        values gets them from :class:`PropagatedAttributes`, to the bit); a column with
        no finite value has mean 0 and spread 1."""
        missing = np.isnan(Z)
        if not missing.any():
            return super()._standardisation(Z)
        ordered = np.sort(Z, axis=0)  # NaN last: the finite values in the order the parent sums them
        present = ~np.isnan(ordered)
        counts = present.sum(axis=0)
        values = np.where(present, ordered, 0.0)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            mean = np.where(counts > 0, values.sum(axis=0) / counts, 0.0)
            spread = np.where(present, ordered - mean, 0.0)
            scale = np.where(counts > 0, np.sqrt((spread**2).sum(axis=0) / counts), 1.0)
        return mean, scale

    def _fit_batch(self, *batches):
        """Fit on the batches, computing each batch's descriptors once."""
        self._raw = [(batch, self.raw_values(batch)) for batch in batches]
        try:
            return super()._fit_batch(*batches)
        finally:
            self._raw = []

    def _sorted_profiles(self, batch):
        """The standardised descriptors, one row per molecule (nothing to sort); a value
        that is not finite reads as its column's fitted mean, a standardised 0."""
        mean, scale, _ = self._check_fitted()
        raw = self.raw_values(batch)
        Z = (raw - mean) / scale
        Z[np.isnan(raw)] = 0.0
        return Z

    def profile_width(self):
        return len(self.names_)

    @property
    def additive_(self):
        """Which descriptors are sums over atoms (:data:`ADDITIVE`), one bool per name."""
        return np.array([name in ADDITIVE for name in self.names_], dtype=bool)

    def atom_values(self, batch):
        """Each atom's part of the additive descriptors (:func:`atom_contributions`), one
        row per node of ``batch`` in the graphs' node order, NaN in the other columns.

        Examples
        --------
        >>> import graphinvariants as gi
        >>> from graphinvariants.embeddings import MolecularDescriptors
        >>> functional = MolecularDescriptors(descriptors=["TPSA", "NumHDonors"])
        >>> batch = functional.graph_batch(["OCC"])
        >>> functional.atom_values(batch).round(2).tolist()  # the hydroxyl is the polar surface
        [[20.23, nan], [0.0, nan], [0.0, nan]]
        """
        molecules = batch_molecules(batch, canonical=False)
        parts = atom_contributions(molecules, self.names_)
        return np.concatenate(parts) if parts else np.empty((0, len(self.names_)))

    def embedding_params(self):
        mean, scale, bandwidth = self._check_fitted()
        return {"kind": self.embedding_kind, "descriptors": self.names_, "node_label": self.node_label,
                "edge_label": self.edge_label, "attribute_mean": tuple(mean.tolist()),
                "attribute_scale": tuple(scale.tolist()), "bandwidth": bandwidth, "n_features": self.n_features,
                "seed": self._seed if self.n_features else None}

    def embed(self, batch):
        X = self.node_profiles(batch)
        offsets = np.arange(len(batch) + 1)  # one "node" per molecule: its descriptor row
        if self.n_features is None:
            return MeanMapBatch(self.embedding_params(), X, offsets)
        return MeanMapBatch(self.embedding_params(), features=self._mean_features(X, offsets))

    def prepare(self, embedded, what):
        """As :class:`MeanMap` prepares, but the exact form's self-sums are not summed:
        one row per molecule, ``S(G, G) = exp(0) = 1`` exactly."""
        if embedded.features is not None:
            return super().prepare(embedded, what)
        return ("exact", embedded.profiles, np.asarray(embedded.offsets), np.ones(len(embedded)))

    def tile_size(self, n_jobs):
        return 256  # one row per molecule: a tile of graph pairs is a tile of row pairs

    def __repr__(self):
        shown = {"descriptors": repr(self.descriptors),
                 "bandwidth": repr(self.bandwidth), "bandwidth_scale": repr(self.bandwidth_scale),
                 "n_features": repr(self.n_features), "seed": repr(self.seed)}
        return f"{type(self).__name__}({', '.join(f'{key}={value}' for key, value in shown.items())})"

