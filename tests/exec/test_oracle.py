# ruff: noqa: F821  (kernel builtins such as sqrt are unbound in Python)
"""The reference itself (tack.testing.oracle) on hand-checked cases, so that it can fail.

No engine runs here except in the two `check_kernel` tests at the end: every expected value below
was worked out by hand from docs/language.md ("Kernels and calls", "Parallel loop", "Integer
and float rules", "Builtins").
"""
import math

import numpy as np
import pytest
import tack
from tack.testing.oracle import OutsideDomain, Rejected, check_kernel, reference, run_reference
from tack.testing.shapes import AWKWARD_SIZES, NONCONTIGUOUS_KINDS, noncontiguous, random_values

F32 = np.float32


def ref1(kernel, *args, **kw):
    """The last array argument after the reference run."""
    return reference(kernel, *args, **kw).arrays[-1]


# -- integers --------------------------------------------------------------------------------------
@tack.kernel
def k_int_ops(a, b, out):
    for i in range(1):
        out[0] = a[0] + b[0]
        out[1] = a[0] * b[0]
        out[2] = -a[1]
        out[3] = a[0] // b[1]
        out[4] = a[0] % b[1]
        out[5] = a[1] >> 1
        out[6] = a[0] << 1
        out[7] = ~a[2]
        out[8] = a[2] ** 5
        out[9] = abs(a[1])


def test_i8_wrapping_and_python_division():
    a = np.array([127, -128, 3], np.int8)
    b = np.array([1, -2], np.int8)
    out = ref1(k_int_ops, a, b, np.zeros(10, np.int64))
    # 127+1 wraps; 127*1; -(-128) wraps; 127 // -2 = -64 (floor); 127 % -2 = -1 (divisor's sign);
    # -128 >> 1 arithmetic; 127 << 1 wraps to -2; ~3 = -4; 3**5 = 243 → -13; abs(-128) = -128
    assert out.tolist() == [-128, 127, -128, -64, -1, -64, -2, -4, -13, -128]


def test_u16_wrapping():
    a = np.array([65535, 0, 3], np.uint16)
    b = np.array([65535, 7], np.uint16)
    out = ref1(k_int_ops, a, b, np.zeros(10, np.int64))
    assert out.tolist() == [65534, 1, 0, 9362, 1, 0, 65534, 65532, 243, 0]


@tack.kernel
def k_promote(a, b, out):
    for i in range(1):
        out[0] = (a[0] + b[0]) << 20
        out[1] = a[0] < b[0]


def test_promotion_i8_u16_is_i32():
    out = ref1(k_promote, np.array([-1], np.int8), np.array([65535], np.uint16),
               np.zeros(2, np.int64))
    # 65534 << 20 wraps at 32 bits (not 16, not 64); -1 < 65535 compares exactly
    assert out.tolist() == [(65534 << 20) % 2 ** 32 - 2 ** 32, 1]


def test_signed_with_u64_is_rejected():
    with pytest.raises(Rejected):
        reference(k_promote, np.array([1], np.int32), np.array([1], np.uint64),
                  np.zeros(2, np.int64))


@tack.kernel
def k_literals(out, u):
    for i in range(1):
        out[0] = 2147483647 + 1
        out[1] = 2147483648 + 1
        out[2] = -2147483648 - 1
        out[3] = True + True
        u[0] = 18446744073709551615 + tack.u64(2)
        out[4] = tack.u8(-1)
        out[5] = tack.i8(255)
        u[1] = tack.u64(tack.i8(-1))
        out[6] = int(-2.9)
        out[7] = 0 ** 0


def test_literal_types_and_casts():
    ref = reference(k_literals, np.zeros(8, np.int64), np.zeros(2, np.uint64))
    # integer expressions of literals are computed exactly, then typed by their value
    assert ref.arrays[0].tolist() == [2 ** 31, 2 ** 31 + 1, -2 ** 31 - 1, 2, 255, -1, -2, 1]
    assert ref.arrays[1].tolist() == [1, 2 ** 64 - 1]


