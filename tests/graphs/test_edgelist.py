"""gi.read_edgelist against networkx.read_edgelist + gi.as_adjacency on the same file.

NetworkX keeps its nodes in order of first appearance, read_edgelist in increasing
order: every comparison maps one order to the other and then asks for the same CSR to
the bit. The weights used are dyadic (0.5, 1.25, 3 ...), so their sums are exact in any
order and the comparison can be exact for weighted graphs too.
"""

import gzip

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import graphinvariants as gi
from graphinvariants.graphs import _columns, _textlines
from graphinvariants.graphs.csr import compress_entries, edges_to_csr

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def networkx_adjacency(path, *, directed=False, weighted=False, nodetype=int, **options):
    """as_adjacency of NetworkX's reading of the file, as a multigraph (parallel edges
    kept, so that weights add as as_adjacency adds them)."""
    create = nx.MultiDiGraph if directed else nx.MultiGraph
    data = [("weight", float)] if weighted else False
    G = nx.read_edgelist(path, create_using=create, nodetype=nodetype, data=data, **options)
    return gi.as_adjacency(G, weight="weight" if weighted else None)


def assert_same_graph(ours, reference):
    """Same node set, and the same canonical CSR once the reference is put in our order."""
    assert sorted(ours.nodes, key=repr) == sorted(reference.nodes, key=repr)
    where = {node: i for i, node in enumerate(reference.nodes)}
    order = [where[node] for node in ours.nodes]
    R = sp.csr_array(reference.matrix[order][:, order])
    R.sort_indices()
    A = ours.matrix
    assert A.has_canonical_format
    assert A.indices.dtype == np.int32
    assert np.array_equal(A.indptr, R.indptr)
    assert np.array_equal(A.indices, R.indices)
    assert np.array_equal(A.data, R.data)
    assert ours.weighted == reference.weighted


def write(path, text):
    path.write_text(text)
    return path


SNAP = """# Directed graph (each unordered pair of nodes is saved once): web-Tiny.txt
# Nodes: 6 Edges: 9
# FromNodeId\tToNodeId
1000\t-7
-7\t42
42\t1000
1000\t1000
5\t42
42 5
5\t123456789012
123456789012\t5
  # an indented comment
1000\t42\t# a trailing comment

5 -7
"""

WEIGHTED = """% KONECT-style comments
1 2 0.5
2 1 1.25
2 3 3
3 3 0.75
3 3 0.25
1 4 0
4 1 2
4 2 1.5
"""


@pytest.mark.parametrize("directed", [False, True])
def test_snap_text_with_comments_tabs_spaces_and_arbitrary_integer_ids(tmp_path, directed):
    path = write(tmp_path / "web.txt", SNAP)
    ours = gi.read_edgelist(path, directed=directed)
    assert ours.nodes == (-7, 5, 42, 1000, 123456789012)  # increasing ids, Python ints
    assert all(type(node) is int for node in ours.nodes)
    assert_same_graph(ours, networkx_adjacency(path, directed=directed))
    assert ours.matrix[3, 3] == 1.0  # the loop 1000-1000: once, on the diagonal


@pytest.mark.parametrize("directed", [False, True])
def test_weights_add_over_parallel_edges_zero_dropped_loops_once(tmp_path, directed):
    path = write(tmp_path / "konect.edges", WEIGHTED)
    ours = gi.read_edgelist(path, directed=directed, weight=2, comments="%")
    reference = networkx_adjacency(path, directed=directed, weighted=True, comments="%")
    assert_same_graph(ours, reference)
    A = ours.matrix.toarray()
    assert A[2, 2] == 1.0  # 0.75 + 0.25, stored once
    assert A[0, 3] == (0 if directed else 2.0)  # the zero-weight edge 1 -> 4 adds nothing
    if not directed:
        assert A[0, 1] == A[1, 0] == 1.75


def test_unweighted_read_collapses_parallel_edges(tmp_path):
    path = write(tmp_path / "konect.edges", WEIGHTED)
    ours = gi.read_edgelist(path, comments="%")
    assert set(np.unique(ours.matrix.data)) == {1.0}
    assert_same_graph(ours, networkx_adjacency(path, comments="%"))


def test_string_ids_are_kept_as_written_and_sorted(tmp_path):
    path = write(tmp_path / "names.txt", "carol bob\nalice bob\nbob 007\n7 alice\n")
    ours = gi.read_edgelist(path)
    assert ours.nodes == ("007", "7", "alice", "bob", "carol")  # not all integers: all strings
    assert_same_graph(ours, networkx_adjacency(path, nodetype=None))
    same = gi.read_edgelist(path, nodetype=str)
    assert same.nodes == ours.nodes and (same.matrix != ours.matrix).nnz == 0


def test_integer_ids_are_parsed_as_integers_so_leading_zeros_name_the_same_node(tmp_path):
    path = write(tmp_path / "zeros.txt", "007 8\n7 9\n+9 10\n")
    ours = gi.read_edgelist(path)
    assert ours.nodes == (7, 8, 9, 10)
    assert_same_graph(ours, networkx_adjacency(path))  # NetworkX's int("007") too
    as_text = gi.read_edgelist(path, nodetype=str)
    assert as_text.nodes == ("+9", "007", "10", "7", "8", "9")


