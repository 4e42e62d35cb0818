"""`tack.unroll`: the frontend's checks, the hint in the IR, plain-Python use, and results equal to
the plain loop on the CPU engine. (What the renderers make of the hint:
tests/render/test_unroll.py.)"""
import inspect as pyinspect
import os

import numpy as np
import pytest
import tack
from tack.testing.oracle import check_kernel
from tack.testing.shapes import AWKWARD_SIZES

from tests.kernels.corpus import _unroll_ref, unroll_hints

HERE = os.path.abspath(__file__)
EIGHT = tack.constant(8)
HALF = tack.constant(2.0)


@pytest.fixture(autouse=True)
def cpu():
    tack.set_default_device("cpu")
    yield


# -- at Python level: a checked identity ---------------------------------------------------------
def test_python_level_returns_the_range():
    for r in (range(5), range(3, 10), range(10, -4, -3), range(0)):
        assert tack.unroll(r) is r
        assert tack.unroll(r, 4) is r
        assert tack.unroll(r, factor=1) is r


@pytest.mark.parametrize("bad", [[1, 2], 5, (0, 4), np.arange(3)])
def test_python_level_needs_a_range(bad):
    with pytest.raises(TypeError, match="takes a range") as ei:
        tack.unroll(bad, 2)
    assert isinstance(ei.value, tack.TackError)


@pytest.mark.parametrize("bad", [0, -3, 2.0, True, "4", np.float32(4)])
def test_python_level_needs_a_positive_int_factor(bad):
    with pytest.raises(ValueError, match="factor must be an int >= 1") as ei:
        tack.unroll(range(4), bad)
    assert isinstance(ei.value, tack.TackError)