@tack.kernel
def k_literal_exprs(out, u):
    for i in range(1):
        out[0] = 2 ** 40 + (1 << 40) - 10 ** 12
        out[1] = ~(2 ** 40) * (2 ** 63 > -1)
        out[2] = max(2 ** 64 - 1, -1) // 2 ** 32
        out[3] = (1 << 200) >> 190
        u[0] = 2 ** 64 - 1
        u[1] = abs(-(2 ** 63))


def test_literal_expressions_are_exact():
    ref = reference(k_literal_exprs, np.zeros(4, np.int64), np.zeros(2, np.uint64))
    assert ref.arrays[0].tolist() == [2 ** 41 - 10 ** 12, ~(2 ** 40), 2 ** 32 - 1, 1024]
    assert ref.arrays[1].tolist() == [2 ** 64 - 1, 2 ** 63]


@tack.kernel
def k_literal_too_large(out):
    for i in range(1):
        out[0] = 2 ** 64 + 0 * out[0]


def test_literal_expression_outside_64_bits_is_rejected():
    with pytest.raises(Rejected):
        reference(k_literal_too_large, np.zeros(1, np.int64))


# -- floats ----------------------------------------------------------------------------------------
@tack.kernel
def k_float_rules(x32, x64, n, out):
    for i in range(1):
        out[0] = 7 / 2
        out[1] = 1 / 3
        out[2] = x32[0] * 0.1
        out[3] = x64[0] * 0.1
        out[4] = n * 0.1
        out[5] = sqrt(n)
        out[6] = float(n) / 3
        out[7] = tack.f64(0.1)
        out[8] = 0.1 * 3
        out[10] = (0.1 * 3) == x32[0] * 0.1
        out[9] = x64[0] * (0.1 * 3)


def test_division_and_weak_literals():
    out = ref1(k_float_rules, np.array([3.0], F32), np.array([3.0]), 2, np.zeros(11))
    f = lambda v: float(F32(v))
    assert out[0] == 3.5
    assert out[1] == float(F32(1) / F32(3))  # int / int is f32
    assert out[2] == float(F32(3) * F32(0.1))  # the literal takes x32's type
    assert out[3] == 3.0 * 0.1  # ... or x64's: the exact double
    assert out[4] == float(F32(2) * F32(0.1))  # beside an integer variable: f32
    assert out[5] == f(math.sqrt(2))  # math of an integer: f32
    assert out[6] == float(F32(2) / F32(3))
    assert out[7] == 0.1
    assert out[8] == 0.1 * 3  # weak until the f64 store target
    assert out[10] == 1  # weak beside only weak: compared as f32
    assert out[9] == 3.0 * (0.1 * 3)  # weak until it meets x64: computed in f64


@tack.kernel
def k_fdivmod(a, b, q, r):
    for i in range(a.shape[0]):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