def test_gzip_compressed_text(tmp_path):
    plain = write(tmp_path / "web.txt", SNAP)
    packed = tmp_path / "web.txt.gz"
    with gzip.open(packed, "wt") as f:
        f.write(SNAP)
    assert_same_graph(gi.read_edgelist(packed), gi.read_edgelist(plain))
    assert_same_graph(gi.read_edgelist(packed), networkx_adjacency(plain))


def test_csv_with_a_header_columns_by_name_and_extra_columns(tmp_path):
    edges = pd.DataFrame({"time": [3, 1, 2, 5, 4], "u": [10, 20, 30, 10, 40], "v": [20, 30, 10, 10, 10],
                          "w": [0.5, 2.0, 1.25, 4.0, 0.5]})
    path = tmp_path / "edges.csv"
    edges.to_csv(path, index=False)
    ours = gi.read_edgelist(path, weight="w", directed=True)
    G = nx.from_pandas_edgelist(edges, "u", "v", edge_attr="w", create_using=nx.MultiDiGraph)
    assert_same_graph(ours, gi.as_adjacency(G, weight="w"))
    by_position = gi.read_edgelist(path, source=1, target=2, weight=3, directed=True)
    assert_same_graph(by_position, ours)
    swapped = gi.read_edgelist(path, source="v", target="u", weight="w", directed=True)
    assert (swapped.matrix != ours.matrix.T).nnz == 0


def test_csv_without_header_takes_names_and_a_delimiter(tmp_path):
    path = write(tmp_path / "edges.csv", "# exported\na;b;1.5\nb;c;2\nc;a;0.5\n")
    ours = gi.read_edgelist(path, names=["u", "v", "weight"], delimiter=";", weight="weight")
    assert ours.nodes == ("a", "b", "c")
    assert_same_graph(ours, networkx_adjacency(path, nodetype=None, weighted=True, delimiter=";"))


@pytest.mark.parametrize("kind", ["int", "str", "dictionary"])
def test_parquet_columns_by_name(tmp_path, kind):
    u, v, w = [5, 9, 9, 2, 5, 5], [9, 2, 2, 2, 7, 9], [1.0, 0.5, 0.25, 3.0, 0.0, 2.0]
    table = {"u": u, "v": v, "weight": w}
    if kind != "int":
        table = {"u": [f"n{x}" for x in u], "v": [f"n{x}" for x in v], "weight": w}
    table = pa.table(table)
    if kind == "dictionary":
        table = table.set_column(0, "u", table["u"].dictionary_encode())
    path = tmp_path / "edges.parquet"
    pq.write_table(table, path, row_group_size=2)  # several row groups
    ours = gi.read_edgelist(path, weight="weight")
    G = nx.MultiGraph()
    G.add_weighted_edges_from(zip(*[table.column(c).to_pylist() for c in ("u", "v", "weight")]))
    assert_same_graph(ours, gi.as_adjacency(G, weight="weight"))
    assert ours.nodes == ((2, 5, 7, 9) if kind == "int" else ("n2", "n5", "n7", "n9"))


