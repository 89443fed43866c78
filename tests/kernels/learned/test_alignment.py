import warnings

import numpy as np
import pytest
from scipy.optimize import minimize

from graphinvariants.kernels.learned.alignment import (
    alignment_weights,
    center_gram,
    centered_alignment,
    loo_ridge_error,
    target_gram,
)


def _random_grams(rng, n, p):
    out = []
    for _ in range(p):
        F = rng.random((n, 1 + rng.integers(1, 6)))
        F /= np.linalg.norm(F, axis=1, keepdims=True)
        out.append(F @ F.T)
    return out


def test_centering_is_h_k_h(rng):
    K = _random_grams(rng, 7, 1)[0]
    H = np.eye(7) - np.ones((7, 7)) / 7
    np.testing.assert_allclose(center_gram(K), H @ K @ H, atol=1e-14)  # different summation order


def test_alignment_is_the_cosine_of_the_centred_matrices(rng):
    K, L = _random_grams(rng, 9, 2)
    H = np.eye(9) - np.ones((9, 9)) / 9
    Kc, Lc = H @ K @ H, H @ L @ H
    expected = np.sum(Kc * Lc) / np.linalg.norm(Kc) / np.linalg.norm(Lc)
    assert centered_alignment(K, L) == pytest.approx(expected, abs=1e-13)
    assert isinstance(centered_alignment(K, L), float)


def test_target_grams():
    np.testing.assert_array_equal(target_gram([2, 0, 2, 1]), [[1, 0, 1, 0], [0, 1, 0, 0], [1, 0, 1, 0], [0, 0, 0, 1]])
    z = np.array([1.0, 2.0, 4.5])
    z = (z - z.mean()) / z.std()
    np.testing.assert_allclose(target_gram([1.0, 2.0, 4.5]), np.outer(z, z), atol=1e-15)
    # integers read as classes unless told
    assert target_gram([1, 2, 3], task="regression")[0, 2] < 0
    for bad, message in (([1, 1, 1], "single class"), ([1.5, 1.5], "constant"), ([0.5, np.nan], "NaN")):
        with pytest.raises(ValueError, match=message):
            target_gram(bad)
    with pytest.raises(ValueError, match="task"):
        target_gram([0, 1], task="ranking")


@pytest.mark.parametrize("combination", ["align", "alignf"])
@pytest.mark.parametrize("y", [[0, 1] * 6, [0, 1, 2] * 4, list(np.linspace(-1, 3, 12) ** 2)], ids=["binary", "multiclass", "regression"])
def test_weights_are_non_negative_and_sum_to_one(rng, combination, y):
    grams = _random_grams(rng, 12, 5)
    weights, alignments = alignment_weights(grams, y, combination=combination)
    assert weights.shape == alignments.shape == (5,)
    assert np.all(weights >= 0) and weights.sum() == pytest.approx(1.0, abs=1e-12)
    combined = sum(w * K for w, K in zip(weights, grams))
    np.testing.assert_allclose(np.diag(combined), 1.0, atol=1e-12)
    assert np.linalg.eigvalsh(combined).min() > -1e-12


def test_alignf_maximises_the_alignment_of_the_sum(rng):
    """ALIGNF against a brute-force maximisation over the simplex (softmax parameters)."""
    y = np.array([0, 1, 1, 0, 2, 2, 1, 0, 1, 2])
    grams = _random_grams(rng, 10, 4)
    L = target_gram(y)
    weights, _ = alignment_weights(grams, y, combination="alignf")
    best = centered_alignment(sum(w * K for w, K in zip(weights, grams)), L)

    def negative(theta):
        w = np.exp(theta) / np.exp(theta).sum()
        return -centered_alignment(sum(wi * K for wi, K in zip(w, grams)), L)

    brute = max(-minimize(negative, rng.normal(size=4), method="Nelder-Mead",
                          options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000}).fun for _ in range(5))
    assert best >= brute - 1e-7  # Nelder-Mead reaches the optimum only to its tolerance
    assert best >= max(centered_alignment(K, L) for K in grams) - 1e-12


def test_align_weights_are_proportional_to_the_alignments(rng):
    y = [0, 1] * 5
    grams = _random_grams(rng, 10, 3)
    weights, alignments = alignment_weights(grams, y, combination="align")
    positive = np.clip(alignments, 0, None)
    np.testing.assert_allclose(weights, positive / positive.sum(), atol=1e-15)


