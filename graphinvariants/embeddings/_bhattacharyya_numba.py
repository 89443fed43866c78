"""Compiled Bhattacharyya kernel values (private; needs numba, imported lazily).

The same algorithm as :func:`._bhattacharyya.pair_terms` followed by
:func:`._bhattacharyya.combine`, in the same floating-point operations and order:

* the Cholesky factor of ``(Sigma_A + Sigma_B) / 2`` entry by entry (pivot clamped at
  0, column scaled by ``1 / sqrt(pivot)``) and the forward substitution for the
  Mahalanobis term;
* the pivots divided by the power of two ``2**e``, ``e = frexp((tr A + tr B) / k)[1]``
  (of the halved covariances), multiplied in groups of ``GROUP`` and the logarithm of
  each group added to ``e * k * log 2``; a group product outside ``(1e-290, 1e290)``
  is redone with one logarithm per pivot;
* ``log K = (logdet A + logdet B) / 4 - logdet / 2 - maha / 8``, clamped at 0;
* the value :data:`UNRESOLVED` where ``tr A + tr B > (min A + min B) * min(
  DIRECT_MAX_BOUND, DIRECT_PER_DISTANCE * -log K)`` (the graphs' sizes and least
  eigenvalues are packed with them), which the caller recomputes by
  :func:`._bhattacharyya.whitened`.

Additions, multiplications, divisions and square roots are correctly rounded in both
paths and nothing is reassociated or fused (no fast-math flags, no FMA). The one
difference: the logarithm of the group products (when every group product lies in
``(1e-290, 1e290)``) and the exponential (when ``log K >= -700``) are fdlibm's
algorithms (:func:`_emit_log`, :func:`_emit_exp`, errors below one unit in the last
place) written out so that they vectorise, where numpy calls the C library (within
half a unit); elsewhere the C library's ``log`` and ``exp`` are called as by numpy. So
the two paths agree to about 1e-15 relative, not to the last bit.

How it is fast. A side of the pair engine is packed once, entry-major (rows: the lower
triangle of each halved covariance, the mean, the trace; columns: graphs), with its
graphs' log-determinants. For one graph of the left side against a run of right-hand
graphs, :func:`_row_values` emits LLVM IR directly: the whole pair, from the
factorisation written out for the given ``k`` (every entry of the factor an SSA value,
so it lives in registers) to the kernel value, inside a loop over the right-hand
graphs that LLVM vectorises (four pairs per AVX2 instruction, square roots, divisions,
logarithm and exponential included). The rare pairs it cannot finish (a power of two
or product out of range, ``log K < -700`` or NaN) are flagged and redone by
:func:`_pair_terms`. Emitting IR, rather than generated Python, keeps compilation to
about a second per ``k`` (numba's front end takes tens of seconds on the unrolled code
at k = 16).

The flagged pairs and the pairs of ``paired_kernels`` go through plain loops
(:func:`_pair_terms`, :func:`_value`) that perform the same operations in the same
order (the logarithm and exponential by the same IR, through :func:`_log` and
:func:`_exp`). The graphs' log-determinants are the prepared side's (from its
eigenvalues, as in the numpy engine); a pair of identical graphs is never resolved
directly (its distance is 0) and gets exactly 1 from the whitened evaluation.
Scratch arrays are allocated once per call, never per pair; every entry point releases
the GIL and is cached on disk (``cache=True``). ``k`` reaches the compiler as the
length of a tuple ("token"), so a call dispatches without re-typing.
"""

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic

__all__ = []

#: Largest k compiled (the unrolled range of _bhattacharyya).
MAX_K = 16
#: Pivots multiplied together before one logarithm is taken (as in _bhattacharyya).
GROUP = 8
#: Right-hand graphs per pass of the vectorised loop.
CHUNK = 256
#: Below this log K the exponential is the C library's (its result is subnormal or 0).
EXP_MIN = -700.0
_LN2 = float(np.log(2.0))
_TINY, _HUGE = 1e-290, 1e290
#: As in _bhattacharyya (a pair beyond them is left to its whitened evaluation).
DIRECT_MAX_BOUND, DIRECT_PER_DISTANCE, UNRESOLVED = 1e6, 1e8, -1.0

