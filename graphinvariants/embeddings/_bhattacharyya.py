"""Bhattacharyya coefficients of many pairs of Gaussians at once (private).

Shared by the Gaussian functional (tiles of the pair engine) and nothing else.

For ``k <= UNROLL_MAX_K`` the Cholesky factor of ``(Sigma_A + Sigma_B) / 2`` is written
out entry by entry as numpy operations on whole tiles, so there is no Python call per
pair and memory stays ``O(tile * k^2)``. For larger ``k`` (where the unrolled form
would issue ``k^3 / 6`` numpy calls per tile) the factor comes from LAPACK on a stack
of matrices.

Log-determinants never over- or underflow: the pivots of each pair are divided by the
power of two nearest the pair's mean variance (an exact operation), multiplied in
groups of at most ``GROUP`` and the group products' logarithms added. A scaled pivot
lies between ``ridge / k`` and ``2 k`` (the ridge bounds the smallest eigenvalue), so a
product of eight of them stays far inside the float64 range for every ``k`` accepted;
a group that still leaves the range (possible only with ``ridge=0``) is redone with
one logarithm per pivot.

The compiled engine (``GaussianEmbedding(engine="numba")``, :mod:`._bhattacharyya_numba`)
performs the same operations in the same order, pair by pair in vectorised compiled
code, but for its logarithm and exponential (fdlibm's, vectorised), so the two agree
to about 1e-15 relative. This module chooses between them (:func:`uses_compiled`) and
adapts the pair engine's tiles to the compiled one (:func:`compiled_tile`,
:func:`compiled_pairs`).

Pairs the direct evaluation cannot resolve
------------------------------------------
The Cholesky pivots of ``(Sigma_A + Sigma_B) / 2`` are differences of numbers as large
as the largest variance, so each carries a rounding of about ``eps`` times that; next
to a pivot of the size of the smallest variance, the error in ``log K`` is about
``eps * bound`` with ``bound = (tr A + tr B) / (min A + min B)`` (traces and smallest
eigenvalues of the two regularised covariances; at most 13 ``eps * bound`` on every
pair of MUTAG, ENZYMES and NCI1). Where a covariance is singular (the ridge's floor, a
bound near ``1e12``) that is 1e-5 of ``log K``; for two nearly equal Gaussians it is
also large next to ``1 - K`` itself, which is second order in their difference.

So a pair keeps the direct value only when ``bound <= min(DIRECT_MAX_BOUND,
DIRECT_PER_DISTANCE * D)``, ``D = -log K`` its Bhattacharyya distance: its rounding
is then below about ``3e-9`` of ``log K`` and ``3e-7`` of ``D`` (so of ``1 - K``).
Every other pair, flagged -1.0 by both engines, is recomputed by :func:`whitened`:
in the coordinates that whiten one of the two Gaussians (the one first in the order
of :func:`_keys`, so ``K(A, B)`` and ``K(B, A)`` are the same bits), where nothing
is subtracted that is larger than the result. Identical Gaussians give exactly 1.
On MUTAG, ENZYMES and NCI1 (k = 5) that is 0.5 %, 0.3 % and 0.03 % of the pairs.
"""

import threading
import weakref

import numpy as np

from .._utils.optional import compiled, compiled_available

__all__ = []

#: Values of GaussianEmbedding(engine=...).
ENGINES = ("auto", "numba", "numpy")
#: Below this many pairs (``len(left) * len(right)``) engine="auto" keeps numpy: a
#: matrix this small takes numpy well under a second, less than importing numba and
#: loading its compiled code in a fresh process (and far less than the first compile).
AUTO_MIN_PAIRS = 4_000_000
_NOT_FINITE = "the kernel is not finite for some pairs: their covariances are numerically singular; increase ridge"

#: Largest k for the unrolled Cholesky; above it, batched LAPACK.
UNROLL_MAX_K = 16
#: Pivots multiplied together before one logarithm is taken.
GROUP = 8
_LN2 = float(np.log(2.0))
_TINY, _HUGE = 1e-290, 1e290
#: Largest condition bound ``(tr A + tr B) / (min A + min B)`` evaluated directly.
DIRECT_MAX_BOUND = 1e6
#: ... and at most this many times the pair's Bhattacharyya distance ``-log K``.
DIRECT_PER_DISTANCE = 1e8
#: The value both engines write for a pair left to :func:`whitened`.
UNRESOLVED = -1.0


