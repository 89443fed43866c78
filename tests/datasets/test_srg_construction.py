"""The fifteen srg(25, 12, 5, 6) of ``graphinvariants/datasets/srg.py``, built without any download.

They are the descendants of the four regular two-graphs on 26 points (Seidel matrices S with
S @ S = 25 I), reached from the Paley graph P(25), the Latin square graphs L3(5) and the block
graphs of both STS(13) (the cyclic one and its Pasch trades), closed under Godsil-McKay
switching. Every descendant must be srg(25, 12, 5, 6); kept once per BLISS canonical form, they
must be the stored graph6 strings (about 10 s on an idle core).
"""

import itertools

import networkx as nx
import numpy as np
import pytest

from graphinvariants.datasets import SRG25_GRAPH6

ig = pytest.importorskip("igraph")

N, K, LAMBDA, MU = 25, 12, 5, 6


def is_srg(A):
    A2 = A @ A
    off = ~np.eye(N, dtype=bool)
    return bool((A == A.T).all() and not A.diagonal().any() and (A.sum(1) == K).all()
                and (A2[A == 1] == LAMBDA).all() and (A2[(A == 0) & off] == MU).all())


def canonical_edges(A):
    """BLISS's canonical form as a sorted edge tuple."""
    g = ig.Graph.Adjacency(A.tolist(), mode="undirected")
    h = g.permute_vertices(g.canonical_permutation())
    return tuple(sorted(tuple(sorted(e)) for e in h.get_edgelist()))


def graph6(edges):
    G = nx.Graph()
    G.add_nodes_from(range(N))  # graph6 writes the nodes in the graph's order: 0..24
    G.add_edges_from(edges)
    return nx.to_graph6_bytes(G, header=False).decode().strip()


def paley25():
    elements = [(a, b) for a in range(5) for b in range(5)]

    def times(u, v):  # (a + bx)(c + dx) with x^2 = 2 in GF(25)
        return (u[0] * v[0] + 2 * u[1] * v[1]) % 5, (u[0] * v[1] + u[1] * v[0]) % 5

    squares = {times(e, e) for e in elements if e != (0, 0)}
    return np.array([[int(i != j and ((u[0] - v[0]) % 5, (u[1] - v[1]) % 5) in squares)
                      for j, v in enumerate(elements)] for i, u in enumerate(elements)])


def latin_squares():
    """Every reduced-first-row Latin square of order 5."""
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


def is_sts13(blocks):
    pairs = [p for b in blocks for p in itertools.combinations(sorted(b), 2)]
    return len(blocks) == 26 and len(pairs) == len(set(pairs)) == 78


def sts_canonical(blocks):
    """BLISS canonical form of the point-block incidence graph (points and blocks coloured)."""
    g = ig.Graph(13 + len(blocks), [(p, 13 + i) for i, b in enumerate(blocks) for p in b])
    h = g.permute_vertices(g.canonical_permutation(color=[0] * 13 + [1] * len(blocks)))
    return tuple(sorted(tuple(sorted(e)) for e in h.get_edgelist()))


def pasch_trades(blocks):
    """Every system obtained by replacing one Pasch configuration by the other one."""
    B = set(blocks)
    for b1, b2 in itertools.combinations(sorted(B), 2):
        common = set(b1) & set(b2)
        if len(common) != 1:
            continue
        (a,) = common
        b, c = sorted(set(b1) - common)
        for x, y in itertools.permutations(sorted(set(b2) - common)):
            for b3 in B:
                if b in b3 and x in b3:
                    (f,) = set(b3) - {b, x}
                    b4 = tuple(sorted((c, y, f)))
                    if f != a and b4 in B:
                        new = {tuple(sorted(t)) for t in ((a, b, x), (a, c, y), (b, c, f), (x, y, f))}
                        yield sorted((B - {b1, b2, b3, b4}) | new)


def steiner_triple_systems():
    """The STS(13) up to isomorphism: the cyclic one closed under Pasch trades."""
    cyclic = sorted({tuple(sorted((x + i) % 13 for x in base)) for base in ((0, 1, 4), (0, 2, 7)) for i in range(13)})
    found = {sts_canonical(cyclic): cyclic}
    frontier = [cyclic]
    while frontier:
        for blocks in pasch_trades(frontier.pop()):
            assert is_sts13(blocks), "a Pasch trade gave a system that is not an STS(13)"
            key = sts_canonical(blocks)
            if key not in found:
                found[key] = blocks
                frontier.append(blocks)
    return list(found.values())