_jit = njit(nogil=True, cache=True, error_model="numpy")
_DOUBLE, _I64, _I32 = ir.DoubleType(), ir.IntType(64), ir.IntType(32)


def token(k):
    """The argument that carries ``k`` into the compiler: a tuple of length ``k``."""
    return (0,) * k


def _const(value):
    return ir.Constant(_DOUBLE, value) if isinstance(value, float) else ir.Constant(_I64, value)


def _to_double(builder, integer):
    """int64 (small) to float64, through int32: AVX2 converts int32 lanes, not int64."""
    return builder.sitofp(builder.trunc(integer, _I32), _DOUBLE)


def _polynomial(builder, x, coefficients):
    """``c0 + x * (c1 + x * (c2 + ...))``, innermost first as fdlibm writes it."""
    value = _const(coefficients[-1])
    for c in reversed(coefficients[:-1]):
        value = builder.fadd(_const(c), builder.fmul(x, value))
    return value


_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10
_LG = (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01, 2.222219843214978396e-01,
       1.818357216161805012e-01, 1.531383769920937332e-01, 1.479819860511658591e-01)
_INV_LN2 = 1.44269504088896338700e00
_P = (1.66666666666666019037e-01, -2.77777777770155933842e-03, 6.61375632143793436117e-05,
      -1.65339022054652515390e-06, 4.13813679705723846039e-08)
_SHIFTER = 6755399441055744.0  # 1.5 * 2**52: adding it rounds to an integer


def _emit_log(builder, x):
    """IR of ``log(x)`` for positive normal ``x``: fdlibm's (musl's) ``log``, error below
    one unit in the last place, without branches."""
    bits = builder.bitcast(x, _I64)
    high = builder.add(builder.lshr(bits, _const(32)), _const(0x3FF00000 - 0x3FE6A09E))
    k = builder.sub(builder.lshr(high, _const(20)), _const(0x3FF))
    high = builder.add(builder.and_(high, _const(0x000FFFFF)), _const(0x3FE6A09E))
    bits = builder.or_(builder.shl(high, _const(32)), builder.and_(bits, _const(0xFFFFFFFF)))
    f = builder.fsub(builder.bitcast(bits, _DOUBLE), _const(1.0))  # x = 2**k * (1 + f), sqrt(2)/2 <= 1 + f < sqrt(2)
    hfsq = builder.fmul(builder.fmul(_const(0.5), f), f)
    s = builder.fdiv(f, builder.fadd(_const(2.0), f))
    z = builder.fmul(s, s)
    w = builder.fmul(z, z)
    t1 = builder.fmul(w, _polynomial(builder, w, _LG[1::2]))
    t2 = builder.fmul(z, _polynomial(builder, w, _LG[0::2]))
    r = builder.fadd(t2, t1)
    dk = _to_double(builder, k)
    value = builder.fadd(builder.fmul(s, builder.fadd(hfsq, r)), builder.fmul(dk, _const(_LN2_LO)))
    value = builder.fadd(builder.fsub(value, hfsq), f)
    return builder.fadd(value, builder.fmul(dk, _const(_LN2_HI)))


def _emit_exp(builder, x):
    """IR of ``exp(x)`` for ``EXP_MIN <= x <= 0``: fdlibm's ``exp`` (reduction by the
    nearest multiple of log 2, error below one unit in the last place), without
    branches; ``exp(0) == 1`` exactly."""
    t = builder.fadd(builder.fmul(x, _const(_INV_LN2)), _const(_SHIFTER))
    kd = builder.fsub(t, _const(_SHIFTER))  # the integer nearest x / log 2
    k = builder.sub(builder.bitcast(t, _I64), builder.bitcast(_const(_SHIFTER), _I64))
    hi = builder.fsub(x, builder.fmul(kd, _const(_LN2_HI)))
    lo = builder.fmul(kd, _const(_LN2_LO))
    r = builder.fsub(hi, lo)
    rr = builder.fmul(r, r)
    c = builder.fsub(r, builder.fmul(rr, _polynomial(builder, rr, _P)))
    quotient = builder.fdiv(builder.fmul(r, c), builder.fsub(_const(2.0), c))
    y = builder.fsub(_const(1.0), builder.fsub(builder.fsub(lo, quotient), hi))
    return builder.bitcast(builder.add(builder.bitcast(y, _I64), builder.shl(k, _const(52))), _DOUBLE)