def pair_terms(mean_a, half_a, mean_b, half_b, diagonal_only=False):
    """log|(Sa + Sb)/2| and the Mahalanobis term for all pairs of a tile.

    ``half_*`` are the halved covariances. With ``diagonal_only`` the pairs are
    ``(a_i, b_i)`` instead of the full tile.
    """
    k = mean_a.shape[1]
    if diagonal_only:
        def pair(x, y):
            return x + y
    else:
        def pair(x, y):
            return x[:, None] + y[None, :]
    # exponent of the power of two nearest trace(S) / k, per pair
    trace_a = np.trace(half_a, axis1=1, axis2=2)
    trace_b = np.trace(half_b, axis1=1, axis2=2)
    exponent = np.frexp(pair(trace_a, trace_b) / k)[1]
    scale = np.ldexp(1.0, -exponent)
    if k > UNROLL_MAX_K:
        pivots, maha = _lapack_terms(pair(half_a, half_b), pair(mean_a, -mean_b))
    else:
        pivots, maha = _unrolled_terms(mean_a, half_a, mean_b, half_b, pair, k)
    logdet = exponent * (k * _LN2)
    for start in range(0, k, GROUP):
        group = pivots[start : start + GROUP]
        product = group[0] * scale
        for p in group[1:]:
            product *= p * scale
        bad = ~((product > _TINY) & (product < _HUGE))
        with np.errstate(divide="ignore"):
            logs = np.log(product)
            if bad.any():  # only with ridge=0 and nearly singular pairs
                logs = np.where(bad, sum(np.log(p * scale) for p in group), logs)
        logdet = logdet + logs
    return logdet, maha


def _unrolled_terms(mean_a, half_a, mean_b, half_b, pair, k):
    """Cholesky pivots (list of k arrays) and Mahalanobis term, entry by entry."""
    lower = [[None] * k for _ in range(k)]
    inv_diag = [None] * k
    pivots = [None] * k
    for j in range(k):
        for i in range(j, k):
            s = pair(half_a[:, i, j], half_b[:, i, j])
            for m in range(j):
                s -= lower[i][m] * lower[j][m]
            if i == j:
                np.maximum(s, 0.0, out=s)
                pivots[j] = s
                with np.errstate(divide="ignore"):
                    inv_diag[j] = 1.0 / np.sqrt(s)
            else:
                s *= inv_diag[j]
                lower[i][j] = s
    maha = None
    solved = []
    for i in range(k):
        r = pair(mean_a[:, i], -mean_b[:, i])
        for m in range(i):
            r -= lower[i][m] * solved[m]
        r *= inv_diag[i]
        solved.append(r)
        maha = r * r if maha is None else maha + r * r
    return pivots, maha


def _lapack_terms(cov, diff):
    """Cholesky pivots and Mahalanobis term from LAPACK on a stack of matrices."""
    shape = cov.shape[:-2]
    k = cov.shape[-1]
    cov = cov.reshape(-1, k, k)
    diff = diff.reshape(-1, k)
    try:
        chol = np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        raise ValueError(
            "a pair covariance is not positive definite: the covariances are numerically "
            "singular; increase ridge"
        ) from None
    z = np.linalg.solve(chol, diff[..., None])[..., 0]
    diagonal = np.diagonal(chol, axis1=1, axis2=2)
    pivots = [(diagonal[:, j] ** 2).reshape(shape) for j in range(k)]
    return pivots, (z * z).sum(axis=1).reshape(shape)


def combine(logdet_a, logdet_b, logdet_pair, maha, size, least):
    """K from its log-determinant and Mahalanobis parts; refuses to return NaN.

    ``size`` and ``least`` are the pairs' ``tr A + tr B`` and ``min A + min B`` (of
    the halved covariances): a pair the direct evaluation cannot resolve gets
    :data:`UNRESOLVED` (see the module's notes), for :func:`settle`.
    """
    log_k = np.minimum(0.25 * (logdet_a + logdet_b) - 0.5 * logdet_pair - 0.125 * maha, 0.0)
    out = np.exp(log_k)
    if not np.all(np.isfinite(out)):
        raise ValueError(_NOT_FINITE)
    return np.where(_resolved(size, least, log_k), out, UNRESOLVED)


