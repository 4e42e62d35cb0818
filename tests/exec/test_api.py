"""The public host API: arrays, dtypes as casts, devices, specialization caching."""
import numpy as np
import pytest
import tack


@tack.kernel
def double(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * 2


@tack.kernel
def last_minus(x, out):
    for i in range(x.shape[0]):
        out[i] = x[x.shape[0] - 1 - i]


def test_array_roundtrip_keeps_shape_and_dtype():
    for dt in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
               np.float32, np.float64):
        h = (np.arange(24) % 7).astype(dt).reshape(2, 3, 4)
        a = tack.array(h)
        assert a.shape == (2, 3, 4) and a.ndim == 3 and a.size == 24 and len(a) == 2
        assert a.dtype is tack.dtypes.from_numpy(dt)
        got = a.numpy()
        assert got.dtype == dt and got is not a.numpy()
        np.testing.assert_array_equal(got, h)
        np.testing.assert_array_equal(np.asarray(a), h)


def test_numpy_returns_a_new_array():
    a = tack.array(np.zeros(3, np.float32))
    b = a.numpy()
    b[0] = 5
    assert a.numpy()[0] == 0


def test_non_contiguous_inputs_are_copied_in():
    base = np.arange(40, dtype=np.float32).reshape(4, 10)
    for view in (base[:, ::3], base.T, base[::-1], base[1:3, 2:7]):
        a = tack.array(view)
        np.testing.assert_array_equal(a.numpy(), view)
        flat = tack.array(np.ascontiguousarray(view).ravel())
        out = tack.zeros(flat.shape)
        double(flat, out)
        np.testing.assert_array_equal(out.numpy(), np.ascontiguousarray(view).ravel() * 2)


def test_big_endian_and_longdouble_rejected_without_change():
    with pytest.raises(TypeError):
        tack.array(np.zeros(3, ">f4"))
    with pytest.raises(TypeError, match="float128|longdouble"):
        tack.array(np.zeros(3, np.longdouble))
    a = tack.zeros(3)
    with pytest.raises(TypeError):
        tack.copyto(a, np.array(["a", "b", "c"]))
    np.testing.assert_array_equal(a.numpy(), np.zeros(3))


def test_empty_zeros_full_copyto():
    e = tack.empty((2, 3))
    assert e.dtype is tack.f32 and e.shape == (2, 3)
    z = tack.zeros(5, tack.i64)
    np.testing.assert_array_equal(z.numpy(), np.zeros(5))
    f = tack.full(4, 3.5, tack.f64)
    np.testing.assert_array_equal(f.numpy(), np.full(4, 3.5))
    tack.copyto(z, np.arange(5))
    np.testing.assert_array_equal(z.numpy(), np.arange(5))
    with pytest.raises(ValueError):
        tack.empty(-1)
    assert tack.zeros(0).size == 0


def test_dtypes_as_host_casts():
    assert tack.u8(-1) == 255
    assert tack.i8(255) == -1
    assert tack.u64(tack.i8(-1)) == 2 ** 64 - 1
    assert tack.i64(tack.u8(255)) == 255
    assert tack.i32(2.9) == 2 and tack.i32(-2.9) == -2
    assert tack.f32(0.1) == np.float32(0.1)
    assert repr(tack.f32) == "tack.f32"


@pytest.mark.parametrize("n", [0, 1, 2, 31, 1025, 4099])
def test_awkward_lengths(n):
    h = np.random.default_rng(n).normal(size=n).astype(np.float32)
    out = tack.zeros(n)
    double(tack.array(h), out)
    np.testing.assert_array_equal(out.numpy(), h * 2)