def test_read_edgelist_power_invariants_equal_networkx(tmp_path):
    G = nx.barabasi_albert_graph(300, 3, seed=1)
    G = nx.relabel_nodes(G, {node: 1000 + 7 * node for node in G})
    path = tmp_path / "ba.txt"
    nx.write_edgelist(G, path, data=False, delimiter="\t")
    ours = gi.power_invariants(gi.read_edgelist(path), k=5)
    theirs = gi.power_invariants(nx.read_edgelist(path, nodetype=int), k=5)
    # the same graph with its nodes in another order: the moments sum the same terms in
    # another order, so they agree to rounding (1e-12 relative), not to the bit
    np.testing.assert_allclose(ours.mean, theirs.mean, rtol=1e-12)
    np.testing.assert_allclose(ours.covariance, theirs.covariance, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("ids", ["identity", "gaps", "spread"])
def test_every_way_of_mapping_integer_ids(tmp_path, ids, monkeypatch):
    monkeypatch.setattr(_columns, "CHUNK_ROWS", 7)  # many chunks
    rng = np.random.default_rng(3)
    n = 60
    names = {"identity": np.arange(n), "gaps": 3 * np.arange(n) + 11,
             "spread": rng.choice(10**15, n, replace=False) - 10**14}[ids]
    edges = rng.integers(0, n, (150, 2))
    edges[0] = (0, n - 1)
    path = tmp_path / "g.txt"
    np.savetxt(path, names[edges], fmt="%d")
    ours = gi.read_edgelist(path)
    assert list(ours.nodes) == sorted(ours.nodes)
    assert_same_graph(ours, networkx_adjacency(path))


def test_ids_that_turn_out_not_to_be_integers_late_in_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(_columns, "CHUNK_ROWS", 4)
    lines = [f"{i}\t{i + 1}" for i in range(20)] + ["20\tlast"]
    path = write(tmp_path / "late.txt", "\n".join(lines) + "\n")
    ours = gi.read_edgelist(path)
    assert all(isinstance(node, str) for node in ours.nodes)
    assert_same_graph(ours, networkx_adjacency(path, nodetype=None))


def test_tab_separated_start_then_spaces_and_indented_comments(tmp_path, monkeypatch):
    monkeypatch.setattr(_columns, "CHUNK_ROWS", 3)
    text = "1\t2\n2\t3\n   # indented\n3  4\n\t4\t5\n5 1 \n"
    path = write(tmp_path / "mixed.txt", text)
    ours = gi.read_edgelist(path)
    assert ours.nodes == (1, 2, 3, 4, 5)
    assert_same_graph(ours, networkx_adjacency(path))


def test_compress_entries_equals_edges_to_csr():
    rng = np.random.default_rng(0)
    n, m = 40, 400
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    weights = rng.integers(0, 8, m) / 4  # zeros too
    for directed in (True, False):
        for data in (None, weights):
            expected = edges_to_csr(n, rows, cols, data, directed=directed, weighted=data is not None)
            keep = rows != cols
            r, c, d = rows, cols, data
            if not directed:
                r, c = np.concatenate((rows, cols[keep])), np.concatenate((cols, rows[keep]))
                d = None if data is None else np.concatenate((data, data[keep]))
            got = compress_entries(n, [r.astype(np.int32), c.astype(np.int32), d], weighted=data is not None)
            assert got.has_canonical_format
            for name in ("indptr", "indices", "data"):
                assert np.array_equal(getattr(got, name), getattr(expected, name)), name


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    "text, options, line, message",
    [
        ("# c\n1 2\n3\n4 5\n", {}, 3, "1 column where 2 are needed"),
        ("1 2 0.5\n# c\n2 3 heavy\n", {"weight": 2}, 3, "weight 'heavy' is not a number"),
        ("1 2 0.5\n2 3\n", {"weight": 2}, 2, "no weight"),
        ("1 2 0.5\n2 3 -1\n", {"weight": 2}, 2, "weight '-1' is negative"),
        ("1 2 nan\n", {"weight": 2}, 1, "NaN or infinite"),
        ("1 2 1\n2 3 inf\n", {"weight": 2}, 2, "NaN or infinite"),
        ("1 2\n2 x\n", {"nodetype": int}, 2, "node id 'x' is not an integer"),
        ("1,2\n,3\n", {"delimiter": ","}, 2, "node id missing"),
    ],
)
def test_malformed_lines_are_named_by_number_and_text(tmp_path, text, options, line, message):
    path = write(tmp_path / "bad.txt", text)
    bad = text.splitlines()[line - 1]
    with pytest.raises(ValueError, match=f"bad.txt', line {line}: ") as err:
        gi.read_edgelist(path, **options)
    assert message in str(err.value)
    assert str(err.value).endswith(f": {bad!r}")


def test_malformed_csv_rows_count_the_header_and_comments(tmp_path):
    path = write(tmp_path / "bad.csv", "# made by hand\nu,v,w\n1,2,1\n2,,1\n")
    with pytest.raises(ValueError, match="line 4: node id missing"):
        gi.read_edgelist(path, weight="w")
    path = write(tmp_path / "bad2.csv", "u,v,w\n1,2,1\n2,3,much\n")
    with pytest.raises(ValueError, match="line 3: weight 'much' is not a number: '2,3,much'"):
        gi.read_edgelist(path, weight="w")


def test_malformed_parquet_rows_are_named(tmp_path):
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"u": [1, 2, None], "v": [2, 3, 4]}), path)
    with pytest.raises(ValueError, match="row 3: node id missing in column 'u'"):
        gi.read_edgelist(path)
    pq.write_table(pa.table({"u": [1, 2], "v": [2, 3], "w": [1.0, -2.0]}), path)
    with pytest.raises(ValueError, match="row 2: weight -2.0"):
        gi.read_edgelist(path, weight="w")
    pq.write_table(pa.table({"u": [1.5], "v": [2.0]}), path)
    with pytest.raises(TypeError, match="node id column 'u' has type double"):
        gi.read_edgelist(path)
    pq.write_table(pa.table({"u": [1], "v": ["a"]}), path)
    with pytest.raises(TypeError, match="different types"):
        gi.read_edgelist(path)
    assert gi.read_edgelist(path, nodetype=str).nodes == ("1", "a")


@pytest.mark.parametrize("text", ["", "# only\n# comments\n\n", "\n\n"])
@pytest.mark.parametrize("suffix", [".txt", ".csv"])
def test_a_file_without_edges_is_an_error(tmp_path, text, suffix):
    path = write(tmp_path / f"empty{suffix}", text)
    with pytest.raises(ValueError, match="contains no edge"):
        gi.read_edgelist(path)