@intrinsic
def _log(typingctx, x):
    """:func:`_emit_log` for compiled scalar code (positive normal ``x``)."""
    return types.float64(types.float64), lambda context, builder, signature, args: _emit_log(builder, args[0])


@intrinsic
def _exp(typingctx, x):
    """:func:`_emit_exp` for compiled scalar code (``EXP_MIN <= x <= 0``)."""
    return types.float64(types.float64), lambda context, builder, signature, args: _emit_exp(builder, args[0])


@intrinsic
def _bits(typingctx, x):
    """The IEEE bits of a float64 as an int64 (a register move)."""
    return types.int64(types.float64), lambda context, builder, signature, args: builder.bitcast(args[0], _I64)


@intrinsic
def _from_bits(typingctx, x):
    """The float64 whose IEEE bits are the int64 ``x``."""
    return types.float64(types.int64), lambda context, builder, signature, args: builder.bitcast(args[0], _DOUBLE)


def _emit_pair(builder, k, left, right, logdet_left, logdet_right):
    """IR of the kernel value of one pair: ``left(r)``/``right(r)`` give row ``r`` of
    the two packed columns, ``logdet_*`` the graphs' log-determinants.

    Returns ``(value, done)``: ``done`` is false when the pair needs :func:`_pair_terms`
    (the trace's power of two is not a normal number, a group product lies outside
    ``(1e-290, 1e290)``, or ``log K`` is below ``EXP_MIN`` or NaN).
    """
    zero, one = _const(0.0), _const(1.0)
    sqrt = builder.module.declare_intrinsic("llvm.sqrt", [_DOUBLE])
    n_entries = k * (k + 1) // 2
    trace = n_entries + k
    x = builder.fdiv(builder.fadd(left(trace), right(trace)), _const(float(k)))
    biased = builder.and_(builder.lshr(builder.bitcast(x, _I64), _const(52)), _const(2047))
    # 2**-(biased - 1022), right whenever it is a normal number (as checked below)
    scale = builder.bitcast(builder.shl(builder.sub(_const(2045), biased), _const(52)), _DOUBLE)
    done = builder.and_(builder.icmp_signed(">", biased, _const(0)), builder.icmp_signed("<", biased, _const(2045)))
    lower, inv_diag = {}, []
    for j in range(k):
        for i in range(j, k):
            e = i * (i + 1) // 2 + j
            s = builder.fadd(left(e), right(e))
            for m in range(j):
                s = builder.fsub(s, builder.fmul(lower[i, m], lower[j, m]))
            if i == j:
                s = builder.select(builder.fcmp_ordered("<", s, zero), zero, s)  # NaN kept
                inv_diag.append(builder.fdiv(one, builder.call(sqrt, [s])))
            else:
                s = builder.fmul(s, inv_diag[j])
            lower[i, j] = s
    logdet = builder.fmul(_to_double(builder, builder.sub(biased, _const(1022))), _const(k * _LN2))
    for start in range(0, k, GROUP):
        product = builder.fmul(lower[start, start], scale)
        for q in range(start + 1, min(k, start + GROUP)):
            product = builder.fmul(product, builder.fmul(lower[q, q], scale))
        in_range = builder.and_(
            builder.fcmp_ordered(">", product, _const(_TINY)), builder.fcmp_ordered("<", product, _const(_HUGE))
        )
        done = builder.and_(done, in_range)
        product = builder.select(in_range, product, one)  # keep the logarithm's input valid
        logdet = builder.fadd(logdet, _emit_log(builder, product))
    solved = []
    for i in range(k):
        r = builder.fsub(left(n_entries + i), right(n_entries + i))
        for m in range(i):
            r = builder.fsub(r, builder.fmul(lower[i, m], solved[m]))
        r = builder.fmul(r, inv_diag[i])
        solved.append(r)
        maha = builder.fmul(r, r) if i == 0 else builder.fadd(maha, builder.fmul(r, r))
    log_k = builder.fmul(_const(0.25), builder.fadd(logdet_left, logdet_right))
    log_k = builder.fsub(builder.fsub(log_k, builder.fmul(_const(0.5), logdet)), builder.fmul(_const(0.125), maha))
    log_k = builder.select(builder.fcmp_ordered(">", log_k, zero), zero, log_k)  # NaN kept
    in_range = builder.fcmp_ordered(">=", log_k, _const(EXP_MIN))  # false for NaN
    done = builder.and_(done, in_range)
    value = _emit_exp(builder, builder.select(in_range, log_k, zero))
    # the direct value only where its rounding is small next to log K and to -log K
    limit = builder.fmul(_const(DIRECT_PER_DISTANCE), builder.fsub(zero, log_k))
    limit = builder.select(builder.fcmp_ordered("<", limit, _const(DIRECT_MAX_BOUND)), limit, _const(DIRECT_MAX_BOUND))
    size = builder.fadd(left(trace + 1), right(trace + 1))
    least = builder.fadd(left(trace + 2), right(trace + 2))
    direct = builder.fcmp_ordered("<=", size, builder.fmul(least, limit))
    return builder.select(direct, value, _const(UNRESOLVED)), done


