"""Debug mode (docs/debugging.md, "Check every index with debug mode"): checks, skips, the
message."""
import os

import numpy as np
import pytest
import tack

HERE = os.path.relpath(os.path.abspath(__file__))


@pytest.fixture(autouse=True)
def debug():
    tack.set_debug(True)  # the root conftest's `_restore_defaults` turns it off again


@tack.kernel
def blur(a, out):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = (a[i, j] + a[i, j + 1]) * 0.5


@tack.kernel
def guarded(a, out, n):
    for i in range(n):
        right = a[i + 1] if i + 1 < n else 0.0
        ok = i > 0 and a[i - 1] > 0.0
        k = 0
        while k < 3 and a[(i + k) % n] >= 0.0:
            k += 1
        out[i] = right + ok + k


@tack.kernel
def bad_store(out, shift):
    for i in range(out.shape[0]):
        out[i - shift] = 1.0


@tack.kernel
def scratch_oob(out):
    for i in range(out.shape[0]):
        buf = tack.local_array(tack.f32, 4)
        for k in range(5):
            buf[k] = 1.0
        out[i] = buf[0] + buf[3]


@tack.kernel
def atomic_oob(bins, data):
    for i in range(data.shape[0]):
        tack.atomic_add(bins, data[i], 1)


def line_col(fn, snippet):
    import inspect

    lines, first = inspect.getsourcelines(fn)
    for k, text in enumerate(lines[1:], start=1):
        if snippet in text:
            return first + k, text.index(snippet) + 1
    raise AssertionError(snippet)


def test_seed_blur_message():
    a = tack.array(np.ones((4, 64), np.float32))
    out = tack.zeros((4, 64))
    with pytest.raises(IndexError) as ei:
        blur(a, out)
    line, col = line_col(blur.fn, "a[i, j + 1]")
    assert str(ei.value) == (
        f"Kernel 'blur': a[i, j + 1] at {HERE}:{line}, column {col}: index 64 of dimension 1 is "
        "outside [0, 64). The access was skipped (a load gives 0).\n"
        "3 more out-of-bounds accesses in the launch were skipped too.")
    assert isinstance(ei.value, tack.TackError)
    got = out.numpy()
    np.testing.assert_array_equal(got[:, :-1], 1.0)
    np.testing.assert_array_equal(got[:, -1], 0.5)  # the skipped load gave 0


def test_guarded_accesses_are_not_reported(engine):
    h = np.arange(1, 8, dtype=np.float32)
    out = tack.zeros(7)
    guarded(tack.array(h), out, 7)
    tack.set_debug(False)
    ref = tack.zeros(7)
    guarded(tack.array(h), ref, 7)
    np.testing.assert_array_equal(out.numpy(), ref.numpy())


def test_store_negative_index_is_skipped(engine):
    out = tack.zeros(5)
    with pytest.raises(IndexError, match=r"out\[i - shift\] at .*: index -1 of dimension 0 is "
                                         r"outside \[0, 5\)\. The access was skipped \(the store "
                                         r"was not done\)\.\n1 more out-of-bounds"):
        bad_store(out, 2)
    np.testing.assert_array_equal(out.numpy(), [1, 1, 1, 0, 0])


def test_local_array_index_checked():
    out = tack.zeros(3)
    with pytest.raises(IndexError, match=r"buf\[k\] at .*index 4 of dimension 0 is outside "
                                         r"\[0, 4\)"):
        scratch_oob(out)


def test_atomic_index_checked_and_skipped(engine):
    bins = tack.zeros(4, tack.i32)
    with pytest.raises(IndexError, match=r"index 9 of dimension 0 is outside \[0, 4\)"):
        atomic_oob(bins, tack.array(np.array([0, 1, 9, 3, 3], np.int32)))
    np.testing.assert_array_equal(bins.numpy(), [1, 1, 0, 2])


def test_debug_off_again_and_separate_specializations():
    a = tack.array(np.ones((2, 8), np.float32))
    out = tack.zeros((2, 8))
    with pytest.raises(IndexError):
        blur(a, out)
    tack.set_debug(False)
    blur(a, out)  # no check, no error (the read past the row end is the caller's problem)
    assert any(len(k) == 3 for k in blur._plans) and any(len(k) == 2 for k in blur._plans)


def test_tack_debug_env_read_at_import():
    import subprocess
    import sys

    code = "import tack; print(tack.debug_mode())"
    env = dict(os.environ, TACK_DEBUG="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=False)
    assert out.stdout.strip() == "True"



@tack.kernel
def math_on_loads(x, out):
    for i in range(x.shape[0]):
        out[i, 0] = sin(x[i] * 0.5) + cos(x[i])  # noqa: F821 (kernel builtins)
        out[i, 1] = log(x[i] + 2.0) if x[i] > 0.0 else tanh(x[i])  # noqa: F821


def test_math_builtins_of_loads_compile_in_linear_time(engine):
    """The library math functions read their argument many times, and the inliner shares its
    expression: a DAG whose tree is exponential. Debug mode's bounds checks and lazy-expression
    lifting visit each node once (a load in `sin(x[i])` took minutes, one check per copy of
    the tree), and one access is one site; the results are those of the kernel without debug."""
    import time

    from tack.compiler import specialize

    x = np.linspace(-3.0, 3.0, 41).astype(np.float32)
    start = time.perf_counter()
    kir = specialize(math_on_loads, [tack.array(x), tack.zeros((41, 2))], debug=True)
    assert time.perf_counter() - start < 5.0
    assert len(kir.notes["debug_sites"]) <= 12
    out = tack.zeros((41, 2))
    math_on_loads(tack.array(x), out)
    tack.set_debug(False)
    plain = tack.zeros((41, 2))
    math_on_loads(tack.array(x), plain)
    np.testing.assert_array_equal(out.numpy(), plain.numpy())
    want = np.stack([np.sin(x * np.float32(0.5)) + np.cos(x),
                     np.where(x > 0, np.log(x + np.float32(2.0)), np.tanh(x))], axis=1)
    np.testing.assert_allclose(out.numpy(), want, rtol=2e-6, atol=2e-6)