def seidel(A):
    S = 1 - 2 * A
    np.fill_diagonal(S, 0)
    return S


def with_isolated_node(A):
    G = np.zeros((N + 1, N + 1), dtype=np.int64)
    G[:N, :N] = A
    return G


def descendants(S):
    """The graph left by isolating each point in turn (Seidel switching) and deleting it."""
    for v in range(N + 1):
        d = S[v].copy()
        d[v] = 1
        T = S * np.outer(d, d)  # row v is now all +1: v is isolated
        keep = [u for u in range(N + 1) if u != v]
        A = (1 - T[np.ix_(keep, keep)]) // 2
        np.fill_diagonal(A, 0)
        yield A


def gm_switchings(S, size=4):
    """Godsil-McKay switching of a Seidel matrix on every admissible signed set of ``size`` points."""
    Q = 2 / size * np.ones((size, size)) - np.eye(size)
    signs = [np.array((1,) + s) for s in itertools.product((1, -1), repeat=size - 1)]
    for C in itertools.combinations(range(N + 1), size):
        C = list(C)
        out = [u for u in range(N + 1) if u not in C]
        for d in signs:
            row_sums = (S[np.ix_(C, C)] * np.outer(d, d)).sum(1)
            if (row_sums != row_sums[0]).any():
                continue
            column_sums = np.abs(d @ S[np.ix_(C, out)])
            if not np.isin(column_sums, [0, size]).all() or not (column_sums == 0).any():
                continue
            D = np.ones(N + 1, dtype=np.int64)
            D[C] = d
            P = np.eye(N + 1)
            P[np.ix_(C, C)] = Q
            yield np.rint(P @ (S * np.outer(D, D)) @ P).astype(np.int64)


def starting_two_graphs():
    """(Seidel matrix, source) of P(25), every L3(5) and both STS(13) block graphs, with complements."""
    yield seidel(with_isolated_node(paley25())), "Paley P(25)"
    for L in latin_squares():
        A = latin_square_graph(L)
        yield seidel(with_isolated_node(A)), "L3(5)"
        yield seidel(with_isolated_node(1 - A - np.eye(N, dtype=np.int64))), "complement of L3(5)"
    systems = steiner_triple_systems()
    assert len(systems) == 2  # the cyclic STS(13) and one other, up to isomorphism
    for blocks in systems:
        A = np.array([[int(i != j and not set(a) & set(b)) for j, b in enumerate(blocks)]
                      for i, a in enumerate(blocks)])
        yield seidel(A), "STS(13) disjointness srg(26, 10, 3, 4)"
        yield seidel(1 - A - np.eye(N + 1, dtype=np.int64)), "STS(13) block graph srg(26, 15, 8, 9)"


@pytest.mark.slow
def test_the_construction_reproduces_the_stored_srg25_graphs():
    two_graphs = {}  # smallest descendant key -> descendant keys
    srgs = set()
    frontier = [*starting_two_graphs()]
    while frontier:
        S, source = frontier.pop()
        assert (S @ S == N * np.eye(N + 1, dtype=np.int64)).all(), f"{source}: the two-graph is not regular"
        keys = set()
        for A in descendants(S):
            assert is_srg(A), f"{source}: a descendant is not srg(25, 12, 5, 6)"
            keys.add(canonical_edges(A))
        if min(keys) not in two_graphs:
            two_graphs[min(keys)] = keys
            frontier.extend((T, "Godsil-McKay switching") for T in gm_switchings(S))
        srgs |= keys

    # four regular two-graphs, with the descendants and automorphism groups srg.py describes
    orders = sorted(sorted((ig.Graph(N, list(k)).count_automorphisms() for k in keys), reverse=True)
                    for keys in two_graphs.values())
    assert orders == [[3, 3], [6, 6, 2, 2, 2, 2, 1, 1], [72, 72, 6, 6], [600]]
    # fifteen canonical forms, so pairwise non-isomorphic, and exactly the stored strings
    assert sorted(graph6(edges) for edges in srgs) == sorted(SRG25_GRAPH6)
    assert len(set(SRG25_GRAPH6)) == 15