def _check_matrix(array, ndim=2):
    if not (isinstance(array, types.Array) and (array.ndim, array.layout, array.dtype) == (ndim, "C", types.float64)):
        raise TypingError(f"expected a C-contiguous {ndim}-D float64 array, got {array}")


@intrinsic
def _row_values(typingctx, token, A, a, logdet_a, B, logdets_b, start, w, out, out_row, out_col, pending):
    """Kernel values of the pairs ``(A[:, a], B[:, start + p])``, ``p < w``, into
    ``out[out_row, out_col + p]``; ``pending[p]`` is set to 1.0 for the pairs left to
    :func:`_pair_terms` (0.0 otherwise) and their number returned.

    ``k`` is the length of ``token``; the arrays are C-contiguous float64. Emitted as
    LLVM IR: one pair (:func:`_emit_pair`) inside a counted loop, which LLVM vectorises.
    """
    if not isinstance(token, types.UniTuple) or not 1 <= token.count <= MAX_K:
        raise TypingError(f"token must be a tuple of 1..{MAX_K} ints, got {token}")
    for array, ndim in ((A, 2), (B, 2), (logdets_b, 1), (out, 2), (pending, 1)):
        _check_matrix(array, ndim)
    k = token.count
    signature = types.int64(token, A, a, logdet_a, B, logdets_b, start, w, out, out_row, out_col, pending)

    def codegen(context, builder, signature, args):
        argtypes = signature.args
        A_, B_, lb_, out_, pending_ = (
            context.make_array(argtypes[n])(context, builder, args[n]) for n in (1, 4, 5, 8, 11)
        )
        a_, start_, w_, row_, col_ = (
            context.cast(builder, args[n], argtypes[n], types.int64) for n in (2, 6, 7, 9, 10)
        )
        logdet_a_ = context.cast(builder, args[3], argtypes[3], types.float64)

        def element(array, row, column):  # &array[row, column]
            columns = builder.extract_value(array.shape, 1)
            return builder.gep(array.data, [builder.add(builder.mul(row, columns), column)], inbounds=True)

        n_rows = k * (k + 1) // 2 + k + 3
        left_values = [builder.load(element(A_, _const(r), a_)) for r in range(n_rows)]
        right_rows = [element(B_, _const(r), start_) for r in range(n_rows)]
        logdets_right = builder.gep(lb_.data, [start_], inbounds=True)
        out_row = element(out_, row_, col_)
        # inputs and outputs never overlap: say so (alias scopes), or LLVM would need a
        # run-time check per pair of rows before vectorising, and gives up for large k
        module = builder.module
        domain = module.add_metadata([ir.MetaDataString(module, "graphinvariants.pairs")])
        scopes = [
            module.add_metadata([ir.MetaDataString(module, f"graphinvariants.pairs.{name}"), domain])
            for name in ("in", "out")
        ]
        scope_in, scope_out = (module.add_metadata([s]) for s in scopes)

        def load(pointer):
            instruction = builder.load(builder.gep(pointer, [p], inbounds=True))
            instruction.set_metadata("alias.scope", scope_in)
            instruction.set_metadata("noalias", scope_out)
            return instruction

        def store(pointer, value):
            instruction = builder.store(value, builder.gep(pointer, [p], inbounds=True))
            instruction.set_metadata("alias.scope", scope_out)
            instruction.set_metadata("noalias", scope_in)

        count = cgutils.alloca_once_value(builder, _const(0))
        with cgutils.for_range(builder, w_) as loop:
            p = loop.index
            value, done = _emit_pair(
                builder, k, lambda r: left_values[r], lambda r: load(right_rows[r]), logdet_a_, load(logdets_right)
            )
            store(out_row, value)
            store(pending_.data, builder.select(done, _const(0.0), _const(1.0)))
            builder.store(builder.add(builder.load(count), builder.zext(builder.not_(done), _I64)), count)
        return builder.load(count)

    return signature, codegen


