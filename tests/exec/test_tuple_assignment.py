"""Tuple assignment `a, b = b, a`: the whole right side first, then the targets left to right.

When a value reads a target the frontend keeps the values in hidden temporaries; these must be
transparent to the typing rules, so every kernel here must give what the same assignments made one
by one (each value computed before any target changes) give. The expected values are the kernel
bodies run as plain Python on float64/int, written out beside each test, not Tack's own code; the
plain-Python oracle (`tack.testing.oracle.reference`) is checked against them too.
"""
import numpy as np
import pytest
import tack
from tack.testing import run_kernel
from tack.testing.oracle import reference

X = np.array([3.0, -2.5, 0.0, 7.25, -0.125])


def check(kernel, args, expected, out=-1):
    """Tack's result and the oracle's both equal `expected` (exactly: no operation below may be
    contracted into a multiply-add)."""
    expected = np.asarray(expected).tolist()
    assert reference(kernel, *args).arrays[out].tolist() == expected
    assert run_kernel(kernel, *args)[out].tolist() == expected


# -- a weak float value beside f64 targets ---------------------------------------------------------
@tack.kernel
def k_swap(x, out):
    for i in range(x.shape[0]):
        d = x[i]  # f64
        d, e = (0.1 if x[i] > 0 else 0.2), d
        out[i, 0] = d
        out[i, 1] = e


def test_swap_weak_value_into_f64_target():
    expected = [[0.1 if x > 0 else 0.2, x] for x in X]
    check(k_swap, (X, np.zeros((len(X), 2))), expected)


@tack.kernel
def k_rotate3(x, out):
    for i in range(x.shape[0]):
        a = x[i]
        b = x[i] + x[i]
        c = -x[i]
        a, b, c = (0.1 if c > 0 else 0.7), a, b
        out[i, 0] = a
        out[i, 1] = b
        out[i, 2] = c


def test_rotation_of_three_with_a_weak_value_reading_a_target():
    expected = [[0.1 if -x > 0 else 0.7, x, x + x] for x in X]
    check(k_rotate3, (X, np.zeros((len(X), 3))), expected)


@tack.kernel
def k_through_expression(x, out):
    for i in range(x.shape[0]):
        a = x[i]
        b = x[i] - 1.0
        a, b = b, (0.25 if a > b + 3.0 else 0.1) - min(0.2, 0.7 if b < 0 else 0.3)
        out[i, 0] = a
        out[i, 1] = b


def test_weak_value_reading_targets_through_an_expression():
    def body(x):
        a, b = x, x - 1.0
        a, b = b, (0.25 if a > b + 3.0 else 0.1) - min(0.2, 0.7 if b < 0 else 0.3)
        return [a, b]

    check(k_through_expression, (X, np.zeros((len(X), 2))), [body(x) for x in X])


@tack.kernel
def k_only_assignment(x, out):
    for i in range(x.shape[0]):
        a = x[i]
        a, b = -a, 0.1  # b's one assignment: a weak literal, as `b = 0.1` would be
        out[i] = a * b


def test_target_assigned_only_by_the_tuple_stays_a_weak_literal():
    check(k_only_assignment, (X, np.zeros(len(X))), [-x * 0.1 for x in X])


# -- integer literals, and weak floats, beside i64 and u8 targets ---------------------------------
@tack.kernel
def k_int_targets(u, n, x, out_u, out_n, out_f):
    for i in range(u.shape[0]):
        p = u[i]  # u8 joined with i32 below: i32
        q = n[i]  # i64
        m = n[i]  # i64, then a weak float, then f64: f64
        p, q = (3 if q > 0 else 300), p + 1
        m, k = (0.1 if m > 0 else 0.2), m
        m = m + x[i] * 0.0
        out_u[i], p = (2.7 if p > 100 else 7.9), out_u[i] + p
        out_n[i] = p * q
        out_f[i, 0] = m
        out_f[i, 1] = k


