"""Asynchronous copies (docs/language.md, "Asynchronous copies") on the simulator: a copy lands
only at the wait that covers its group, so a read before it sees the old contents; the
double-buffered matmul gives exactly the synchronous kernel's bits and NumPy's exact result; every
dtype and count the hardware copies moves its bits; and what the language refuses is refused
before anything runs, with its position."""
import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.ir.printer import kernel_str

from tests.kernels import async_copies as K

COPY_BYTES = (4, 8, 16)


@pytest.fixture(autouse=True)
def sim():
    tack.set_default_device("sim")
    yield
    tack.set_default_device("cpu")


@tack.kernel
def stale_then_landed(x, before, own, other):
    for i in range(x.shape[0]):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        buf[tid] = -1.0
        tack.barrier()
        tack.async_copy(buf, tid, x, i)
        tack.async_commit()
        before[i] = buf[tid]  # not waited for: the old contents
        tack.async_wait(0)
        own[i] = buf[tid]  # this lane's own copy, landed
        tack.barrier()
        other[i] = buf[255 - tid]  # another lane's, after the barrier that follows its wait


@tack.kernel
def groups_in_order(x, first, second, n):
    for i in range(n):
        buf = tack.shared(tack.f32, 512)
        tid = tack.thread_id()
        buf[tid] = -1.0
        buf[256 + tid] = -1.0
        tack.barrier()
        tack.async_copy(buf, tid, x, i)  # group 0
        tack.async_commit()
        tack.async_copy(buf, 256 + tid, x, n + i)  # group 1
        tack.async_commit()
        tack.async_wait(1)  # group 0 has landed, group 1 may not have
        first[i] = buf[tid]
        second[i] = buf[256 + tid]


def test_a_copy_lands_at_its_wait_and_a_read_before_sees_the_old_contents():
    x = tack.array(np.arange(512, dtype=np.float32) + 1)
    before, own, other = (tack.zeros(512) for _ in range(3))
    stale_then_landed(x, before, own, other)
    np.testing.assert_array_equal(before.numpy(), -1.0)
    np.testing.assert_array_equal(own.numpy(), x.numpy())
    np.testing.assert_array_equal(other.numpy(), x.numpy().reshape(2, 256)[:, ::-1].ravel())


def test_a_wait_leaves_the_newest_groups_pending():
    x = tack.array(np.arange(512, dtype=np.float32))
    first, second = tack.zeros(256), tack.zeros(256)
    groups_in_order(x, first, second, 256)
    np.testing.assert_array_equal(first.numpy(), x.numpy()[:256])
    np.testing.assert_array_equal(second.numpy(), -1.0)


@pytest.mark.parametrize("shape", [(16, 16, 16), (32, 48, 80), (48, 16, 112)])
def test_the_pipelined_matmul_gives_the_synchronous_kernels_bits(shape):
    m, n, k = shape
    a, b, c = K.matmul_args(m, n, k, seed=k)
    K.matmul_pipelined(a, b, c)
    a2, b2, c2 = K.matmul_args(m, n, k, seed=k)
    K.matmul_double_buffered(a2, b2, c2)
    np.testing.assert_array_equal(c.numpy(), c2.numpy())
    want = a.numpy().astype(np.float64) @ b.numpy().astype(np.float64)  # exact: small integers
    np.testing.assert_array_equal(c.numpy(), want)


def test_the_pipelined_matmul_checks_clean_and_its_missing_wait_twin_is_reported():
    report = tack.check(K.matmul_pipelined, *K.matmul_args())
    assert report.verdict == "clean", report.text()
    bad = tack.check(K.matmul_pipelined_no_wait, *K.matmul_args())
    found = bad.of_kind("pipeline")
    assert found and all("may not have landed" in f.message for f in found), bad.text()
    assert {f.array for f in found} == {"As", "Bs"}
    # the stale tiles change the product: the run shows what the finding says
    assert not np.array_equal(bad.outputs["c"], report.outputs["c"])


SIZES = [(t, n) for t in (tack.f16, tack.bf16, tack.f32, tack.i32, tack.f64, tack.u8)
         for n in sorted(K.COPY) if n * t.itemsize in COPY_BYTES]