@_jit
def _pack(means, halves, sizes, least):
    """A side, entry-major: rows are the lower triangle of the halved covariance (row
    by row), the mean, the trace (summed in order), the size and the least eigenvalue
    (of the halved covariance, for the choice of the direct evaluation), columns are
    the graphs."""
    n, k = means.shape
    n_entries = k * (k + 1) // 2
    out = np.empty((n_entries + k + 3, n))
    for p in range(n):
        trace = 0.0
        for i in range(k):
            row = i * (i + 1) // 2
            for j in range(i + 1):
                out[row + j, p] = halves[p, i, j]
            out[n_entries + i, p] = means[p, i]
            trace += halves[p, i, i]
        out[n_entries + k, p] = trace
        out[n_entries + k + 1, p] = sizes[p]
        out[n_entries + k + 2, p] = least[p]
    return out


@_jit
def _group_product(lower, start, stop, scale):
    """Product of the scaled pivots ``start:stop`` (diagonal of the packed ``lower``)."""
    product = lower[start * (start + 3) // 2] * scale
    for q in range(start + 1, stop):
        product = product * (lower[q * (q + 3) // 2] * scale)
    return product


@_jit
def _pair_terms(A, i, B, j, k, lower, inv_diag, solved):
    """``(log|(Sa + Sb)/2|, Mahalanobis term)`` of the pair ``(A[:, i], B[:, j])`` by
    plain loops: the operations of :func:`_emit_pair`, in its order, and numpy's
    fallbacks where it gives up. ``lower``, ``inv_diag``, ``solved`` are scratch."""
    n_entries = k * (k + 1) // 2
    for c in range(k):
        cc = c * (c + 1) // 2
        for r in range(c, k):
            rr = r * (r + 1) // 2
            s = A[rr + c, i] + B[rr + c, j]
            for m in range(c):
                s = s - lower[rr + m] * lower[cc + m]
            if r == c:
                if s < 0.0:
                    s = 0.0
                inv_diag[c] = 1.0 / np.sqrt(s)
            else:
                s = s * inv_diag[c]
            lower[rr + c] = s
    maha = 0.0
    for r in range(k):
        rr = r * (r + 1) // 2
        value = A[n_entries + r, i] - B[n_entries + r, j]
        for m in range(r):
            value = value - lower[rr + m] * solved[m]
        value = value * inv_diag[r]
        solved[r] = value
        maha = value * value if r == 0 else maha + value * value
    x = (A[n_entries + k, i] + B[n_entries + k, j]) / k
    biased = (_bits(x) >> 52) & 2047
    normal = 0 < biased < 2045
    if normal:
        exponent = biased - 1022
        scale = _from_bits((2045 - biased) << 52)
    else:  # zero, subnormal or non-finite trace, or a subnormal power of two
        exponent = math.frexp(x)[1]
        scale = math.ldexp(1.0, -exponent)
    # k <= 16: one or two groups of pivots
    first = _group_product(lower, 0, min(k, GROUP), scale)
    second = _group_product(lower, GROUP, k, scale) if k > GROUP else 1.0
    normal = normal and _TINY < first < _HUGE and _TINY < second < _HUGE
    total = exponent * (k * _LN2)
    for start in range(0, k, GROUP):
        product = first if start == 0 else second
        if normal:  # as _emit_pair
            logs = _log(product)
        elif _TINY < product < _HUGE:  # as numpy from here on
            logs = np.log(product)
        else:  # only with ridge=0 and nearly singular pairs
            logs = 0.0
            for q in range(start, min(k, start + GROUP)):
                logs += np.log(lower[q * (q + 3) // 2] * scale)
        total = total + logs
    return total, maha


@_jit
def _value(logdet_a, logdet_b, logdet, maha, A, i, B, j, k):
    """K from its log-determinant and Mahalanobis parts (as ``combine``), or
    UNRESOLVED (as :func:`_emit_pair`) for the pair ``(A[:, i], B[:, j])``."""
    log_k = 0.25 * (logdet_a + logdet_b) - 0.5 * logdet - 0.125 * maha
    if log_k > 0.0:  # np.minimum(log_k, 0.0), NaN kept
        log_k = 0.0
    if log_k >= EXP_MIN:  # as _emit_pair
        value = _exp(log_k)
    else:
        value = np.exp(log_k)
    limit = DIRECT_PER_DISTANCE * (0.0 - log_k)
    if not limit < DIRECT_MAX_BOUND:
        limit = DIRECT_MAX_BOUND
    row = k * (k + 1) // 2 + k
    if A[row + 1, i] + B[row + 1, j] <= (A[row + 2, i] + B[row + 2, j]) * limit:
        return value
    return UNRESOLVED if value == value else value  # NaN kept: the caller refuses it


@_jit
def pack_side(means, halves, sizes, least):
    """A side of the pair engine, packed (see :func:`_pack`)."""
    return _pack(means, halves, sizes, least)


@_jit
def paired_values(A, logdets_a, ia, B, logdets_b, ib, k):
    """Kernel values of the pairs ``(A[:, ia[p]], B[:, ib[p]])`` of Gaussians in
    dimension ``k``; returns ``(values, all_finite)``."""
    lower, inv_diag, solved = np.empty(k * (k + 1) // 2), np.empty(k), np.empty(k)
    out = np.empty(ia.size)
    nans = 0
    for p in range(ia.size):
        logdet, maha = _pair_terms(A, ia[p], B, ib[p], k, lower, inv_diag, solved)
        value = _value(logdets_a[ia[p]], logdets_b[ib[p]], logdet, maha, A, ia[p], B, ib[p], k)
        nans += value != value  # exp of a number <= 0 is finite unless NaN
        out[p] = value
    return out, nans == 0


@_jit
def tile_values(token, A, logdets_a, row_start, row_stop, B, logdets_b, col_start, col_stop):
    """Kernel values of the pairs (rows ``row_start:row_stop`` of side A, columns
    ``col_start:col_stop`` of side B); returns ``(values, all_finite)``."""
    k = len(token)
    pending = np.empty(CHUNK)
    lower, inv_diag, solved = np.empty(k * (k + 1) // 2), np.empty(k), np.empty(k)
    out = np.empty((row_stop - row_start, col_stop - col_start))
    nans = 0
    for a in range(row_start, row_stop):
        for start in range(col_start, col_stop, CHUNK):
            w = min(CHUNK, col_stop - start)
            unfinished = _row_values(
                token, A, a, logdets_a[a], B, logdets_b, start, w, out, a - row_start, start - col_start, pending
            )
            if unfinished:  # pairs the vector loop left to _pair_terms
                for p in range(w):
                    if pending[p] != 0.0:
                        b = start + p
                        logdet, maha = _pair_terms(A, a, B, b, k, lower, inv_diag, solved)
                        value = _value(logdets_a[a], logdets_b[b], logdet, maha, A, a, B, b, k)
                        nans += value != value  # exp of a number <= 0 is finite unless NaN
                        out[a - row_start, b - col_start] = value
    return out, nans == 0