def test_one_variant_serves_every_length_and_is_cached(monkeypatch):
    k = tack.kernel(double.fn)
    from tack import compiler

    calls = []
    real = compiler.typecheck
    monkeypatch.setattr(compiler, "typecheck", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    for n in (3, 17, 3):
        k(tack.zeros(n), tack.zeros(n))
    first = len(calls)
    for n in (5, 9, 1000):
        k(tack.zeros(n), tack.zeros(n))
    assert len(calls) == first  # no new specialization: the loop bound is not compiled in
    k(tack.zeros(3, tack.f64), tack.zeros(3, tack.f64))
    assert len(calls) > first  # a new dtype is a new specialization


def test_baked_extent_specializes_per_value():
    k = tack.kernel(last_minus.fn)
    for n in (4, 9):
        h = np.arange(n, dtype=np.float32)
        out = tack.zeros(n)
        k(tack.array(h), out)
        np.testing.assert_array_equal(out.numpy(), h[::-1])
    assert len(next(iter(k._plans.values())).variants) == 2


def test_num_threads_option_and_env(monkeypatch):
    tack.set_default_device("cpu", num_threads=1)
    h = np.arange(10000, dtype=np.float32)
    out = tack.zeros(10000)
    double(tack.array(h), out)
    np.testing.assert_array_equal(out.numpy(), h * 2)
    tack.set_default_device("cpu")
    monkeypatch.setenv("TACK_CPU_THREADS", "x")
    from tack.devices import make_device

    with pytest.raises(ValueError, match="TACK_CPU_THREADS"):
        _ = make_device("cpu").engine  # read when a device's engine starts
    monkeypatch.delenv("TACK_CPU_THREADS")
    assert tack.set_default_device("cpu") is tack.set_default_device("cpu")


def test_host_arrays_serve_every_cpu_device():
    a, out = tack.array(np.ones(3, np.float32)), tack.zeros(3)
    tack.set_default_device("cpu", num_threads=1)
    double(a, out)
    np.testing.assert_array_equal(out.numpy(), 2 * np.ones(3))
    tack.set_default_device("cpu")


@pytest.mark.engines("cuda",
                     reason="an array in device memory; without a GPU, "
                            "tests/julia/test_julia153_device_arrays.py gives the CPU engine one "
                            "of the Julia engine's device arrays")
def test_arrays_of_another_device_are_refused(engine):
    a = tack.zeros(3)
    tack.set_default_device("cpu")
    out = tack.zeros(3)
    with pytest.raises(RuntimeError, match="belongs to"):
        double(a, out)


def test_import_is_light():
    import subprocess
    import sys

    code = ("import sys, time; t = time.perf_counter(); import tack; "
            "bad = [m for m in sys.modules if m.split('.')[0] in "
            "('llvmlite', 'juliacall', 'cuda', 'cupy', 'torch', 'ml_dtypes')]; "
            "print(time.perf_counter() - t, bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seconds, bad = out.stdout.split(" ", 1)
    assert bad.strip() == "[]"
    assert float(seconds) < 1.0  # the target is 0.3 s; CI machines are noisy


def test_a_kernel_without_bfloat16_never_imports_ml_dtypes(tmp_path):
    """ml_dtypes (bfloat16's NumPy type) takes about a second to import from 0.7 on: a first
    call that compiles an f32 or f16 kernel, constant folding and min/max included, leaves it
    unloaded (tack.dtypes loads it on first use of bf16)."""
    import os
    import subprocess
    import sys

    code = ("import sys, numpy as np, tack\n"
            "@tack.kernel\n"
            "def k(x, out):\n"
            "    for i in range(x.shape[0]):\n"
            "        out[i] = max(abs(x[i]) ** 0.5, min(x[i], 2.0)) + max(3, 1 + 1)\n"
            "for dt in (np.float32, np.float16):\n"
            "    x = tack.array(np.arange(-4, 5, dtype=dt))\n"
            "    out = tack.zeros(9, dt)\n"
            "    k(x, out)\n"
            "print('ml_dtypes' in sys.modules)\n")
    (tmp_path / "first_call.py").write_text(code)  # a kernel's source is read from its file
    out = subprocess.run([sys.executable, str(tmp_path / "first_call.py")], capture_output=True,
                         text=True, check=True, env={**os.environ, "TACK_CACHE": "off"})
    assert out.stdout.strip() == "False", out.stdout + out.stderr


def test_fastmath_is_opt_in_per_kernel():
    from tests.kernels.corpus import nbody

    fast = tack.kernel(fastmath=True)(nbody.fn)
    n = 64
    pos = np.c_[np.random.default_rng(0).normal(size=(n, 3)), np.ones(n)].astype(np.float32)
    p, a1, a2 = tack.array(pos), tack.zeros((n, 3)), tack.zeros((n, 3))
    nbody(p, a1, n, 0.01)
    fast(p, a2, n, 0.01)
    np.testing.assert_allclose(a2.numpy(), a1.numpy(), rtol=1e-4, atol=1e-4)
    assert " fast " in tack.inspect(fast, p, a2, n, 0.01, mode="source")
    assert " fast " not in tack.inspect(nbody, p, a1, n, 0.01, mode="source")


@tack.kernel
def fminmax(a, b, lo, hi):
    for i in range(a.shape[0]):
        lo[i] = min(a[i], b[i])
        hi[i] = max(a[i], b[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_min_max_let_a_number_win_over_nan(dtype):
    a = np.array([1.0, np.nan, 3.0, np.nan, -0.0, 2.0] * 50, dtype)
    b = np.array([np.nan, 2.0, -1.0, np.nan, 0.0, 2.0] * 50, dtype)
    lo, hi = tack.zeros(len(a), dtype), tack.zeros(len(a), dtype)
    fminmax(tack.array(a), tack.array(b), lo, hi)
    np.testing.assert_array_equal(lo.numpy(), np.fmin(a, b))  # equal: NaN == NaN, -0.0 == 0.0
    np.testing.assert_array_equal(hi.numpy(), np.fmax(a, b))


def test_float_max_reductions_of_every_width_compile(tmp_path):
    """A row max over widths whose vectorized reduction made llvmlite 0.50's LLVM assert (and
    abort Python) with llvm.maxnum; run in a subprocess so a regression cannot kill the suite."""
    import subprocess
    import sys

    script = tmp_path / "rowmax.py"
    script.write_text(
        "import numpy as np, tack\n"
        "@tack.kernel\n"
        "def rowmax(x, out):\n"
        "    for i in range(x.shape[0]):\n"
        "        m = x[i, 0]\n"
        "        for j in range(1, x.shape[1]):\n"
        "            m = max(m, x[i, j])\n"
        "        out[i] = m\n"
        "for w in (72, 88, 96, 128, 191, 192):\n"
        "    h = np.random.default_rng(w).random((3, w), dtype=np.float32)\n"
        "    o = tack.zeros(3)\n"
        "    rowmax(tack.array(h), o)\n"
        "    assert (o.numpy() == h.max(axis=1)).all(), w\n")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-2000:]


@tack.kernel
def loop_over_u64(out, n):
    for i in range(out.shape[0]):
        t = 0
        for j in range(n):
            t += 1
        out[i] = t


def test_sequential_range_takes_its_bounds_type():
    out = tack.zeros(2, tack.i64)
    loop_over_u64(out, 7)
    np.testing.assert_array_equal(out.numpy(), [7, 7])
    ir = tack.inspect(loop_over_u64, out, 2 ** 63 + 2, mode="ir")
    assert "j: u64" in ir  # range(n) of a u64 n: the implicit 0 is a literal
