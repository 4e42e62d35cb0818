"""Regression tests of the API and the compiler found by the reliability probe (the corpus holds many more rows)."""
import ast
import linecache
import subprocess
import sys
import threading

import numpy as np
import pytest
import tack
from tack.frontend import depth, source


@tack.kernel
def store(r, w):
    for i in range(r.shape[0]):
        w[i] = r[i] + 1.0


@tack.kernel
def bump(w):
    for i in range(w.shape[0]):
        tack.atomic_add(w, i, 1.0)


def _read_only(n=4):
    src = np.arange(n, dtype=np.float32)
    src.flags.writeable = False
    return src, tack.from_dlpack(src)


def test_read_only_arrays_are_refused_before_launch_naming_kernel_and_parameter():
    src, ro = _read_only()
    assert ro.readonly and not tack.zeros(4).readonly
    for call in (lambda: store(tack.ones(4), ro), lambda: bump(ro)):
        with pytest.raises(tack.TackValueError, match=r"Kernel '(store|bump)': parameter 'w'"):
            call()
    assert src.tolist() == [0.0, 1.0, 2.0, 3.0]
    out = tack.zeros(4)
    store(ro, out)  # reading one is fine
    assert out.numpy().tolist() == [1.0, 2.0, 3.0, 4.0]
    store(out, tack.zeros(4))  # a warm call path for writable arrays...
    with pytest.raises(ValueError, match="read-only"):
        store(out, ro)  # ...does not take a read-only one
    with pytest.raises(ValueError, match="read-only"):
        tack.copyto(ro, np.ones(4, np.float32))
    with pytest.raises(ValueError, match="read-only"):
        ro.fill(1.0)
    assert not ro.copy().readonly and ro.reshape(2, 2).readonly


def test_misaligned_and_foreign_imports_are_refused_with_tack_errors():
    buf = np.zeros(40, np.uint8)
    with pytest.raises(tack.TackValueError, match="not a multiple of its element size"):
        tack.from_dlpack(buf[1:33].view(np.float32))
    assert tack.from_dlpack(buf[1:9]).shape == (8,)  # bytes have no alignment to keep
    for bad, cls in ((object(), TypeError), (np.arange(4, dtype=">f4"), BufferError),
                     (np.zeros(8, np.float32)[::2], BufferError),
                     (np.zeros(4, np.complex64), TypeError)):
        with pytest.raises(cls) as info:
            tack.from_dlpack(bad)
        assert isinstance(info.value, tack.TackError)


def test_a_return_type_error_is_found_before_the_loop_runs():
    @tack.kernel
    def k(x) -> tack.f32:
        for i in range(x.shape[0]):
            x[i] = 5.0
        return x[0] + tack.vec3(1.0, 2.0, 3.0)

    x = tack.zeros(3)
    with pytest.raises(TypeError, match="Kernel 'k':") as info:
        k(x)
    assert "k_return" not in str(info.value) and info.value.loc is not None
    assert x.numpy().tolist() == [0.0] * 3


def test_user_names_cannot_collide_with_generated_ones():
    @tack.device_class
    class G:
        def __init__(self, n):
            self.n = n

    @tack.kernel
    def k(g, g__n, __start, _i, out):
        for i in range(_i, out.shape[0]):
            out[i] = g.n * 100 + g__n * 10 + __start

    out = tack.zeros(4, tack.i32)
    k(G(1), 2, 3, 1, out)
    assert out.numpy().tolist() == [0, 123, 123, 123]
    assert "g.n" in tack.inspect(k, G(1), 2, 3, 1, out, mode="ir")


def test_vector_into_scalar_array_and_indexed_texture_are_type_errors():
    @tack.kernel
    def vec_store(out):
        for i in range(out.shape[0]):
            out[i] = tack.vec3(1.0, 2.0, 3.0)

    @tack.kernel
    def tex_index(t, out):
        for i in range(out.shape[0]):
            out[i] = t[i]

    out = tack.zeros(4)
    for call in (lambda: vec_store(out), lambda: tex_index(tack.texture3d(tack.zeros((2, 2, 2))),
                                                           out)):
        with pytest.raises(TypeError) as info:
            call()
        assert isinstance(info.value, tack.UnsupportedSyntaxError)  # the class used before
        assert info.value.loc is not None