def test_integer_literals_and_weak_floats_beside_i64_and_u8_targets():
    u = np.array([0, 200, 255, 7, 1], np.uint8)
    n = np.array([5, -1, 2**40, 0, -(2**35)], np.int64)
    args = (u, n, X, np.full(5, 9, np.uint8), np.zeros(5, np.int64), np.zeros((5, 2)))
    exp_u, exp_n, exp_f = [], [], []
    for ui, ni, xi in zip(u.tolist(), n.tolist(), X.tolist()):
        p, q, m = ui, ni, ni
        p, q = (3 if q > 0 else 300), p + 1
        m, k = (0.1 if m > 0 else 0.2), m
        m = m + xi * 0.0
        new_u, p = (2.7 if p > 100 else 7.9), 9 + p
        exp_u.append(int(new_u))  # float to integer storage truncates toward zero
        exp_n.append(p * q)  # well inside i64: no wrapping
        exp_f.append([m, float(k)])
    out = run_kernel(k_int_targets, *args)
    ref = reference(k_int_targets, *args).arrays
    for got in (out, ref):
        assert got[3].tolist() == exp_u
        assert got[4].tolist() == exp_n
        assert got[5].tolist() == exp_f


# -- array, scratch and vector targets -------------------------------------------------------------
@tack.kernel
def k_element_targets(x, out):
    for i in range(x.shape[0]):
        buf = tack.local_array(tack.f64, 2)
        buf[0] = x[i]
        buf[1] = -x[i]
        buf[0], buf[1] = (0.1 if buf[1] > 0 else 0.2), buf[0]
        out[i, 2] = x[i]
        out[i, 2], out[i, 3] = (0.3 if out[i, 2] > 0 else 0.4), out[i, 2]
        out[i, 0] = buf[0]
        out[i, 1] = buf[1]


def test_weak_values_into_array_and_scratch_elements():
    expected = [[0.1 if -x > 0 else 0.2, x, 0.3 if x > 0 else 0.4, x] for x in X]
    # (the oracle has no scratch arrays)
    assert run_kernel(k_element_targets, X, np.zeros((len(X), 4)))[1].tolist() == expected


vec2d = tack.vector(2, tack.f64)


@tack.kernel
def k_vector_targets(x, out):
    for i in range(x.shape[0]):
        v = vec2d(x[i], -x[i])
        v.x, v.y = (0.1 if v.y > 0 else 0.2), v.x
        w = vec2d(x[i], x[i])
        w, z = [0.3 if w.x > 0 else 0.4, 0.6], w
        out[i, 0] = v.x
        out[i, 1] = v.y
        out[i, 2] = w.x
        out[i, 3] = w.y
        out[i, 4] = z.y


def test_weak_values_into_vector_components_and_vectors():
    expected = [[0.1 if -x > 0 else 0.2, x, 0.3 if x > 0 else 0.4, 0.6, x] for x in X]
    args = (X, np.zeros((len(X), 5)))
    assert run_kernel(k_vector_targets, *args)[1].tolist() == expected


# -- inside loops and device functions ------------------------------------------------------------
@tack.kernel
def k_in_loops(x, out):
    for i in range(x.shape[0]):
        a = x[i]
        b = x[i] + 1.0
        for j in range(3):
            a, b = b + a, (0.1 if a > b else 0.2)
        k = 0
        while k < 2:
            k += 1
            if a > 0:
                b, a = (0.3 if b > a else 0.7), b
        out[i, 0] = a
        out[i, 1] = b


def test_weak_values_in_nested_loops():
    def body(x):
        a, b = x, x + 1.0
        for _ in range(3):
            a, b = b + a, (0.1 if a > b else 0.2)
        for _ in range(2):
            if a > 0:
                b, a = (0.3 if b > a else 0.7), b
        return [a, b]

    check(k_in_loops, (X, np.zeros((len(X), 2))), [body(x) for x in X])


@tack.func
def rotate(a, b, c):
    a, b, c = b, c, (0.1 if a > c else 0.3)
    return a + b + c


@tack.kernel
def k_in_func(x, out):
    for i in range(x.shape[0]):
        out[i] = rotate(x[i], x[i] + x[i], -x[i])


def test_weak_value_in_a_device_function():
    def body(a, b, c):
        a, b, c = b, c, (0.1 if a > c else 0.3)
        return a + b + c

    expected = [body(x, x + x, -x) for x in X]
    assert run_kernel(k_in_func, X, np.zeros(len(X)))[1].tolist() == expected


# -- errors still name the user's target -----------------------------------------------------------
@tack.kernel
def k_signed_and_u64(s, u, out):
    for i in range(s.shape[0]):
        a = s[i]
        b = u[i]
        a, b = b, a
        out[i] = b


def test_type_error_names_the_target_not_a_temporary():
    args = (np.zeros(1, np.int32), np.zeros(1, np.uint64), np.zeros(1, np.int32))
    with pytest.raises(TypeError, match="'a' is assigned both"):
        run_kernel(k_signed_and_u64, *args)