def test_bad_options_and_paths(tmp_path):
    path = write(tmp_path / "g.txt", "1 2\n")
    with pytest.raises(FileNotFoundError, match="no such file"):
        gi.read_edgelist(tmp_path / "missing.txt")
    with pytest.raises(ValueError, match="cannot tell the format"):
        gi.read_edgelist(write(tmp_path / "graph.dat", "1 2\n"))
    assert gi.read_edgelist(tmp_path / "graph.dat", format="text").n_nodes == 2
    with pytest.raises(ValueError, match="format must be one of"):
        gi.read_edgelist(path, format="xlsx")
    with pytest.raises(ValueError, match="weight column position 2 is out of range|no weight"):
        gi.read_edgelist(path, weight=2)
    with pytest.raises(ValueError, match="has no column names"):
        gi.read_edgelist(path, weight="w")
    with pytest.raises(TypeError, match="nodetype must be None, int or str"):
        gi.read_edgelist(path, nodetype=float)
    with pytest.raises(ValueError, match="delimiter must be one character"):
        gi.read_edgelist(path, delimiter="::")
    with pytest.raises(TypeError, match="directed must be a bool"):
        gi.read_edgelist(path, directed="yes")
    with pytest.raises(TypeError, match="weight must be None, a column name"):
        gi.read_edgelist(path, weight=True)
    csv_path = write(tmp_path / "g.csv", "a,b\n1,2\n")
    with pytest.raises(ValueError, match=r"source column 'u' not in the columns .*\['a', 'b'\]"):
        gi.read_edgelist(csv_path)
    assert gi.read_edgelist(csv_path, source="a", target="b").nodes == (1, 2)


def test_a_header_line_in_a_text_file_is_named(tmp_path):
    path = write(tmp_path / "header.txt", "# made by hand\nFromNodeId\tToNodeId\n1\t2\n2\t3\n")
    with pytest.raises(ValueError, match=r"line 2: looks like a header.*'FromNodeId\\tToNodeId'"):
        gi.read_edgelist(path)
    assert gi.read_edgelist(path, nodetype=str).n_nodes == 5  # asked for: an edge between two names
    with pytest.raises(ValueError, match="line 2: node id 'FromNodeId' is not an integer"):
        gi.read_edgelist(path, nodetype=int)


@pytest.mark.parametrize("newline", ["\r\n", "\n"])
@pytest.mark.parametrize("suffix", [".txt.bz2", ".txt.xz", ".csv.gz"])
def test_line_endings_and_compressions(tmp_path, newline, suffix):
    import bz2
    import lzma

    lines = ["u,v,w", "1,2,0.5", "2,3,2"] if ".csv" in suffix else ["# c", "1\t2\t0.5", "2\t3\t2"]
    text = newline.join(lines) + newline
    opener = {".bz2": bz2.open, ".xz": lzma.open, ".gz": gzip.open}[suffix[suffix.rindex("."):]]
    path = tmp_path / f"g{suffix}"
    with opener(path, "wb") as f:
        f.write(text.encode())
    adj = gi.read_edgelist(path, weight="w" if ".csv" in suffix else 2)
    assert adj.nodes == (1, 2, 3)
    assert adj.matrix.toarray().tolist() == [[0, 0.5, 0], [0.5, 0, 2], [0, 2, 0]]
    bad = text.replace("2,3,2", "2,3,x").replace("2\t3\t2", "2\t3\tx")
    with opener(path, "wb") as f:
        f.write(bad.encode())
    with pytest.raises(ValueError, match="line 3: weight 'x' is not a number"):
        gi.read_edgelist(path, weight="w" if ".csv" in suffix else 2)


def test_a_large_unweighted_graph_holds_no_data_array(tmp_path, monkeypatch):
    from graphinvariants.graphs import csr

    monkeypatch.setattr(csr, "PATTERN_ONLY", 10)  # as from 2**20 nodes plus entries
    path = write(tmp_path / "web.txt", SNAP)
    ours = gi.read_edgelist(path)
    assert ours.matrix.data.strides == (0,) and not ours.matrix.data.flags.writeable
    assert_same_graph(ours, networkx_adjacency(path))
    monkeypatch.undo()
    small = gi.read_edgelist(path)
    assert small.matrix.data.flags.writeable
    # the same graph with or without a data array: the same invariants (the products read
    # the same values; 1e-12 relative in case the two take different product code)
    np.testing.assert_allclose(gi.power_invariants(ours, k=4).mean, gi.power_invariants(small, k=4).mean, rtol=1e-12)
    weighted = gi.read_edgelist(write(tmp_path / "w.edges", WEIGHTED), weight=2, comments="%")
    assert weighted.matrix.data.flags.writeable  # weights are values: an array


# ------------------------------------------------------------------ issue 44 (sixth trial)


