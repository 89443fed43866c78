"""GrowingVocabulary: batch by batch, then the numbering of one batch of all the graphs."""

import numpy as np
import pytest
import scipy.sparse as sp

from graphinvariants.embeddings import WeisfeilerLehman
from graphinvariants.embeddings.wl_vocabulary import GrowingVocabulary


@pytest.fixture(scope="module")
def mutag(tu_load):
    return tu_load("MUTAG")


@pytest.mark.parametrize("params", [dict(n_iter=3), dict(n_iter=4, node_label="label"),
                                    dict(n_iter=2, node_label="label", edge_label="label")])
def test_batches_then_canonical_is_one_batch(mutag, params):
    wl = WeisfeilerLehman(**params)
    graphs = list(mutag)
    whole = wl.as_embeddings(graphs)
    vocabulary = GrowingVocabulary(wl)
    blocks = []
    for a in range(0, len(graphs), 29):
        before = vocabulary.n_columns
        counts = vocabulary.counts(wl.as_embeddings(graphs[a : a + 29]))
        assert counts.shape[1] == vocabulary.n_columns >= before  # earlier columns stay
        blocks.append(counts)
    fitted, place = vocabulary.canonical()
    assert fitted.sizes == whole.sizes
    np.testing.assert_array_equal(fitted.initial, whole.initial)
    for mine, theirs in zip(fitted.signatures, whole.signatures):
        assert list(mine) == list(theirs)
        for d in mine:
            np.testing.assert_array_equal(mine[d], theirs[d])
    assert sorted(place.tolist()) == list(range(vocabulary.n_columns))
    for block in blocks:
        block.resize((block.shape[0], vocabulary.n_columns))
    c = sp.coo_array(sp.vstack(blocks))
    moved = sp.csr_array((c.data, (c.row, place[c.col])), shape=whole.counts.shape)
    assert (moved != whole.counts).nnz == 0


def test_first_seen_columns_never_move(mutag):
    wl = WeisfeilerLehman(n_iter=2, node_label="label")
    vocabulary = GrowingVocabulary(wl)
    graphs = list(mutag)[:20]
    first = vocabulary.counts(wl.as_embeddings(graphs[:10]))
    vocabulary.counts(wl.as_embeddings(graphs[10:]))
    again = vocabulary.counts(wl.as_embeddings(graphs[:10]))  # nothing new: the same columns
    first.resize(again.shape)
    assert (first != again).nnz == 0


def test_closed_walks_refused():
    with pytest.raises(ValueError, match="closed walks"):
        GrowingVocabulary(WeisfeilerLehman(closed_walks=3))