@pytest.mark.parametrize("dtype, count", SIZES, ids=[f"{t.name}x{n}" for t, n in SIZES])
def test_every_dtype_and_count_of_4_8_or_16_bytes_moves_its_bits(dtype, count):
    raw = np.random.default_rng(count).integers(0, 256, 512 * dtype.itemsize, dtype=np.uint8)
    host = raw.view(dtype.np)
    x, out = tack.array(host), tack.zeros(512, dtype)
    K.COPY[count](x, out)
    want = host.reshape(2, 256)[:, ::-1].ravel()
    np.testing.assert_array_equal(out.numpy().view(np.uint8), want.view(np.uint8))
    assert tack.check(K.COPY[count], x, tack.zeros(512, dtype)).verdict == "clean"


@tack.kernel
def wrong_size(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        tack.async_copy(buf, 0, x, i, 3)
        out[i] = buf[0]


@tack.kernel
def wrong_dtype(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f64, 256)
        tack.async_copy(buf, 0, x, i)
        out[i] = buf[0]


@tack.kernel
def into_local(x, out):
    for i in range(out.shape[0]):
        buf = tack.local_array(tack.f32, 4)
        tack.async_copy(buf, 0, x, i)
        out[i] = buf[0]


@tack.kernel
def into_global(x, out):
    for i in range(out.shape[0]):
        tack.async_copy(out, i, x, i)


@tack.kernel
def wait_on_a_value(x, out, n):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        tack.async_copy(buf, 0, x, i)
        tack.async_commit()
        tack.async_wait(n)
        out[i] = buf[0]


@tack.kernel
def wait_negative(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        tack.async_wait(-1)
        out[i] = buf[0]


@tack.kernel
def copy_as_value(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        v = tack.async_copy(buf, 0, x, i)
        out[i] = v


@tack.kernel
def misaligned(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        if tid % 2 == 0:
            tack.async_copy(buf, tid, x, i + 1, 2)
        tack.async_commit()
        tack.async_wait(0)
        tack.barrier()
        out[i] = buf[tid]


REFUSED = [
    (wrong_size, tack.TackValueError, "moves 12 bytes", 3),
    (wrong_dtype, tack.TackTypeError, "both arrays hold one dtype", 3),
    (into_local, tack.UnsupportedSyntaxError, "not a shared array", 3),
    (into_global, tack.UnsupportedSyntaxError, "not a shared array", 2),
    (wait_on_a_value, tack.TackTypeError, "known when the kernel compiles", 5),
    (wait_negative, tack.TackValueError, "0 or more", 3),
    (copy_as_value, tack.UnsupportedSyntaxError, "used as a value", 3),
]


@pytest.mark.parametrize("kernel, cls, words, line", REFUSED, ids=[r[0].name for r in REFUSED])
def test_misuse_is_refused_before_anything_runs_with_its_position(kernel, cls, words, line):
    x = tack.array(np.arange(256, dtype=np.float32))
    out = tack.zeros(256)
    args = (x, out, 1) if kernel is wait_on_a_value else (x, out)
    with pytest.raises(cls, match=words) as info:
        kernel(*args)
    first = kernel.fn.__code__.co_firstlineno  # the decorator's line; `line` counts from `def`
    assert info.value.loc.line == first + 1 + line
    np.testing.assert_array_equal(out.numpy(), 0.0)


def test_a_misaligned_copy_is_refused_when_it_runs():
    x = tack.array(np.arange(300, dtype=np.float32))
    with pytest.raises(tack.TackValueError, match="8-byte aligned"):
        misaligned(x, tack.zeros(256))


def test_the_cpu_engine_refuses_them_before_launch():
    x = tack.array(np.arange(256, dtype=np.float32), device="cpu")
    out = tack.zeros(256, device="cpu")
    with tack.device("cpu"), pytest.raises(RuntimeError, match="async_copy") as info:
        K.COPY[1](x, out)
    assert "workgroup" in str(info.value)
    np.testing.assert_array_equal(out.numpy(), 0.0)


def test_the_ir_names_both_arrays_and_the_count():
    x, out = tack.array(np.zeros(256, np.float16)), tack.zeros(256, tack.f16)
    text = tack.inspect(K.COPY[4], x, out, mode="ir", engine="sim")
    assert "async_copy(buf[" in text and "<- x[" in text and ", 4)" in text
    assert "async_wait(0)" in text and "async_commit()" in text


def test_debug_mode_checks_both_ends_of_a_copy():
    def sites(kernel):
        x, out = tack.array(np.zeros(256, np.float32)), tack.zeros(256)
        return kernel_str(specialize(kernel, [x, out], debug=True)).count("atomic_add(.dbg")

    # a copy of one element: its source and shared index; of four: each at both ends
    assert sites(K.COPY[4]) == sites(K.COPY[1]) + 2