@pytest.mark.parametrize("suffix", [".txt", ".csv", ".parquet"])
@pytest.mark.parametrize("directed", [False, True])
def test_weights_that_add_up_to_infinity_are_refused_naming_the_edge(tmp_path, suffix, directed):
    # item 2: each weight is finite, their sum is not; every reader path checks the sums
    rows = [("a7", "b9", 1e308), ("c", "a7", 1.0), ("a7", "b9", 1e308)]
    if not directed:
        rows[2] = ("b9", "a7", 1e308)  # the same undirected edge, written the other way
    path = tmp_path / f"huge{suffix}"
    if suffix == ".parquet":
        pq.write_table(pa.table({"u": [r[0] for r in rows], "v": [r[1] for r in rows], "w": [r[2] for r in rows]}), path)
        weight = "w"
    elif suffix == ".csv":
        write(path, "u,v,w\n" + "".join(f"{u},{v},{w!r}\n" for u, v, w in rows))
        weight = "w"
    else:
        write(path, "".join(f"{u} {v} {w!r}\n" for u, v, w in rows))
        weight = 2
    with pytest.raises(ValueError, match=r"huge.*edge \('a7', 'b9'\).*add up to .*inf"):
        gi.read_edgelist(path, weight=weight, directed=directed)


@pytest.mark.parametrize("directed", [False, True])
def test_from_edge_arrays_refuses_weights_that_add_up_to_infinity(directed):
    u, v = np.array([0, 2, 1 if not directed else 0]), np.array([1, 0, 0 if not directed else 1])
    with pytest.raises(ValueError, match=r"edge \(0, 1\).*add up to .*inf"):
        gi.from_edge_arrays(u, v, weights=[1e308, 1.0, 1e308], directed=directed)
    # and as_adjacency on a NetworkX multigraph, the same check
    G = nx.MultiDiGraph() if directed else nx.MultiGraph()
    G.add_edge(0, 1, weight=1e308)
    G.add_edge(0, 1, weight=1e308)
    with pytest.raises(ValueError, match=r"edge \(0, 1\).*add up to .*inf"):
        gi.as_adjacency(G, weight="weight")


@pytest.mark.parametrize("line", [1, 2, 3])
@pytest.mark.parametrize("big", [str(2**64 + 5), str(-(2**63) - 1), str(2**63)])
def test_an_id_past_64_bits_is_refused_on_any_line(tmp_path, line, big):
    # item 3: the same answer wherever the id is, text or CSV
    lines = ["2\t3", "3\t4", "4\t2"]
    lines[line - 1] = f"{big}\t2"
    for suffix, header in ((".txt", ""), (".csv", "u\tv\n")):
        path = write(tmp_path / f"big{suffix}", header + "\n".join(lines) + "\n")
        number = line + (suffix == ".csv")
        with pytest.raises(ValueError, match=f"line {number}: node id '{big}' does not fit in 64 bits.*nodetype=str"):
            gi.read_edgelist(path, delimiter="\t" if suffix == ".csv" else None)
        as_text = gi.read_edgelist(path, nodetype=str, delimiter="\t" if suffix == ".csv" else None)
        assert big in as_text.nodes and "2" in as_text.nodes


def test_an_id_past_64_bits_in_a_parquet_string_column(tmp_path):
    path = tmp_path / "big.parquet"
    big = str(2**64)
    pq.write_table(pa.table({"u": ["1", big], "v": ["2", "3"]}), path)
    assert big in gi.read_edgelist(path).nodes  # a string column: strings, as Parquet columns keep their type
    with pytest.raises(ValueError, match=f"row 2: node id '{big}' in column 'u' does not fit in 64 bits"):
        gi.read_edgelist(path, nodetype=int)


def test_an_id_past_64_bits_among_string_ids_is_a_string(tmp_path):
    big = str(2**70)
    path = write(tmp_path / "names.txt", f"alice {big}\nbob alice\n")
    assert gi.read_edgelist(path).nodes == (big, "alice", "bob")


@pytest.mark.parametrize("suffix", [".txt", ".csv", ".txt.gz"])
def test_undecodable_bytes_are_named_by_file_and_line(tmp_path, suffix):
    # item 4
    text = ("u,v\n" if suffix == ".csv" else "") + "1 2\n2 3\n3 caf\xe9\n".replace(" ", "," if suffix == ".csv" else " ")
    data = text.encode("latin-1")
    path = tmp_path / f"latin{suffix}"
    path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    line = 4 if suffix == ".csv" else 3
    with pytest.raises(ValueError, match=f"latin.*line {line}.*cannot be decoded as utf-8.*encoding="):
        gi.read_edgelist(path)
    assert "café" in gi.read_edgelist(path, encoding="latin-1").nodes


@pytest.mark.parametrize("kind", ["fake", "truncated", "corrupt"])
@pytest.mark.parametrize("suffix", [".txt.gz", ".csv.gz", ".txt.bz2", ".txt.xz"])
def test_a_damaged_compressed_file_is_a_value_error_naming_it(tmp_path, kind, suffix):
    # item 5
    import bz2
    import lzma

    compress = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}[suffix[suffix.rindex("."):]]
    body = ("u,v\n" if ".csv" in suffix else "") + "".join(f"{i},{i + 1}\n" for i in range(3000))
    if ".txt" in suffix:
        body = body.replace(",", " ")
    packed = compress(body.encode())
    data = {"fake": body.encode(), "truncated": packed[: len(packed) // 2],
            "corrupt": packed[:20] + bytes(200) + packed[220:]}[kind]
    path = tmp_path / f"damaged{suffix}"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=f"damaged{suffix}.*cannot be decompressed"):
        gi.read_edgelist(path)