def _resolved(size, least, log_k):
    """Whether the direct values of pairs stand: ``size <= least * min(DIRECT_MAX_BOUND,
    DIRECT_PER_DISTANCE * -log K)`` (the module's notes), elementwise."""
    limit = np.minimum(DIRECT_MAX_BOUND, DIRECT_PER_DISTANCE * (0.0 - log_k))
    with np.errstate(over="ignore"):  # variances near 1e308: an infinite limit, as compiled
        return size <= least * limit


#: Relative margin of :func:`reaches` over the rounding of the test of :func:`_resolved`
#: (a few units in the last place): a pair outside both graphs' reach is resolved.
_MARGIN = 1e-6


def reaches(sizes, least):
    """Per graph, ``-r``: a pair of graphs whose Bhattacharyya distance exceeds both of
    their ``r`` is resolved directly; ``-inf`` for a graph whose pairs may all need
    the whitened evaluation.

    The bound ``(tr A + tr B) / (min A + min B)`` of a pair lies between those of its
    two graphs, ``tr A / min A`` and ``tr B / min B``; ``r`` is that of the graph, with
    :data:`_MARGIN` to spare, over :data:`DIRECT_PER_DISTANCE` (and infinite beyond
    :data:`DIRECT_MAX_BOUND`). :func:`direct_tile` applies the exact test only to the
    pairs within reach (about 2 to 5 % of those of MUTAG, ENZYMES and NCI1), so the
    test costs a comparison per pair, not eight operations.
    """
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        bound = sizes / least * (1.0 + _MARGIN)
        fine = (bound < DIRECT_MAX_BOUND) & (sizes < 1e300) & (least > 1e-290)
        return np.where(fine, bound / -DIRECT_PER_DISTANCE, -np.inf)


def direct_tile(left, right, rows, cols, logdet_pair, maha):
    """K of the pairs ``(left[rows], right[cols])`` from their Cholesky terms
    (:func:`pair_terms`), as :func:`combine` gives them, and the flat positions of the
    pairs set to :data:`UNRESOLVED` (``rows``, ``cols``: integer arrays)."""
    log_k = 0.25 * (left.logdets[rows][:, None] + right.logdets[cols][None, :]) - 0.5 * logdet_pair - 0.125 * maha
    log_k = np.minimum(log_k, 0.0)
    out = np.exp(log_k)
    if not np.all(np.isfinite(out)):
        raise ValueError(_NOT_FINITE)
    near = np.flatnonzero(log_k >= np.minimum.outer(left.reaches[rows], right.reaches[cols]))
    if near.size:
        i, j = np.divmod(near, len(cols))
        i, j = rows[i], cols[j]
        kept = _resolved(left.sizes[i] + right.sizes[j], left.least[i] + right.least[j], log_k.reshape(-1)[near])
        near = near[~kept]
        out.reshape(-1)[near] = UNRESOLVED
    return out, near


def resolve(left, right, i, j):
    """Kernel values of the pairs ``(left[i[p]], right[j[p]])`` that the direct
    evaluation left :data:`UNRESOLVED`: 1.0 for identical Gaussians (the diagonal of a
    Gram matrix) without more work, :func:`whitened` for the others."""
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    same = (left.means[i] == right.means[j]).all(axis=1) & (left.roots[i] == right.roots[j]).all(axis=(1, 2))
    out = np.ones(i.size)
    if not same.all():
        out[~same] = whitened(left, right, i[~same], j[~same])
    return out


def settle(left, right, i, j, out):
    """Replace the :data:`UNRESOLVED` values of ``out`` (the pairs ``(left[i],
    right[j])``, broadcast to ``out``'s shape) by :func:`resolve`'s, in place."""
    where = np.flatnonzero(out.reshape(-1) == UNRESOLVED)
    if where.size:
        i, j = np.broadcast_arrays(i, j)
        out.reshape(-1)[where] = resolve(left, right, i.reshape(-1)[where], j.reshape(-1)[where])
    return out


