"""Transaction barriers and bulk copies (docs/language.md, "Transaction barriers") on the
simulator: a bulk copy's data lands only when a wait needs the phase it completes, so a read
before sees the old contents; phases advance when arrivals and bytes reach their expectations;
the triple-buffered matmul gives the synchronous kernel's bits and NumPy's exact result; what the
language refuses is refused before anything runs, with its position; the CPU and Julia engines
refuse them before launch; the PTX assembles for sm_80 (barriers) and sm_90 (bulk copies) and an
older device is refused before rendering."""
import subprocess

import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.errors import CapabilityError
from tack.ir.printer import kernel_str
from tack.toolchain.nvptx import compile_ptx

from tests.cuda.ptxas import PTXAS
from tests.kernels import async_copies as A
from tests.kernels import mbarriers as M


@pytest.fixture(autouse=True)
def sim():
    tack.set_default_device("sim")
    yield
    tack.set_default_device("cpu")


@tack.kernel
def stale_then_landed(x, before, after):
    for i in range(x.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        buf[tid] = -1.0
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], 1024)
            tack.async_bulk_copy(buf, 0, x, i, 256, bar[0])
        before[i] = buf[tid]  # not waited for: the old contents
        tack.mbarrier_wait(bar[0], 0)
        after[i] = buf[255 - tid]


def test_a_bulk_copy_lands_at_the_wait_for_its_phase():
    x = tack.array(np.arange(512, dtype=np.float32))
    before, after = tack.zeros(512), tack.zeros(512)
    stale_then_landed(x, before, after)
    np.testing.assert_array_equal(before.numpy(), -1.0)
    want = np.arange(512, dtype=np.float32).reshape(2, 256)[:, ::-1].ravel()
    np.testing.assert_array_equal(after.numpy(), want)


@pytest.mark.parametrize("shape", [(16, 16, 16), (32, 48, 80), (16, 32, 48), (48, 16, 112)])
def test_the_triple_buffered_matmul_gives_the_synchronous_kernels_bits(shape):
    m, n, k = shape
    a, b, c = A.matmul_args(m, n, k)
    c2 = tack.zeros((m, n))
    M.matmul_bulk(a, b, c)
    A.matmul_double_buffered(a, b, c2)
    np.testing.assert_array_equal(c.numpy().view(np.uint32), c2.numpy().view(np.uint32))
    np.testing.assert_array_equal(c.numpy(), a.numpy() @ b.numpy())


def test_the_matmul_checks_clean():
    report = tack.check(M.matmul_bulk, *A.matmul_args(32, 32, 80))
    assert report.verdict == "clean", report.text()