def test_kernel_body_runs_as_plain_python():
    # The function under @tack.kernel, called directly on NumPy arrays, and the independent
    # reference (tack.testing.oracle), which treats the hint as the plain range.
    x = np.random.default_rng(1).normal(size=23).astype(np.float32)
    out, steps = np.zeros(23, np.float32), np.zeros(23, np.int32)
    unroll_hints.fn(x, out, steps, 23)
    ref = _unroll_ref(x, 23)
    np.testing.assert_allclose(out, ref[1], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(steps, ref[2])
    check_kernel(unroll_hints, x, np.zeros(23, np.float32), np.zeros(23, np.int32), 23)


# -- frontend errors ---------------------------------------------------------------------------
def k_runtime_factor(x, out):
    for i in range(x.shape[0]):
        k = 4
        for j in tack.unroll(range(4), k):
            out[i] += x[j]


def k_param_factor(x, out):
    for i in range(x.shape[0]):
        for j in tack.unroll(range(4), x.shape[0]):
            out[i] += x[j]


def k_zero_factor(x, out):
    for i in range(x.shape[0]):
        for j in tack.unroll(range(4), 0):
            out[i] += x[j]


def k_negative_factor(x, out):
    for i in range(x.shape[0]):
        for j in tack.unroll(range(4), factor=-2):
            out[i] += x[j]


def k_float_factor(x, out):
    for i in range(x.shape[0]):
        for j in tack.unroll(range(4), HALF):
            out[i] += x[j]


def k_parallel(x, out):
    for i in tack.unroll(range(x.shape[0]), 4):
        out[i] = x[i]


def k_not_a_range(x, out):
    for i in range(x.shape[0]):
        for j in tack.unroll(x.shape[0], 2):
            out[i] += x[j]


def k_unknown_keyword(x, out):
    for i in range(x.shape[0]):
        for j in tack.unroll(range(4), count=2):
            out[i] += x[j]


@pytest.mark.parametrize("fn,snippet,words", [
    (k_runtime_factor, "k)", ["not a compile-time integer", "tack.constant"]),
    (k_param_factor, "x.shape[0])", ["not a compile-time integer"]),
    (k_zero_factor, "0)", ["unroll() factor 0", ">= 1"]),
    (k_negative_factor, "-2", ["unroll() factor -2", ">= 1"]),
    (k_float_factor, "HALF", ["not a compile-time integer"]),
    (k_parallel, "tack.unroll", ["parallel loop", "sequential loops"]),
    (k_not_a_range, "x.shape[0], 2", ["other than range"]),
    (k_unknown_keyword, "tack.unroll", ["a range and an optional factor"]),
])
def test_rejections(fn, snippet, words):
    x, out = tack.array(np.arange(4, dtype=np.float32)), tack.zeros(4)
    with pytest.raises(tack.UnsupportedSyntaxError) as ei:
        tack.kernel(fn)(x, out)
    msg = str(ei.value)
    lines, first = pyinspect.getsourcelines(fn)
    k = next(k for k, text in enumerate(lines) if "unroll" in text and snippet in text)
    line, col = first + k, lines[k].index(snippet) + 1
    assert f"{HERE}:{line}:{col}" in msg, msg
    assert f"Kernel '{fn.__name__}'" in msg and "hint:" in msg and "^" in msg
    for w in words:
        assert w in msg, msg


# -- the hint in the IR, through every pass ------------------------------------------------------
@tack.func
def _sum_to(x, n):
    t = 0.0
    for j in tack.unroll(range(n), 2):
        t += x[j]
    return t


@tack.kernel
def k_hints(x, out):
    for i in range(x.shape[0]):
        t = _sum_to(x, i)  # inlined: the hint comes along
        for j in tack.unroll(range(i, -1, -2), EIGHT):  # stepped: on the normalized loop
            t += x[j]
        for c in tack.unroll(range(3)):
            t += c
        for m in tack.unroll(range(2), factor=1):
            t += m
        out[i] = t


def test_ir_shows_every_hint():
    x = tack.array(np.arange(9, dtype=np.float32))
    text = tack.inspect(k_hints, x, tack.zeros(9), mode="ir")
    hints = [ln.split(" in ", 1)[1].split(":  #")[0] for ln in text.splitlines()
             if ln.lstrip().startswith("for ") and "launch_index" not in ln]
    assert [h.rsplit(", ", 1)[-1] for h in hints] == ["2)", "8)", "'full')", "1)"], hints
    assert all(h.startswith("unroll(range(") for h in hints), hints
    out = tack.zeros(9)
    k_hints(x, out)
    xs = np.arange(9.0)
    expect = [xs[:i].sum() + xs[i::-2].sum() + 3 + 1 for i in range(9)]
    np.testing.assert_array_equal(out.numpy(), expect)


def test_debug_specialization_keeps_the_hints():
    # Debug mode rebuilds every loop in passes.bounds: the hints must survive it too.
    from tack.compiler import specialize
    from tack.ir.printer import kernel_str

    x = tack.array(np.arange(9, dtype=np.float32))
    plain, debug = (kernel_str(specialize(k_hints, [x, tack.zeros(9)], debug=d))
                    for d in (False, True))
    assert plain != debug  # the bounds checks are there
    assert [ln.count("unroll(") for ln in debug.splitlines() if "unroll(" in ln] == [1] * 4
    tack.set_debug(True)
    out = tack.zeros(31, tack.i64)
    k_by3(out, 3, 40, 4)
    np.testing.assert_array_equal(out.numpy(), [_loop_ref(i, 3, 40, 4) for i in range(31)])


# -- results: the hinted loops equal the plain loop --------------------------------------------
def _loop_ref(i, lo, hi, st):
    t = 0
    for k in range(lo + i % 5, hi - i % 3, st):
        if k % 7 == 3:
            continue
        if t > 4000:
            break
        t += k * (i % 4 + 1)
    return t


@tack.kernel
def k_plain(out, lo, hi, st):
    for i in range(out.shape[0]):
        t = 0
        for k in range(lo + i % 5, hi - i % 3, st):
            if k % 7 == 3:
                continue
            if t > 4000:
                break
            t += k * (i % 4 + 1)
        out[i] = t


@tack.kernel
def k_by3(out, lo, hi, st):
    for i in range(out.shape[0]):
        t = 0
        for k in tack.unroll(range(lo + i % 5, hi - i % 3, st), 3):
            if k % 7 == 3:
                continue
            if t > 4000:
                break
            t += k * (i % 4 + 1)
        out[i] = t


@tack.kernel
def k_by8(out, lo, hi, st):
    for i in range(out.shape[0]):
        t = 0
        for k in tack.unroll(range(lo + i % 5, hi - i % 3, st), factor=EIGHT):
            if k % 7 == 3:
                continue
            if t > 4000:
                break
            t += k * (i % 4 + 1)
        out[i] = t


@tack.kernel
def k_by1(out, lo, hi, st):
    for i in range(out.shape[0]):
        t = 0
        for k in tack.unroll(range(lo + i % 5, hi - i % 3, st), 1):
            if k % 7 == 3:
                continue
            if t > 4000:
                break
            t += k * (i % 4 + 1)
        out[i] = t


@tack.kernel
def k_full_runtime(out, lo, hi, st):
    for i in range(out.shape[0]):
        t = 0
        for k in tack.unroll(range(lo + i % 5, hi - i % 3, st)):  # a runtime trip count
            if k % 7 == 3:
                continue
            if t > 4000:
                break
            t += k * (i % 4 + 1)
        out[i] = t


RANGES = [(0, 50, 1), (3, 40, 4), (40, -5, -3), (0, 0, 1), (10, 3, 1), (-7, 30, 2), (90, 0, -1)]


@pytest.mark.parametrize("kernel", [k_by3, k_by8, k_by1, k_full_runtime],
                         ids=lambda k: k.name)
@pytest.mark.parametrize("lo,hi,st", RANGES)
def test_hinted_loops_equal_the_plain_loop(kernel, lo, hi, st):
    for n in AWKWARD_SIZES:
        expect = np.array([_loop_ref(i, lo, hi, st) for i in range(n)], np.int64)
        plain, hinted = tack.zeros(n, tack.i64), tack.zeros(n, tack.i64)
        k_plain(plain, lo, hi, st)
        kernel(hinted, lo, hi, st)
        np.testing.assert_array_equal(plain.numpy(), expect)
        np.testing.assert_array_equal(hinted.numpy(), expect)


@tack.kernel
def k_small_forms(out):
    for i in range(out.shape[0]):
        t = 0
        for a in tack.unroll(range(i % 9), 4):  # range(stop), often fewer trips than the factor
            t += a
        for b in tack.unroll(range(2, i % 11), 2):  # range(start, stop); the order matters
            t = t * 3 + b
        for c in tack.unroll(range(5)):  # full, nested
            for d in tack.unroll(range(c, 7, 3), 2):
                t = (t ^ (d << c)) + 1
        out[i] = t


def _small_ref(i):
    t = sum(range(i % 9))
    for b in range(2, i % 11):
        t = t * 3 + b
    for c in range(5):
        for d in range(c, 7, 3):
            t = (t ^ (d << c)) + 1
    return t


@pytest.mark.parametrize("threads", [1, 2])
def test_range_forms_and_nesting(threads):
    tack.set_default_device("cpu", num_threads=threads)
    for n in AWKWARD_SIZES:
        out = tack.zeros(n, tack.i64)
        k_small_forms(out)
        np.testing.assert_array_equal(out.numpy(), [_small_ref(i) for i in range(n)])