def test_float_floordiv_mod_follow_cpython():
    vals = [7.5, -7.5, 0.0, -0.0, math.inf, -math.inf, 1.0]
    pairs = [(x, y) for x in vals for y in vals if y != 0]
    a, b = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    ref = reference(k_fdivmod, a, b, np.zeros(len(a)), np.zeros(len(a)))
    for (x, y), q, r in zip(pairs, ref.arrays[2], ref.arrays[3]):
        for got, exp in ((q, x // y), (r, x % y)):
            assert (math.isnan(got) and math.isnan(exp)) or (
                got == exp and math.copysign(1, got) == math.copysign(1, exp)), (x, y, got, exp)


def test_float_division_by_an_exact_zero_is_numpys():
    """x // 0.0 is x / 0.0 and x % 0.0 is NaN (NumPy's results; docs/language.md)."""
    a, b = np.array([1.0, -1.0, 0.0]), np.zeros(3)
    q, r = reference(k_fdivmod, a, b, np.zeros(3), np.zeros(3)).arrays[2:]
    assert q[:2].tolist() == [math.inf, -math.inf] and math.isnan(q[2])
    assert all(math.isnan(v) for v in r)


@tack.kernel
def k_nan_minmax(a, out):
    for i in range(1):
        out[0] = min(a[0], a[1])
        out[1] = max(a[1], a[0])
        out[2] = a[1] != a[1]
        out[3] = 1 if a[1] else 0


def test_nan_rules():
    out = ref1(k_nan_minmax, np.array([2.0, math.nan]), np.zeros(4))
    assert out.tolist() == [2.0, 2.0, 1.0, 1.0]  # the number wins; NaN != NaN; NaN is truthy


@tack.kernel
def k_zero_ties(a, out):
    for i in range(1):
        out[0] = 1.0 / min(a[0], a[1])
        out[1] = 1.0 / max(a[0], a[1])
        out[2] = 1.0 / min(a[1], a[0])
        out[3] = 1.0 / max(a[1], a[0])


def test_zero_ties_are_decided_and_checked_on_every_engine(engine):
    """Of +0.0 and -0.0, min is -0.0 and max +0.0 in either order on every engine
    (docs/language.md), so the reference knows the sign and 1 / it exactly: -inf, +inf."""
    a = np.array([0.0, -0.0])
    ref = reference(k_zero_ties, a, np.zeros(4))
    assert ref.arrays[1].tolist() == [-math.inf, math.inf, -math.inf, math.inf]
    assert not ref.tolerance[1].any()
    check_kernel(k_zero_ties, a, np.zeros(4))  # the default device: this case's engine


@tack.kernel
def k_nan_sign(a, out, n):
    for i in range(1):
        out[0] = copysign(3.0, a[0] ** 0.5)
        n[0] = tack.i8(copysign(3.0, a[0] ** 0.5))


def test_the_sign_of_a_nan_is_not_guessed():
    # pow(-1, 0.5) is a NaN whose sign bit libm chooses: copysign(3, it) is +3 or -3
    ref = reference(k_nan_sign, np.array([-1.0]), np.zeros(1), np.zeros(1, np.int8))
    assert abs(ref.arrays[1][0]) == 3 and ref.tolerance[1][0] >= 6
    assert ref.tainted == [0] and ref.unverified[2][0]


# -- error bounds and taint ------------------------------------------------------------------------
@tack.kernel
def k_bounds(a, out):
    for i in range(1):
        out[0] = a[0] + a[1]
        out[1] = a[0] * a[1] + a[2]
        out[2] = sin(a[0])
        out[3] = a[0] / a[1]


def test_error_bounds():
    ref = reference(k_bounds, np.array([0.1, 0.7, 1.0]), np.zeros(4))
    tol = ref.tolerance[1]
    assert tol[0] == 0 and tol[3] == 0  # correctly rounded, exact inputs: bit-exact
    assert 0 < tol[1] < 1e-15  # the product may be contracted into an FMA
    assert 0 < tol[2] <= 8 * np.spacing(math.sin(0.1))  # libm: a few ulps


@tack.kernel
def k_taint(a, out):
    for i in range(a.shape[0]):
        if a[i] * 3.0 >= 0.30000000000000004:  # 0.1 * 3.0 rounds up to it, exactly it is less
            out[i] = 1
        else:
            out[i] = 2


def test_rounding_sensitive_branch_is_tainted_not_guessed():
    ref = reference(k_taint, np.array([0.1, 1.0, 0.05]), np.zeros(3, np.int32))
    assert ref.tainted == [0]
    assert ref.unverified[1].tolist() == [True, False, False]
    assert ref.arrays[1].tolist()[1:] == [1, 2]
    wrong = ref.arrays[1].copy()
    wrong[0] = 7  # unverifiable: not reported
    assert ref.mismatches([ref.arrays[0], wrong]) == []
    wrong[2] = 7
    assert len(ref.mismatches([ref.arrays[0], wrong])) == 1


def test_mismatches_report_float_differences_beyond_the_bound():
    ref = reference(k_bounds, np.array([0.1, 0.7, 1.0]), np.zeros(4))
    got = ref.arrays[1].copy()
    got[0] = np.nextafter(got[0], 1.0)  # one ulp off an exact sum
    bad = ref.mismatches([ref.arrays[0], got])
    assert len(bad) == 1 and "out[0]" in bad[0] and "(exact)" in bad[0]


# -- locals, loops and control flow ----------------------------------------------------------------
@tack.kernel
def k_locals(a, out):
    for i in range(1):
        x = 0
        x = x + a[0]  # joined with f32: x is f32 from its first assignment
        y = tack.i8(100)
        y = y + tack.i8(100)  # i8 + i8 wraps at 8 bits
        z = a[0] if i > 5 else 7  # IfExp: the promoted type of both arms (f32)
        out[0] = x / 2
        out[1] = y
        out[2] = z / 2
        w = tack.i8(1)
        w = 300  # joined with i32: w is i32 everywhere, so 300 is not wrapped
        out[3] = w


def test_locals_take_the_join_of_all_assignments():
    out = ref1(k_locals, np.array([5.0], F32), np.zeros(4))
    assert out.tolist() == [2.5, -56.0, 3.5, 300.0]


@tack.kernel
def k_reseed(a, s, out):
    c = 10
    for i in range(a.shape[0]):
        c = c + a[i]
        s = s + 1
        out[i] = c * 100 + s


def test_prologue_locals_and_scalar_params_reseed_every_iteration():
    out = ref1(k_reseed, np.array([1, 2, 3], np.int32), 5, np.zeros(3, np.int32))
    assert out.tolist() == [1106, 1206, 1306]


@tack.kernel
def k_loops(n, out):
    for i in range(2, n, 3):
        acc = 0
        for j in range(5, -6, -2):
            if j == 1:
                continue
            if j < -3:
                break
            acc += j
        k = 0
        while k < 10:
            k += 1
            if k % 4 == 0:
                break
        out[i] = acc * 100 + k + (1 if 0 < i < 6 <= n else 0)


def test_loops_steps_break_continue_chained_compare():
    out = ref1(k_loops, 9, np.zeros(9, np.int64))
    # parallel i = 2, 5, 8; j = 5, 3, (1 skipped), -1, -3, (-5 breaks): acc = 4; k = 4;
    # 0 < i < 6 <= 9 holds for i = 2 and 5
    assert out.tolist() == [0, 0, 405, 0, 0, 405, 0, 0, 404]


@tack.kernel
def k_bool_ops(a, out):
    for i in range(1):
        out[0] = a[0] and a[1]
        out[1] = a[2] or a[0]
        out[2] = not a[1]
        out[3] = a[1] < a[0] < a[1]


def test_logic_gives_zero_or_one():
    assert ref1(k_bool_ops, np.array([5, 7, 0]), np.zeros(4, np.int64)).tolist() == [1, 1, 0, 0]


@tack.kernel
def k_2d(m, out):
    for i in range(m.shape[0]):
        out[i] = m[i, 1] * 10 + m[i * 3 + 2]


def test_multi_and_flat_indices():
    m = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert ref1(k_2d, m, np.zeros(2, np.int32)).tolist() == [12, 45]


@tack.kernel
def k_zero_d(s, out):
    for i in range(out.shape[0]):
        out[i] = s[None] + s[0] + i


def test_zero_dimensional_arrays():
    assert ref1(k_zero_d, np.array(5.0), np.zeros(3)).tolist() == [10.0, 11.0, 12.0]


def test_out_of_bounds_is_outside_the_domain():
    with pytest.raises(OutsideDomain, match="outside"):
        reference(k_2d, np.zeros((2, 2), np.int32), np.zeros(2, np.int32))


@tack.kernel
def k_shift(a, s, out):
    for i in range(1):
        out[0] = a[0] << s


def test_shift_count_outside_width():
    with pytest.raises(OutsideDomain, match="shift"):
        reference(k_shift, np.array([1], np.int8), 8, np.zeros(1, np.int8))
    assert ref1(k_shift, np.array([1], np.int8), 7, np.zeros(1, np.int8)).tolist() == [-128]


@tack.kernel
def k_weak_local(x, out):
    for i in range(x.shape[0]):
        t = 0.1
        out[i] = x[i] * t


def test_weak_local_modes():
    assert ref1(k_weak_local, np.array([3.0]), np.zeros(1))[0] == 3.0 * 0.1
    got = ref1(k_weak_local, np.array([3.0]), np.zeros(1), weak_locals="f32")[0]
    assert got == 3.0 * float(F32(0.1))


@tack.kernel
def k_weak_locals(x, out):
    for i in range(x.shape[0]):
        t = 1.0 / 3.0  # float literals combined by arithmetic: stays weak
        c = sin(0.5)  # math of literals counts as float literals: stays weak
        d = 0.1 if x[i] > 0 else 0.2  # a choice between literals does not: f32
        u = 0.5
        u = 0.25  # assigned twice: f32 (both exact in f32 here)
        a = x[i]
        a, b = abs(0.1), 2  # tuple temporaries are transparent: a (f64) gets the f64 value
        out[0] = x[i] * t
        out[1] = x[i] * c
        out[2] = x[i] * u
        out[3] = a * b
        out[4] = x[i] * d


def test_weak_local_rule_and_transparent_tuple_temporaries():
    out = ref1(k_weak_locals, np.array([3.0]), np.zeros(5))
    assert out.tolist() == [1.0, 3.0 * math.sin(0.5), 0.75, 0.2, 3.0 * float(F32(0.1))]


def test_reference_does_not_use_tack_typechecker(monkeypatch):
    import tack.frontend.typecheck as tc

    def boom(*a, **k):
        raise AssertionError("the oracle must not call Tack's typechecker")

    monkeypatch.setattr(tc.TypeChecker, "run", boom)
    assert run_reference(k_bool_ops, np.array([5, 7, 0]), np.zeros(4, np.int64))[1].tolist() \
        == [1, 1, 0, 0]


def test_plain_function_and_input_arrays_left_intact():
    def plain(a, out):
        for i in range(a.shape[0]):
            out[i] = a[i] * 2

    a = np.array([1, 2], np.int16)
    res = run_reference(plain, a, np.zeros(2, np.int16))
    assert res[1].tolist() == [2, 4] and a.tolist() == [1, 2]


# -- shapes helpers --------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", NONCONTIGUOUS_KINDS)
@pytest.mark.parametrize("shape", [(0,), (1,), (7,), (3, 5)])
def test_noncontiguous_views_equal_their_source(kind, shape):
    a = random_values(np.random.default_rng(0), shape, np.int32)
    v = noncontiguous(a, kind)
    assert v.shape == a.shape and v.dtype == a.dtype and np.array_equal(v, a)
    if kind in ("strided", "reversed") and a.size > 1:
        assert not v.flags.c_contiguous


def test_awkward_sizes_and_edge_values():
    assert AWKWARD_SIZES[:2] == (0, 1) and 4099 in AWKWARD_SIZES
    v = random_values(np.random.default_rng(1), 2000, np.int8, edge_fraction=0.5)
    assert -128 in v and 127 in v
    f = random_values(np.random.default_rng(1), 2000, np.float32, special_fraction=0.5)
    assert np.isnan(f).any() and np.isinf(f).any()


# -- against the engine ----------------------------------------------------------------------------
def test_check_kernel_passes_on_the_cpu_engine():
    ref = check_kernel(k_loops, 9, np.zeros(9, np.int64))
    assert ref.iterations == 3


@tack.kernel
def k_zero_d_flat(s, out):
    for i in range(1):
        out[0] = s[0] * 2


def test_zero_dimensional_arrays_by_flat_index_on_the_engine():
    ref = check_kernel(k_zero_d_flat, np.array(5.0), np.array(0, np.int16))
    assert ref.arrays[1].shape == () and int(ref.arrays[1]) == 10
    assert len(ref.mismatches([ref.arrays[0], np.array(11, np.int16)])) == 1


def test_known_zero_dimensional_index_on_the_engine():
    check_kernel(k_zero_d, np.array(5.0), np.zeros(3))


def test_check_kernel_catches_a_wrong_answer(monkeypatch):
    from tack.testing import oracle

    real = oracle.Runtime.ibin

    def off_by_one(self, op, x, y, t):
        v = real(self, op, x, y, t)
        return oracle.wrap(int(v) + 1, t) if op == "add" else v

    monkeypatch.setattr(oracle.Runtime, "ibin", off_by_one)
    with pytest.raises(AssertionError, match="disagrees"):
        check_kernel(k_int_ops, np.array([1, 2, 3], np.int32), np.array([1, 1], np.int32),
                     np.zeros(10, np.int64))