@tack.kernel
def wrong_size(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tack.async_bulk_copy(buf, 0, x, i, 6, bar[0])
        out[i] = buf[0]


@tack.kernel
def on_data(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        tack.mbarrier_wait(buf[0], 0)
        out[i] = buf[0]


@tack.kernel
def read_a_barrier(x, out):
    for i in range(out.shape[0]):
        bar = tack.mbarriers(2)
        out[i] = bar[1]


@tack.kernel
def count_zero(x, out):
    for i in range(out.shape[0]):
        bar = tack.mbarriers(2)
        tack.mbarrier_init(bar[0], 0)
        out[i] = x[i]


@tack.kernel
def not_a_barrier(x, out):
    for i in range(out.shape[0]):
        tack.mbarrier_arrive(x)
        out[i] = x[i]


@tack.kernel
def runtime_count(x, out, n):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tack.async_bulk_copy(buf, 0, x, i, n, bar[0])
        out[i] = buf[0]


@tack.kernel
def wait_as_value(x, out):
    for i in range(out.shape[0]):
        bar = tack.mbarriers(1)
        out[i] = tack.mbarrier_wait(bar[0], 0)


REFUSED = [
    (wrong_size, tack.TackValueError, "moves 24 bytes", 4),
    (on_data, tack.TackTypeError, "not of barriers", 3),
    (read_a_barrier, tack.TackTypeError, "holds transaction barriers", 3),
    (count_zero, tack.TackValueError, r"expected arrival count 0", 3),
    (not_a_barrier, tack.UnsupportedSyntaxError, "not one barrier", 2),
    (runtime_count, tack.UnsupportedSyntaxError, "compile-time integer", 4),
    (wait_as_value, tack.UnsupportedSyntaxError, "used as a value", 3),
]


@pytest.mark.parametrize("kernel, cls, words, line", REFUSED, ids=[r[0].name for r in REFUSED])
def test_misuse_is_refused_before_anything_runs_with_its_position(kernel, cls, words, line):
    x = tack.array(np.arange(256, dtype=np.float32))
    out = tack.zeros(256)
    args = (x, out, 4) if kernel is runtime_count else (x, out)
    with pytest.raises(cls, match=words) as info:
        kernel(*args)
    first = kernel.fn.__code__.co_firstlineno  # the decorator's line; `line` counts from `def`
    assert info.value.loc.line == first + 1 + line
    np.testing.assert_array_equal(out.numpy(), 0.0)


@tack.kernel
def misaligned(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], 1024)
            tack.async_bulk_copy(buf, 0, x, i + 1, 256, bar[0])
        tack.mbarrier_wait(bar[0], 0)
        out[i] = buf[tid]


def test_a_misaligned_bulk_copy_is_refused_when_it_runs():
    x = tack.array(np.arange(600, dtype=np.float32))
    with pytest.raises(tack.TackValueError, match="16-byte aligned"):
        misaligned(x, tack.zeros(256))


def test_the_cpu_engine_refuses_them_before_launch():
    x = tack.array(np.arange(256, dtype=np.float32), device="cpu")
    out = tack.zeros(256, device="cpu")
    with tack.device("cpu"), pytest.raises(RuntimeError, match="async_bulk_copy") as info:
        M.copy_tile(x, out)
    assert "workgroup" in str(info.value)
    np.testing.assert_array_equal(out.numpy(), 0.0)


@pytest.mark.parametrize("arch", ["cpu", "cuda"])
def test_the_julia_engine_refuses_them_before_compiling(arch):
    """KernelAbstractions has no transaction barriers (docs/julia.md): refused with the
    position of the first, from the capabilities alone (no Julia needed)."""
    from tack import capabilities
    from tack.compiler import typecheck
    from tack.runtime.registry import JULIA

    class JuliaDevice:  # what capabilities.check reads of a device
        capabilities = JULIA.capabilities[arch]
        engine_name, arch_name = "julia", arch

    x, out = tack.zeros(256), tack.zeros(256)
    kernel = M.copy_tile
    pk = kernel.parse_for((x, out))
    from tack.call import signature

    specs = signature.specs(kernel.name, pk.params, signature.expand(pk.paths, (x, out)))
    with pytest.raises(CapabilityError, match="mbarrier_init is a transaction barrier") as info:
        capabilities.check(typecheck(kernel, pk, specs), JuliaDevice())
    assert info.value.loc.line > 0


def _assemble(ptx: str, arch: str, tmp_path) -> None:
    if PTXAS is None:
        pytest.skip("ptxas is not installed")
    src = tmp_path / f"k_{arch}.ptx"
    src.write_text(ptx)
    r = subprocess.run([PTXAS, f"-arch={arch}", str(src), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr


def test_the_bulk_matmul_assembles_for_sm_90(tmp_path):
    ir = specialize(M.matmul_bulk, list(A.matmul_args(device="cpu")), library_math=False)
    ptx = compile_ptx(ir, "sm_90").ptx
    assert ".version 8.0" in ptx and ".target sm_90" in ptx
    assert "mbarrier.init.shared.b64" in ptx and "mbarrier.arrive.expect_tx" in ptx
    assert "mbarrier.try_wait.parity" in ptx and "mbarrier.arrive.shared.b64" in ptx
    at = ptx.index("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes")
    assert ptx.rfind("fence.proxy.async.shared::cta;", 0, at) > 0
    _assemble(ptx, "sm_90", tmp_path)


def test_barriers_without_bulk_copies_assemble_for_sm_80(tmp_path):
    ir = specialize(M.handoff, [tack.zeros(4, device="cpu"), tack.zeros(256, device="cpu")],
                    library_math=False)
    ptx = compile_ptx(ir, "sm_80").ptx
    assert "mbarrier.test_wait.parity.shared.b64" in ptx and "fence.proxy" not in ptx
    _assemble(ptx, "sm_80", tmp_path)


def test_an_older_device_is_refused_before_rendering():
    ir = specialize(M.matmul_bulk, list(A.matmul_args(device="cpu")), library_math=False)
    with pytest.raises(CapabilityError, match=r"compute capability 9\.0 .* sm_80") as info:
        compile_ptx(ir, "sm_80")
    assert info.value.loc is not None
    ir = specialize(M.handoff, [tack.zeros(4, device="cpu"), tack.zeros(256, device="cpu")],
                    library_math=False)
    with pytest.raises(CapabilityError, match="sm_75"):
        compile_ptx(ir, "sm_75")


@tack.kernel
def copy_past_the_end(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], 1024)
            tack.async_bulk_copy(buf, 0, x, i + 16, 256, bar[0])  # 16 past the end on the last
        tack.mbarrier_wait(bar[0], 0)
        out[i] = buf[tid]


@tack.kernel
def barrier_from_argument(x, out, k):
    for i in range(out.shape[0]):
        bars = tack.mbarriers(2)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bars[k], 1)
        tack.barrier()
        out[i] = x[i]


def test_debug_mode_checks_the_barrier_index_and_both_ends_of_a_bulk_copy():
    x, out = tack.array(np.zeros(512, np.float32)), tack.zeros(512)
    lines = kernel_str(specialize(M.copy_tile, [x, out], debug=True)).splitlines()
    at = next(k for k, line in enumerate(lines) if "async_bulk_copy(" in line)
    guard = lines[at - 1]  # the copy runs only when its first and last source element exist
    assert guard.lstrip().startswith("if ") and guard.count("< 512:i64") == 2  # both ends
    assert "(i:i64 + 255:i64)" in "\n".join(lines[:at])
    text = kernel_str(specialize(barrier_from_argument, [x, out, 1], debug=True))
    assert "if ((i64(%k:i32) >= 0:i64):bool & (i64(%k:i32) < 2:i64):bool):bool:" in text


def test_a_barrier_index_or_bulk_copy_outside_its_array_is_reported_and_skipped():
    x = tack.array(np.arange(512, dtype=np.float32))
    with pytest.raises(tack.TackIndexError, match="outside"):
        copy_past_the_end(x, tack.zeros(512))
    with pytest.raises(tack.TackIndexError, match="outside"):
        barrier_from_argument(x, tack.zeros(512), 2)


def test_the_ir_names_the_barriers_and_each_operand():
    x, out = tack.array(np.zeros(512, np.float32)), tack.zeros(512)
    text = tack.inspect(M.copy_tile, x, out, mode="ir", engine="sim")
    assert "mbarriers bar[1]" in text and "mbarrier_init(bar[0:i64], 1:i32)" in text
    assert "mbarrier_arrive_tx(bar[0:i64], 1024:i32)" in text
    assert "async_bulk_copy(buf[0:i64] <- x[" in text and ", 256, bar[0:i64])" in text
    assert "mbarrier_wait(bar[0:i64], 0:i32)" in text