def test_duplicate_candidates_and_no_positive_alignment():
    y = [0, 0, 1, 1]
    L = target_gram(y)
    weights, _ = alignment_weights([L, L], y)
    np.testing.assert_allclose(weights, [0.5, 0.5], atol=1e-6)
    anti = 1 - L  # aligned negatively with the classes
    np.fill_diagonal(anti, 1.0)
    weights, alignments = alignment_weights([anti, np.ones((4, 4))], y)
    assert alignments[0] < 0 and alignments[1] == 0.0
    assert weights.tolist() == [0.0, 1.0]  # nothing aligns positively: all on the best aligned


def test_bad_inputs(rng):
    grams = _random_grams(rng, 4, 2)
    with pytest.raises(ValueError, match="shape"):
        alignment_weights(grams, [0, 1, 0])
    with pytest.raises(ValueError, match="combination"):
        alignment_weights(grams, [0, 1, 0, 1], combination="mkl")
    with pytest.raises(TypeError, match="single matrix"):
        alignment_weights(grams[0], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="NaN"):
        alignment_weights([np.full((4, 4), np.nan)], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="at least one"):
        alignment_weights([], [0, 1, 0, 1])


def _brute_force_loo(K, Y, ridge):
    """Refit kernel ridge regression without graph i, for every i, and predict it."""
    n = len(K)
    scale = np.mean(np.diag(K))
    residuals = np.empty_like(Y)
    for i in range(n):
        keep = np.arange(n) != i
        alpha = np.linalg.solve(K[np.ix_(keep, keep)] + ridge * scale * np.eye(n - 1), Y[keep])
        residuals[i] = Y[i] - K[i, keep] @ alpha
    return float(np.mean(residuals**2))


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_loo_ridge_error_equals_refitting_without_each_graph(rng, task):
    n = 23
    K = sum(_random_grams(rng, n, 3)) / 3
    y = rng.integers(3, size=n) if task == "classification" else rng.normal(size=n) * 4 + 1
    if task == "classification":
        Y = np.eye(3)[y]
    else:
        Y = ((y - y.mean()) / y.std())[:, None]
    Y = Y - Y.mean(axis=0)
    for ridge in (1e-2, 1.0):
        # 1e-9: the closed form works through an eigendecomposition, the brute force
        # through 23 linear solves; both are well conditioned at these ridges
        assert loo_ridge_error(K, y, task=task, ridges=(ridge,)) == pytest.approx(
            _brute_force_loo(K, Y, ridge), rel=1e-9)
    both = loo_ridge_error(K, y, task=task, ridges=(1e-2, 1.0))
    assert both == min(loo_ridge_error(K, y, task=task, ridges=(r,)) for r in (1e-2, 1.0))  # exact: the same sums
    assert isinstance(both, float)


def test_loo_ridge_error_prefers_a_kernel_that_generalises(rng):
    y = np.repeat([0, 1], 10)
    smooth = target_gram(y) * 0.8 + 0.2  # same-class graphs alike
    assert loo_ridge_error(smooth, y) < loo_ridge_error(np.eye(20), y)  # the identity predicts nothing


def test_loo_ridge_error_refuses_bad_input():
    y = [0, 1, 0, 1]
    with pytest.raises(ValueError, match="shape"):
        loo_ridge_error(np.eye(3), y)
    with pytest.raises(ValueError, match="NaN"):
        loo_ridge_error(np.full((4, 4), np.nan), y)
    with pytest.raises(ValueError, match="ridges"):
        loo_ridge_error(np.eye(4), y, ridges=(0.0,))
    with pytest.raises(ValueError, match="single class"):
        loo_ridge_error(np.eye(4), [1, 1, 1, 1])