@pytest.mark.parametrize("value", ["True", "TRUE", "true", "False", "FALSE"])
@pytest.mark.parametrize("suffix", [".txt", ".csv"])
def test_boolean_weights_are_refused_in_text_and_csv(tmp_path, value, suffix):
    # item 6: whole columns of booleans, and one among numbers
    for rows in ([("1", "2", value), ("2", "3", value)], [("1", "2", "0.5"), ("2", "3", value)]):
        sep = "," if suffix == ".csv" else " "
        header = "u,v,w\n" if suffix == ".csv" else ""
        path = write(tmp_path / f"bool{suffix}", header + "".join(sep.join(r) + "\n" for r in rows))
        bad = [i for i, r in enumerate(rows) if r[2] == value][0] + 1 + (suffix == ".csv")
        with pytest.raises(ValueError, match=f"line {bad}: weight '{value}' is not a number"):
            gi.read_edgelist(path, weight="w" if suffix == ".csv" else 2)


def test_boolean_weights_are_refused_in_parquet_and_edge_arrays(tmp_path):
    path = tmp_path / "bool.parquet"
    pq.write_table(pa.table({"u": [1, 2], "v": [2, 3], "w": [True, False]}), path)
    with pytest.raises(TypeError, match="weight column 'w' has type bool"):
        gi.read_edgelist(path, weight="w")
    for weights in (np.array([True, False]), [True, 1.0], [1.0, np.True_]):
        with pytest.raises(TypeError, match="weights must be numbers, not booleans"):
            gi.from_edge_arrays(np.array([0, 1]), np.array([1, 2]), weights=weights)


KONECT = "% sym unweighted\n% 4 3 3\n1 2\n2 3\n3 1\n"
MATRIX_MARKET = "%%MatrixMarket matrix coordinate pattern symmetric\n% made by hand\n3 3 3\n2 1\n3 2\n3 1\n"


@pytest.mark.parametrize("text, line", [
    (KONECT, 1), (MATRIX_MARKET, 1), ("# SNAP first\n%header\n1 2\n", 2), ("   % indented\n1 2\n", 1),
    ("% one\n% two\n% three\n10 20\n20 30\n", 1), ("%\n1 2 0.5\n", 1),
])
@pytest.mark.parametrize("suffix", [".txt", ".csv"])
def test_percent_comment_headers_are_refused_with_the_hint(tmp_path, text, line, suffix):
    # item 7: any file whose header is %-commented, read with comments="#"
    if suffix == ".csv":  # the fields joined by commas, the indentation kept
        text = "".join(line[: len(line) - len(line.lstrip())] + ",".join(line.split()) + "\n"
                       for line in text.splitlines())
    path = write(tmp_path / f"konect{suffix}", text)
    names = ["u", "v"] if suffix == ".csv" else None
    with pytest.raises(ValueError, match=f"line {line}: .*comments='%'") as err:
        gi.read_edgelist(path, names=names)
    assert ("skiprows" in str(err.value)) == text.startswith("%%MatrixMarket")


def test_konect_and_matrix_market_files_read_with_the_hints(tmp_path):
    konect = gi.read_edgelist(write(tmp_path / "out.txt", KONECT), comments="%")
    assert konect.nodes == (1, 2, 3) and konect.n_edges == 3
    mm = gi.read_edgelist(write(tmp_path / "m.txt", MATRIX_MARKET), comments="%", skiprows=3)
    assert mm.nodes == (1, 2, 3) and mm.n_edges == 3


def test_a_folder_of_parquet_parts_is_read_as_one_table(tmp_path):
    # item 12: a Dask-written edges.parquet/ folder
    folder = tmp_path / "edges.parquet"
    folder.mkdir()
    rng = np.random.default_rng(0)
    u, v = rng.integers(0, 50, 300), rng.integers(0, 50, 300)
    for i, part in enumerate(np.array_split(np.arange(300), 12)):
        pq.write_table(pa.table({"u": u[part], "v": v[part]}), folder / f"part.{i}.parquet")
    (folder / "_SUCCESS").write_text("")
    ours = gi.read_edgelist(folder)
    G = nx.MultiGraph()
    G.add_edges_from(zip(u.tolist(), v.tolist()))
    assert_same_graph(ours, gi.as_adjacency(G))
    pq.write_table(pa.table({"u": [1, 2], "v": [2, None]}), folder / "part.12.parquet")
    with pytest.raises(ValueError, match=r"part\.12\.parquet', row 2: node id missing"):
        gi.read_edgelist(folder)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="is a folder.*no Parquet"):
        gi.read_edgelist(empty)
    with pytest.raises(ValueError, match="is a folder.*a text or CSV edge list is one file"):
        gi.read_edgelist(folder, format="csv")