def test_keyword_only_parameters_are_reported_as_such():
    @tack.kernel
    def k(x, *, out):
        for i in range(x.shape[0]):
            out[i] = x[i]

    with pytest.raises(tack.UnsupportedSyntaxError, match="keyword-only"):
        k(tack.zeros(2), tack.zeros(2))


def test_bad_decorations_and_bounds_keep_the_contract():
    with pytest.raises(tack.UnsupportedSyntaxError):
        tack.kernel(lambda x: x)
    with pytest.raises(tack.TackTypeError):
        tack.kernel(42)

    @tack.kernel
    def k(n, out):
        for i in range(n):
            out[i] = 1.0

    for bad in (2.0, float("nan"), np.float32(3)):
        with pytest.raises(tack.TackTypeError, match="Kernel 'k':") as info:
            k(bad, tack.zeros(4))
        assert info.value.loc is not None


def test_deep_sums_compile_and_deeper_ones_are_refused(monkeypatch):
    terms = 600  # past what the recursive passes took on Python's default stack before
    text = (f"def k(x, out):\n    for i in range(x.shape[0]):\n"
            f"        out[i] = {' + '.join(['x[i]'] * terms)}\n")
    ns = {}
    linecache.cache["<deep-test>"] = (len(text), None, text.splitlines(True), "<deep-test>")
    exec(compile(text, "<deep-test>", "exec"), ns)  # noqa: S102 - a kernel of 600 terms
    limit = sys.getrecursionlimit()
    k = tack.kernel(ns["k"])
    x, out = tack.ones(2), tack.zeros(2)
    k(x, out)
    assert out.numpy().tolist() == [float(terms)] * 2
    assert sys.getrecursionlimit() == limit  # restored after the deep compile
    monkeypatch.setattr(depth, "MAX_DEPTH", 100)
    with pytest.raises(tack.UnsupportedSyntaxError, match="nested") as info:
        tack.kernel(ns["k"])(x, out)
    assert info.value.loc is not None


def test_on_deep_stack_returns_and_raises_across_the_thread():
    assert depth.on_deep_stack(depth.DEEP + 1, lambda a: a + 1, 1) == 2
    with pytest.raises(KeyError):
        depth.on_deep_stack(depth.DEEP + 1, {}.__getitem__, "x")


def test_parsing_is_serialized(monkeypatch):
    held = []
    real = ast.parse

    def spy(*a, **kw):
        held.append(source._parse_lock.locked())
        return real(*a, **kw)

    monkeypatch.setattr(ast, "parse", spy)

    def decorate():
        @tack.kernel
        def k(x):
            for i in range(x.shape[0]):
                x[i] = 1.0
        k(tack.zeros(3))

    threads = [threading.Thread(target=decorate) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert held and all(held)


def test_small_ones():
    with pytest.raises(TypeError):
        tack.set_debug("false")
    assert tack.set_debug(False) is None
    with pytest.raises(ValueError, match="names no device"):
        tack.set_default_device("cpu:1")
    for src in (np.ones(3, np.complex64), np.ones(3, np.longdouble), np.ones(3, np.bool_)):
        with pytest.raises(TypeError):
            tack.copyto(tack.zeros(3), src)


def test_an_uncreatable_cache_directory_warns(tmp_path):
    script = tmp_path / "k.py"
    script.write_text("import tack\n@tack.kernel\ndef k(x):\n    for i in range(x.shape[0]):\n"
                      "        x[i] = 1.0\nk(tack.zeros(2))\n")
    env = {"TACK_CACHE_DIR": "/proc/tack-no-such-dir/cache", "PYTHONPATH": ":".join(sys.path)}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env, check=True)
    assert "not using the cache directory" in out.stderr
