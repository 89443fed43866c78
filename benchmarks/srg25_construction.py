"""Construct srg(25, 12, 5, 6) graphs without any download, as stored in
``graphinvariants/datasets/srg.py`` (``SRG25_GRAPH6``).

Run from the project root:  python benchmarks/srg25_construction.py   (a few minutes)

Starts: the Paley graph P(25) (GF(25) = GF(5)[x] / (x^2 - 2); nodes adjacent when their
difference is a non-zero square) and the Latin square graphs L3(5) of every Latin
square of order 5 with first row and column 0..4 (56 squares, two main classes), with
their complements. Then, until nothing new appears: Godsil-McKay switching on every
set C of 4 or 6 nodes that induces a regular graph and that every other node meets in
0, |C|/2 or |C| nodes (the nodes meeting it in |C|/2 swap their neighbours in C for the
others); complements; and the descendants of the regular two-graph on 26 nodes made
by adding an isolated node (Seidel switching that isolates each node in turn, then
deleting it). Each result is checked to be srg(25, 12, 5, 6) (a GM switch keeps the
spectrum, and a regular graph with an SRG's spectrum is an SRG with its parameters).
Graphs are kept once per BLISS canonical form. Prints the graph6 strings (canonical
forms) and compares them with the stored ones.
"""

import itertools

import igraph as ig
import networkx as nx
import numpy as np

from graphinvariants.datasets import SRG25_GRAPH6

N, K, LAMBDA, MU = 25, 12, 5, 6


def is_srg(A):
    A2 = A @ A
    off = ~np.eye(N, dtype=bool)
    return bool((A == A.T).all() and not A.diagonal().any() and (A.sum(1) == K).all()
                and (A2[A == 1] == LAMBDA).all() and (A2[(A == 0) & off] == MU).all())


def canonical_edges(A):
    """BLISS's canonical form, as a sorted edge tuple (cheap: for deduplication)."""
    g = ig.Graph.Adjacency(A.tolist(), mode="undirected")
    h = g.permute_vertices(g.canonical_permutation())
    return tuple(sorted(tuple(sorted(e)) for e in h.get_edgelist()))


def graph6(edges):
    """The canonical form as graph6 text."""
    G = nx.Graph()
    G.add_nodes_from(range(N))  # graph6 writes the nodes in the graph's order: 0..24
    G.add_edges_from(edges)
    return nx.to_graph6_bytes(G, header=False).decode().strip()


def paley25():
    elements = [(a, b) for a in range(5) for b in range(5)]

    def times(u, v):  # (a + bx)(c + dx) with x^2 = 2
        return (u[0] * v[0] + 2 * u[1] * v[1]) % 5, (u[0] * v[1] + u[1] * v[0]) % 5

    squares = {times(e, e) for e in elements if e != (0, 0)}
    return np.array([[int(i != j and ((u[0] - v[0]) % 5, (u[1] - v[1]) % 5) in squares) for j, v in enumerate(elements)]
                     for i, u in enumerate(elements)])


def latin_squares():
    rows = list(itertools.permutations(range(5)))
    out = []

    def extend(square):
        if len(square) == 5:
            out.append(square)
            return
        for r in rows:
            if r[0] == len(square) and all(r[c] != s[c] for s in square for c in range(5)):
                extend(square + [r])

    extend([tuple(range(5))])
    return out


def latin_square_graph(L):
    cells = [(i, j) for i in range(5) for j in range(5)]
    return np.array([[int(a != b and (i == k or j == l or L[i][j] == L[k][l])) for b, (k, l) in enumerate(cells)]
                     for a, (i, j) in enumerate(cells)])


def gm_switchings(A, size):
    half = size // 2
    for C in itertools.combinations(range(N), size):
        C = list(C)
        degrees = A[np.ix_(C, C)].sum(1)
        if (degrees != degrees[0]).any():
            continue
        meets = A[:, C].sum(1)
        meets[C] = 0
        if not np.isin(meets, [0, half, size]).all() or not (meets == half).any():
            continue
        B = A.copy()
        for v in np.flatnonzero(meets == half):
            B[v, C] = 1 - B[v, C]
            B[C, v] = 1 - B[C, v]
        yield B


def descendants(A):
    G = np.zeros((N + 1, N + 1), dtype=A.dtype)
    G[:N, :N] = A
    for v in range(N + 1):
        S = G[v].astype(bool)
        H = G.copy()
        flip = np.outer(S, ~S) | np.outer(~S, S)
        H[flip] = 1 - H[flip]
        keep = [u for u in range(N + 1) if u != v]
        yield H[np.ix_(keep, keep)]


def main():
    found = {}
    starts = [paley25()] + [latin_square_graph(L) for L in latin_squares()]
    frontier = []
    for A in starts:
        for B in (A, 1 - A - np.eye(N, dtype=A.dtype)):
            assert is_srg(B)
            key = canonical_edges(B)
            if key not in found:
                found[key] = B
                frontier.append(B)
    while frontier:
        A = frontier.pop()
        candidates = itertools.chain(gm_switchings(A, 4), gm_switchings(A, 6), descendants(A),
                                     [1 - A - np.eye(N, dtype=A.dtype)])
        for B in candidates:
            if not is_srg(B):
                raise RuntimeError("a switching gave a graph that is not srg(25, 12, 5, 6)")
            key = canonical_edges(B)
            if key not in found:
                found[key] = B
                frontier.append(B)
    texts = sorted(graph6(edges) for edges in found)
    for text in texts:
        print(text)
    print(f"{len(texts)} graphs; the same as the stored ones: {texts == sorted(SRG25_GRAPH6)}")


if __name__ == "__main__":
    main()
