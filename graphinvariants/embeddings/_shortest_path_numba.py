"""Compiled breadth-first search for the shortest-path member (numba, the ``[fast]`` extra).

:func:`bfs_pairs` gives the same pairs and distances as the scipy path of
:mod:`graphinvariants.embeddings.shortest_path` (a breadth-first search counts edges
exactly, as Dijkstra on unit weights does), without a dense distance block and without
a priority queue: one search per source node, within its own graph. The code is cached
on disk (``cache=True``).
"""

import numpy as np
from numba import njit

__all__ = ["bfs_pairs"]


@njit(nogil=True, cache=True)
def _search(indptr, indices, offsets, first_graph, stop_graph, one_way, out_u, out_v, out_d):  # pragma: no cover
    count = 0
    n_max = 0
    for g in range(first_graph, stop_graph):
        n_max = max(n_max, offsets[g + 1] - offsets[g])
    distance = np.full(n_max, -1, dtype=np.int64)
    queue = np.empty(n_max, dtype=np.int64)
    for g in range(first_graph, stop_graph):
        a, b = offsets[g], offsets[g + 1]
        for s in range(a, b):
            distance[: b - a] = -1
            distance[s - a] = 0
            queue[0] = s
            head, tail = 0, 1
            while head < tail:
                x = queue[head]
                head += 1
                dx = distance[x - a]
                for p in range(indptr[x], indptr[x + 1]):
                    y = indices[p]
                    if distance[y - a] < 0:
                        distance[y - a] = dx + 1
                        queue[tail] = y
                        tail += 1
                        if not one_way or y > s:
                            out_u[count] = s
                            out_v[count] = y
                            out_d[count] = dx + 1
                            count += 1
    return count


def bfs_pairs(indptr, indices, offsets, first_graph, stop_graph, *, one_way):
    """``(u, v, d)``: every ordered pair of distinct nodes of graphs
    ``first_graph .. stop_graph - 1`` with a path from ``u`` to ``v`` (``one_way``: only
    ``u < v``, for undirected graphs), and its distance in edges; global node numbers.
    ``indptr``, ``indices`` (int64) are the CSR arrays of the batch's adjacency and
    ``offsets`` (int64) its graph offsets; the three arrays returned hold at most
    ``sum(n * (n - 1))`` values over the graphs asked for."""
    sizes = offsets[first_graph + 1 : stop_graph + 1] - offsets[first_graph:stop_graph]
    bound = int(np.sum(sizes * (sizes - 1)))
    out_u, out_v, out_d = (np.empty(bound, dtype=np.int64) for _ in range(3))
    count = _search(indptr, indices, offsets, first_graph, stop_graph, one_way, out_u, out_v, out_d)
    return out_u[:count], out_v[:count], out_d[:count]