@pytest.mark.parametrize("block_entries", [2**22, 3 * 11 * 4])  # one block; blocks of 4 rows and a rest of 3
def test_inner_products_of_centred_matrices_equal_the_pairwise_definition(rng, monkeypatch, block_entries):
    from graphinvariants.kernels.learned import alignment

    monkeypatch.setattr(alignment, "_BLOCK_ENTRIES", block_entries)
    grams = _random_grams(rng, 11, 3)
    target = center_gram(target_gram(rng.integers(2, size=11)))
    M, a = alignment._centred_inner_products(grams, target)
    centred = [center_gram(K) for K in grams]
    expected = np.array([[np.sum(Kk * Kl) for Kl in centred] for Kk in centred])
    # 1e-13: the same products summed slice by slice and in another order
    np.testing.assert_allclose(M, expected, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(a, [np.sum(Kc * target) for Kc in centred], rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(M, M.T)  # exact: symmetrised


def test_targets_too_large_to_standardise_are_refused(rng):
    """Was: overflow warnings, a zero target and leave-one-out errors of 0.0."""
    y = np.arange(6) * 1e300 + 0.5
    grams = _random_grams(rng, 6, 2)
    for call in (lambda: alignment_weights(grams, y), lambda: loo_ridge_error(grams[0], y),
                 lambda: target_gram(y, task="regression")):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no overflow warning on the way
            with pytest.raises(ValueError, match="too large to standardise"):
                call()


def test_centered_alignment_checks_its_input_and_ignores_scale(rng):
    """Was: numpy's broadcasting errors for mismatched or non-square matrices, 0.0 for a
    NaN matrix, nan at scale 1e200 and 0.0 at 1e-200 (the cosine is 1 at every scale)."""
    K = _random_grams(rng, 5, 1)[0]
    L = target_gram([0, 0, 1, 1, 1])
    for bad, message in ((np.eye(4), "same shape"), (K[:4], "square"), (np.ones(5), "square"),
                         (np.full((5, 5), np.nan), "NaN"), (np.full((5, 5), np.inf), "NaN")):
        with pytest.raises(ValueError, match=message):
            centered_alignment(bad, L)
    for scale in (1e-200, 1e200):
        assert centered_alignment(scale * K, scale * K) == pytest.approx(1.0, abs=1e-15)  # a cosine, up to rounding
        assert centered_alignment(scale * K, L) == pytest.approx(centered_alignment(K, L), abs=1e-13)
    with pytest.raises(ValueError, match="overflow float64"):
        alignment_weights([1e200 * K, K], [0, 0, 1, 1, 1])


# -- constant regression targets: one check, at every entry point, before any work ---------------
_CONSTANT_TARGETS = ([0.3] * 20, [1e6 + 0.1] * 20, [0.3] * 19 + [float(np.nextafter(0.3, 1.0))])


@pytest.mark.parametrize("y", _CONSTANT_TARGETS)
def test_constant_float_targets_are_refused_whatever_their_rounding(y):
    # np.std([0.3] * 20) is 5.6e-17, not 0: the check is relative to the targets' magnitude
    from graphinvariants.kernels.learned.alignment import read_targets

    with pytest.raises(ValueError, match="constant"):
        read_targets(y, task="regression")
    with pytest.raises(ValueError, match="constant"):
        target_gram(y, task="regression")


def test_nearly_constant_targets_that_differ_are_kept():
    from graphinvariants.kernels.learned.alignment import read_targets

    task, y = read_targets([1e6, 1e6 + 1e-3, 1e6 + 2e-3])
    assert task == "regression" and y.dtype == np.float64


def _twenty_graphs():
    import networkx as nx

    return [nx.cycle_graph(n) for n in range(5, 15)] + [nx.star_graph(n) for n in range(4, 14)]


@pytest.mark.parametrize("task", ["auto", "regression"])
def test_graph_kernel_refuses_a_constant_float_target_before_embedding(task, monkeypatch):
    import graphinvariants as gi
    from graphinvariants.kernels.learned import _combination as learned

    def embedding_not_expected(*args, **kwargs):
        raise AssertionError("the graphs were embedded before the targets were checked")

    monkeypatch.setattr(learned.LearnedCombination, "candidate_functionals", embedding_not_expected)
    with pytest.raises(ValueError, match="constant"):
        gi.GraphKernel(task=task).fit(_twenty_graphs(), [0.3] * 20)


def test_learned_features_refuse_a_constant_float_target():
    import graphinvariants as gi

    with pytest.raises(ValueError, match="constant"):
        gi.LearnedFeatures(n_components=5).fit(_twenty_graphs(), [0.3] * 20)


def test_evaluate_estimator_refuses_a_constant_float_target_before_any_fold(monkeypatch):
    import graphinvariants as gi
    from graphinvariants.evaluation import _estimator

    def no_fold(*args, **kwargs):
        raise AssertionError("a fold ran")

    monkeypatch.setattr(_estimator, "run_folds", no_fold)
    with pytest.raises(ValueError, match="constant"):
        gi.evaluate_estimator(_twenty_graphs(), [0.3] * 20, task="regression", n_repeats=1, n_folds=2)


def test_a_parameter_no_supported_member_takes_names_who_takes_it_and_what_it_needs():
    """Was: "parameters ['bandwidth_scale'] reach no candidate member of ['closed_histogram', ...]",
    a list of the members that do not take it."""
    import networkx as nx

    import graphinvariants as gi

    graphs = [nx.cycle_graph(n) for n in range(5, 11)] + [nx.star_graph(n) for n in range(4, 10)]
    with pytest.raises(ValueError, match=r"bandwidth_scale reaches only attributes, which needs node_attributes"):
        gi.GraphKernel(bandwidth_scale=2.0, node_label=None).fit(graphs, [0] * 6 + [1] * 6)