def _keys(side, index):
    """Each graph's mean and covariance root, one row per graph: identical rows are
    identical Gaussians, and their order picks the reference of a pair."""
    return np.concatenate([side.means[index], side.roots[index].reshape(len(index), -1)], axis=1)


def whitened(left, right, i, j):
    """Kernel values of the pairs ``(left[i[p]], right[j[p]])``, accurately.

    Each prepared side holds, per graph, the eigenvalues ``lam`` (ascending, after the
    ridge's floor) and eigenvectors ``V`` of its covariance, as ``whiten = V lam^-1/2``
    and ``roots = V lam^1/2``. With ``A`` the reference of the pair and ``G =
    whiten_A^T roots_B`` (``B`` in the coordinates where ``A`` is the identity):

    * ``log|Sigma_B| - log|Sigma_A| = sum_i log(lam_B,i / lam_A,i)``, ratios of the
      sorted eigenvalues (near 1 when the two are alike);
    * ``log|(I + G G^T) / 2|`` from the R of a QR factorisation of ``[I; G^T]``, its
      rows sorted by decreasing norm (Householder QR is then accurate row by row, so
      each eigen-direction of either Gaussian keeps its own scale);
    * the Mahalanobis term ``2 |R^-T whiten_A^T (mu_A - mu_B)|^2``.

    ``log K = 1/4 log|Sigma_B| / |Sigma_A| - 1/2 log|(I + G G^T) / 2| - 1/8 maha``.
    The reference is the graph whose row of :func:`_keys` comes first, so the pair
    ``(B, A)`` takes the same operations; identical rows give 1.0.
    """
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    out = np.empty(i.size)
    if not i.size:
        return out
    k = left.means.shape[1]
    per_block = max(1, _BLOCK_PAIRS // k**2)
    for start in range(0, i.size, per_block):
        p, q = i[start : start + per_block], j[start : start + per_block]
        ka, kb = _keys(left, p), _keys(right, q)
        differ = ka != kb
        first = np.argmax(differ, axis=1)
        rows = np.arange(len(p))
        same = ~differ[rows, first]
        swap = kb[rows, first] < ka[rows, first]  # B first: B is the reference
        if left is right:  # one side (a Gram matrix): choose the graphs, then gather
            a, b = np.where(swap, q, p), np.where(swap, p, q)
            mean_a, lam_a, whiten_a = left.means[a], left.eigenvalues[a], left.whiten[a]
            mean_b, lam_b, root_b = left.means[b], left.eigenvalues[b], left.roots[b]
        else:
            mean_a = np.where(swap[:, None], right.means[q], left.means[p])
            mean_b = np.where(swap[:, None], left.means[p], right.means[q])
            lam_a = np.where(swap[:, None], right.eigenvalues[q], left.eigenvalues[p])
            lam_b = np.where(swap[:, None], left.eigenvalues[p], right.eigenvalues[q])
            whiten_a = np.where(swap[:, None, None], right.whiten[q], left.whiten[p])
            root_b = np.where(swap[:, None, None], left.roots[p], right.roots[q])
        log_k = _whitened_log_k(mean_a, lam_a, whiten_a, mean_b, lam_b, root_b)
        values = np.exp(np.minimum(log_k, 0.0))
        values[same] = 1.0
        if not np.all(np.isfinite(values)):
            raise ValueError(_NOT_FINITE)
        out[start : start + per_block] = values
    return out


#: Pairs of k x k matrices held at a time by :func:`whitened` (about 16 MiB each).
_BLOCK_PAIRS = 2**21


def _whitened_log_k(mean_a, lam_a, whiten_a, mean_b, lam_b, root_b):
    """``log K`` of stacked pairs, in the coordinates whitening ``A`` (see :func:`whitened`)."""
    n, k = mean_a.shape
    G = np.matmul(whiten_a.transpose(0, 2, 1), root_b)
    stacked = np.concatenate([np.broadcast_to(np.eye(k), G.shape), G.transpose(0, 2, 1)], axis=1)
    norms = np.concatenate([np.ones((n, k)), np.sqrt(np.einsum("pij,pij->pj", G, G))], axis=1)
    order = np.argsort(-norms, axis=1, kind="stable")
    R = np.linalg.qr(stacked[np.arange(n)[:, None], order], mode="r")
    diagonal = np.diagonal(R, axis1=1, axis2=2)
    with np.errstate(divide="ignore"):
        logdet_pair = np.log(diagonal * diagonal * 0.5).sum(axis=1)  # log|(I + G G^T) / 2|
        ratio = np.log(lam_b / lam_a).sum(axis=1)
    diff = np.einsum("pji,pj->pi", whiten_a, mean_a - mean_b)
    solved = np.empty_like(diff)  # R^T y = diff, forward substitution
    for r in range(k):
        solved[:, r] = (diff[:, r] - np.einsum("pm,pm->p", R[:, :r, r], solved[:, :r])) / R[:, r, r]
    return 0.25 * ratio - 0.5 * logdet_pair - 0.25 * np.einsum("pi,pi->p", solved, solved)


# --- the compiled engine (numba) ---------------------------------------------------


def check_engine(engine):
    """Validate ``engine``; for ``"numba"``, fail now (ImportError) if numba is missing."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    if engine == "numba" and _compiled_module() is None:
        raise ImportError(
            "engine='numba' needs numba, which could not be imported; install it with "
            "`pip install numba` (or `pip install graphinvariants[fast]`), or use "
            "engine='auto' or 'numpy'"
        )
    return engine


def _compiled_module():
    """The compiled engine's module, or None when numba cannot be imported."""
    return compiled("graphinvariants.embeddings._bhattacharyya_numba")


def may_use_compiled(engine, k):
    """Whether ``engine`` can evaluate pairs of dimension ``k`` compiled (for ``"auto"``:
    numba is installed; it is not imported)."""
    if engine == "numpy" or k > UNROLL_MAX_K:
        return False
    return engine == "numba" or compiled_available()


def uses_compiled(engine, k, n_pairs):
    """Whether ``engine`` evaluates ``n_pairs`` pairs of dimension ``k`` compiled.

    ``"numpy"``: never. ``"numba"``: whenever ``k <= UNROLL_MAX_K``. ``"auto"``: in
    addition, only for at least :data:`AUTO_MIN_PAIRS` pairs and when numba can be
    imported (numba is not imported for smaller matrices).
    """
    if engine == "numpy" or k > UNROLL_MAX_K:
        return False
    if engine == "auto" and n_pairs < AUTO_MIN_PAIRS:
        return False
    return _compiled_module() is not None


_warm_lock = threading.Lock()
_warm_threads = {}


def warm_up(engine, k, n_graphs):
    """Start loading the compiled engine for dimension ``k`` in a background thread,
    once per process and ``k``, when a Gram matrix of ``n_graphs`` graphs would use it.

    Importing numba and loading the compiled pair code from numba's cache takes about
    0.4 s in a fresh process (on NCI1, 4,110 graphs, five times the 0.07 s of the pairs
    themselves). Started when the invariants of such a collection are computed, that
    work runs beside the power iterations instead of before the first matrix. Returns
    the thread, or None when there is nothing to load.

    With an empty numba cache (a new environment, or ``NUMBA_CACHE_DIR`` pointing to a
    new folder) the code is compiled instead, once: on NCI1 the first matrix of the
    first process then took 2.8 s against 0.37 s in a later process and 0.68 s by
    numpy (median of three fresh processes each, ``benchmarks/benchmarks/kernels.py``, asv
    ``kernels.FirstCall``, empty numba cache). The engine is not switched to numpy while it compiles: "auto" chooses by
    the size of the matrix only, so a matrix's bits never depend on the state of a
    cache.
    """
    if not may_use_compiled(engine, k) or (engine == "auto" and n_graphs * n_graphs < AUTO_MIN_PAIRS):
        return None
    with _warm_lock:
        thread = _warm_threads.get(k)
        if thread is None:
            # not a daemon: a process that ends at once waits for it rather than
            # stopping an import half-way
            thread = threading.Thread(target=_load_compiled, args=(k,), name=f"graphinvariants-numba-k{k}")
            _warm_threads[k] = thread
            thread.start()
    return thread


def _load_compiled(k):
    """Import the compiled engine and run what a Gram matrix calls (``pack_side``,
    ``tile_values``) once on two tiny Gaussians of dimension ``k``, so that their
    compiled code is loaded (or compiled, the first time). Not ``paired_values``: a
    Gram matrix never calls it, and with an empty numba cache compiling it too took
    0.5-0.85 s more beside the matrix (and at exit: the thread is not a daemon)."""
    try:
        module = _compiled_module()
        if module is None:
            return
        means, logdets, ones = np.zeros((2, k)), np.zeros(2), np.ones(2)
        halves = np.repeat(np.eye(k)[None] / 2, 2, axis=0)
        A = module.pack_side(means, halves, ones, ones)
        module.tile_values(module.token(k), A, logdets, 0, 2, A, logdets, 0, 2)
    except Exception:  # noqa: BLE001 - only a head start: the caller meets any real error itself
        pass


#: Packed sides of the compiled engine, per prepared side (freed with it).
_sides = weakref.WeakKeyDictionary()
_sides_lock = threading.Lock()


def _packed_side(prepared):
    """``(packed, logdets)`` of a prepared side for the compiled engine, computed once
    (the log-determinants are the prepared side's, as in the numpy engine)."""
    with _sides_lock:
        side = _sides.get(prepared)
        if side is None:
            # writable C-contiguous copies if need be: one compiled signature for all
            arrays = (prepared.means, prepared.half_covs, prepared.sizes, prepared.least, prepared.logdets)
            means, halves, sizes, least, logdets = (np.require(a, np.float64, ["C", "W"]) for a in arrays)
            side = (_compiled_module().pack_side(means, halves, sizes, least), logdets)
            _sides[prepared] = side
    return side


def _span(index, n):
    """``(start, stop)`` of a unit-step slice, else None."""
    if isinstance(index, slice):
        start, stop, step = index.indices(n)
        if step == 1:
            return start, max(start, stop)
    return None


def compiled_tile(left, right, rows, cols):
    """Kernel values of all pairs ``(left[rows], right[cols])`` by the compiled engine."""
    values, pending = compiled_open_tile(left, right, rows, cols)
    if pending.size:
        i, j = np.divmod(pending, values.shape[1])
        values.reshape(-1)[pending] = resolve(left, right, np.arange(len(left))[rows][i], np.arange(len(right))[cols][j])
    return values


def compiled_open_tile(left, right, rows, cols):
    """:func:`compiled_tile` but for the pairs it leaves :data:`UNRESOLVED`: the values
    and those pairs' flat positions (found by the compiled loop, for :func:`resolve`)."""
    module = _compiled_module()
    token = module.token(left.means.shape[1])
    A, logdets_a = _packed_side(left)
    B, logdets_b = _packed_side(right)
    row_span, col_span = _span(rows, len(left)), _span(cols, len(right))
    if row_span is None:  # any other index: gather the graphs (a copy)
        index = np.arange(len(left))[rows]
        A, logdets_a, row_span = np.ascontiguousarray(A[:, index]), logdets_a[index], (0, index.size)
    if col_span is None:
        index = np.arange(len(right))[cols]
        B, logdets_b, col_span = np.ascontiguousarray(B[:, index]), logdets_b[index], (0, index.size)
    values, finite = module.tile_values(token, A, logdets_a, *row_span, B, logdets_b, *col_span)
    if not finite:
        raise ValueError(_NOT_FINITE)
    return values, np.flatnonzero(values == UNRESOLVED)


def compiled_pairs(left, right, i, j):
    """Kernel values of the pairs ``(left[i[p]], right[j[p]])`` by the compiled engine."""
    A, logdets_a = _packed_side(left)
    B, logdets_b = _packed_side(right)
    i = np.arange(len(left), dtype=np.int64)[i]
    j = np.arange(len(right), dtype=np.int64)[j]
    k = left.means.shape[1]
    values, finite = _compiled_module().paired_values(A, logdets_a, i.ravel(), B, logdets_b, j.ravel(), k)
    if not finite:
        raise ValueError(_NOT_FINITE)
    return settle(left, right, i, j, values.reshape(i.shape))