def test_a_late_string_id_in_a_long_file_warns_nothing(tmp_path):
    # item 13: pandas' DtypeWarning ("mixed types") stays inside the reader
    import warnings

    lines = [f"{i} {i + 1}" for i in range(300_000)] + ["299999 last"]
    path = write(tmp_path / "late.txt", "\n".join(lines) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        adj = gi.read_edgelist(path)
    assert "last" in adj.nodes and adj.n_nodes == 300_002


@pytest.mark.parametrize("suffix", [".txt", ".csv", ".txt.gz"])
def test_skiprows_and_skipfooter(tmp_path, suffix):
    # item 14: a count line first, a terminator line last
    header = "u v\n" if suffix == ".csv" else ""
    body = "1 2\n2 3\n# a comment\n3 1\n\n3 4\n"
    text = "4\n" + header + body + "-1\n\n"
    if suffix == ".csv":
        text = text.replace(" ", ",")
    path = tmp_path / f"count{suffix}"
    path.write_bytes(gzip.compress(text.encode()) if suffix.endswith(".gz") else text.encode())
    with pytest.raises(ValueError, match="line 1" if suffix != ".csv" else "not in the columns"):
        gi.read_edgelist(path)  # a CSV file: '4' is the header line
    adj = gi.read_edgelist(path, skiprows=1, skipfooter=1)
    assert adj.nodes == (1, 2, 3, 4) and adj.n_edges == 4
    bad = text.replace("3,1" if suffix == ".csv" else "3 1", "3 x" if suffix != ".csv" else "3,")
    path.write_bytes(gzip.compress(bad.encode()) if suffix.endswith(".gz") else bad.encode())
    line = 5 + (suffix == ".csv")
    with pytest.raises(ValueError, match=f"line {line}: "):
        gi.read_edgelist(path, skiprows=1, skipfooter=1, nodetype=int)
    for option in ("skiprows", "skipfooter"):
        with pytest.raises(ValueError, match=f"{option} must be an integer >= 0"):
            gi.read_edgelist(path, **{option: -1})
        with pytest.raises(TypeError, match=f"{option} must be an integer"):
            gi.read_edgelist(path, **{option: 1.5})


def test_skipfooter_of_more_lines_than_the_file_has_leaves_no_edge(tmp_path):
    path = write(tmp_path / "g.txt", "1 2\n2 3\n")
    with pytest.raises(ValueError, match="contains no edge"):
        gi.read_edgelist(path, skipfooter=2)
    assert gi.read_edgelist(path, skipfooter=1).nodes == (1, 2)


def test_skiprows_and_skipfooter_follow_the_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(_columns, "CHUNK_ROWS", 3)
    monkeypatch.setattr(_textlines, "TEXT_BLOCK", 5)  # the footer is found across many blocks
    path = write(tmp_path / "g.txt", "3 nodes\n" + "".join(f"{i}\t{i + 1}\n" for i in range(40)) + "END\nEND\n")
    ours = gi.read_edgelist(path, skiprows=1, skipfooter=2)
    assert ours.nodes == tuple(range(41))


@pytest.mark.parametrize("kind", ["gzip", "bz2", "xz", "zip"])
def test_a_compressed_file_without_its_suffix_is_named_as_one(tmp_path, kind):
    import bz2
    import lzma
    import zipfile

    path = tmp_path / "edges.txt"
    if kind == "zip":
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("edges.txt", "1 2\n" * 50)
    else:
        path.write_bytes({"gzip": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[kind](b"1 2\n" * 50))
    with pytest.raises(ValueError, match=f"edges.txt' looks like a {kind} file, not text"):
        gi.read_edgelist(path)


def test_matrix_market_size_line_is_refused_under_comments_percent(tmp_path):
    path = write(tmp_path / "m.txt", MATRIX_MARKET)
    with pytest.raises(ValueError, match=r"line 3: the size line of a Matrix Market file .* skiprows=3: '3 3 3'"):
        gi.read_edgelist(path, comments="%")
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        gi.read_edgelist(tmp_path / "edges.parquet")


# -- issue 52 ----------------------------------------------------------------------------------

@pytest.mark.parametrize("options, named", [
    ({"skiprows": 3}, ["skiprows=3"]),
    ({"skipfooter": 2}, ["skipfooter=2"]),
    ({"skiprows": 2, "skipfooter": 1}, ["skiprows=2", "skipfooter=1"]),
])
@pytest.mark.parametrize("suffix", [".txt", ".csv"])
def test_skipped_lines_that_leave_no_edge_are_named_by_their_option(tmp_path, options, named, suffix):
    # item 9: was "contains no edge (it is empty, or holds only comments and blank lines)"
    text = "# two edges\n1 2\n2 3\n" if suffix == ".txt" else "u,v\n1,2\n"
    path = write(tmp_path / f"two{suffix}", text)
    with pytest.raises(ValueError, match="contains no edge") as err:
        gi.read_edgelist(path, **options)
    message = str(err.value)
    assert all(name in message for name in named), message
    assert "empty" not in message and "only comments" not in message
    empty = write(tmp_path / f"empty{suffix}", "# nothing\n\n")
    with pytest.raises(ValueError, match="it is empty, or holds only comments"):
        gi.read_edgelist(empty, **options)


MATRIX_MARKET_REAL = ("%%MatrixMarket matrix coordinate real general\n%\n4 4 5\n1 2 0.5\n2 1 0.5\n2 3 2\n"
                      "3 4 1.5\n4 4 3\n")


@pytest.mark.parametrize("suffix", [".mtx", ".mtx.gz"])
def test_matrix_market_files_are_read_by_their_name(tmp_path, suffix):
    # item 12: was "cannot tell the format of 'net.mtx' from its suffix '.mtx'"
    path = tmp_path / f"net{suffix}"
    data = MATRIX_MARKET.encode()
    path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    adj = gi.read_edgelist(path)
    assert adj.nodes == (1, 2, 3) and adj.n_edges == 3
    assert gi.read_edgelist(path, comments="%", skiprows=3).n_edges == 3  # the old spelling still reads it
    real = write(tmp_path / "real.mtx", MATRIX_MARKET_REAL)
    weighted = gi.read_edgelist(real, weight=2, directed=True)
    assert weighted.nodes == (1, 2, 3, 4) and weighted.matrix[0, 1] == 0.5 and weighted.matrix[3, 3] == 3.0
    as_text = write(tmp_path / "matrix.txt", MATRIX_MARKET)
    assert gi.read_edgelist(as_text, format="matrixmarket").n_edges == 3


def test_what_is_not_a_matrix_market_edge_list_is_refused(tmp_path):
    dense = write(tmp_path / "dense.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n1\n")
    with pytest.raises(ValueError, match="dense.mtx'.*array.*not an edge list"):
        gi.read_edgelist(dense)
    plain = write(tmp_path / "plain.mtx", "1 2\n2 3\n")
    with pytest.raises(ValueError, match=r"plain.mtx'.*%%MatrixMarket.*format='text'"):
        gi.read_edgelist(plain)
    with pytest.raises(ValueError, match=r"comments=None.*'%'"):
        gi.read_edgelist(write(tmp_path / "net.mtx", MATRIX_MARKET), comments=None)


@pytest.mark.parametrize("name", ["out.ego-facebook", "out.moreno_zebra_zebra.gz", "out.konect"])
def test_konect_files_are_read_by_their_name(tmp_path, name):
    # item 12: KONECT's out.NAME, its % comments and its size line among them
    path = tmp_path / name
    text = KONECT.replace("3 1\n", "3 1 1 1234567\n")  # a weight and a time stamp column
    path.write_bytes(gzip.compress(text.encode()) if name.endswith(".gz") else text.encode())
    adj = gi.read_edgelist(path)
    assert adj.nodes == (1, 2, 3) and adj.n_edges == 3
    other = write(tmp_path / "zebra.tsv", KONECT)
    assert gi.read_edgelist(other, format="konect").n_edges == 3


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("ids", ["from 0", "from 1"])
def test_a_nodes_edges_first_line_warns_with_the_skiprows_hint(tmp_path, directed, ids):
    # item 13: "4039 88234" read as an edge, silently
    G = nx.gnm_random_graph(40, 90, seed=3)
    shift = 0 if ids == "from 0" else 1
    lines = "".join(f"{u + shift} {v + shift}\n" for u, v in G.edges())
    path = write(tmp_path / "facebook.txt", f"# made by hand\n{G.number_of_nodes()} {G.number_of_edges()}\n" + lines)
    with pytest.warns(UserWarning, match=r"line 2: .*40 nodes and 90 edges.*skiprows=2") as record:
        read = gi.read_edgelist(path, directed=directed)
    assert len(record) == 1 and read.n_nodes in (41, 42)
    assert gi.read_edgelist(path, skiprows=2, directed=directed).n_nodes == 40


def test_a_first_line_of_two_numbers_that_are_not_the_counts_is_an_edge(tmp_path):
    import warnings

    path = write(tmp_path / "g.txt", "3 7\n1 2\n2 3\n3 1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gi.read_edgelist(path).n_edges == 4


@pytest.mark.parametrize("terminator, hint", [("-1 -1\n", "skipfooter=1"), ("0 -1\n", "skipfooter=1")])
def test_a_negative_terminator_line_warns_with_the_skipfooter_hint(tmp_path, terminator, hint):
    # item 13: was a self-loop on node -1
    path = write(tmp_path / "course.txt", "1 2\n2 3\n3 1\n" + terminator)
    with pytest.warns(UserWarning, match=f"negative.*{hint}"):
        adj = gi.read_edgelist(path)
    assert -1 in adj.nodes
    with pytest.warns(UserWarning, match="line 1: .*negative.*skiprows=1"):
        gi.read_edgelist(write(tmp_path / "top.txt", "-1 -1\n1 2\n2 3\n"))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gi.read_edgelist(path, skipfooter=1).nodes == (1, 2, 3)
        # negative ids within the file are ids: no warning (SNAP's files may have them)
        gi.read_edgelist(write(tmp_path / "ids.txt", "1 2\n-2 3\n3 1\n-1 -1\n"))
