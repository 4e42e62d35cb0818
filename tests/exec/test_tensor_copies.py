"""Tensor copies (`tack.async_tensor_copy`, docs/language.md "Transaction barriers"): a box of a
2-D array lands in shared memory where its layout puts each element (the 128-byte swizzle as the
PTX ISA describes it, or row-major), zeros where the box lies outside the array, only when a wait
needs its phase; its bytes complete the barrier's transaction. Checked on the simulator and on
CUDA (skipped without a GPU) against NumPy; what the language refuses is refused before
anything runs, with its position; the CPU and Julia engines refuse them before launch; the PTX
assembles for sm_90 with the map as a by-value parameter, and an older device is refused before
rendering; the CUDA engine's map encoder gets the array's extents, stride and box, and refuses a
misaligned address before the launch."""
import ctypes
import subprocess

import ml_dtypes
import numpy as np
import pytest
import tack
from tack.compiler import specialize, typecheck
from tack.errors import CapabilityError
from tack.ir.printer import kernel_str
from tack.toolchain.nvptx import compile_ptx

from tests.cuda.ptxas import PTXAS

SENTINEL = tack.constant(3)  # what the tile holds before the copy lands


def box_kernel(rows: int, cols: int, layout: str, itemsize: int):
    """One workgroup per box: box g at row at[g, 0] and column at[g, 1] * Q of x (Q elements
    are 16 bytes: a box's first column is a multiple of them) into a tile filled with
    SENTINEL; `before` gets the tile as read before the wait, `out` after it. (One kernel per
    layout: the layout is a literal, and a box is checked against it where it is written.)"""
    Q = tack.constant(16 // itemsize)
    NB = tack.constant(rows * cols)
    R, C = tack.constant(rows), tack.constant(cols)
    NBYTES = tack.constant(rows * cols * itemsize)

    @tack.func
    def fill(tile, tid):
        for q in range((NB + 255) // 256):
            tile[q * 256 + tid] = SENTINEL

    @tack.func
    def read(tile, dst, g, tid):
        for q in range((NB + 255) // 256):
            if q * 256 + tid < NB:
                dst[g * NB + q * 256 + tid] = tile[q * 256 + tid]

    @tack.kernel
    def swizzled(x, at, out, before):
        for t in range(at.shape[0] * 256):
            g = t // 256
            tid = tack.thread_id()
            tile = tack.shared_like(x, 256 * ((NB + 255) // 256))
            bar = tack.mbarriers(1)
            fill(tile, tid)
            if tid == 0:
                tack.mbarrier_init(bar[0], 1)
            tack.barrier()
            if tid == 0:
                tack.mbarrier_arrive_tx(bar[0], NBYTES)
                tack.async_tensor_copy(tile, 0, x, (at[g, 0], at[g, 1] * Q), (R, C), bar[0],
                                       "swizzle128")
            read(tile, before, g, tid)
            tack.mbarrier_wait(bar[0], 0)
            read(tile, out, g, tid)

    @tack.kernel
    def row_major(x, at, out, before):
        for t in range(at.shape[0] * 256):
            g = t // 256
            tid = tack.thread_id()
            tile = tack.shared_like(x, 256 * ((NB + 255) // 256))
            bar = tack.mbarriers(1)
            fill(tile, tid)
            if tid == 0:
                tack.mbarrier_init(bar[0], 1)
            tack.barrier()
            if tid == 0:
                tack.mbarrier_arrive_tx(bar[0], NBYTES)
                tack.async_tensor_copy(tile, 0, x, (at[g, 0], at[g, 1] * Q), (R, C), bar[0],
                                       "none")
            read(tile, before, g, tid)
            tack.mbarrier_wait(bar[0], 0)
            read(tile, out, g, tid)

    return swizzled if layout == "swizzle128" else row_major


def swizzled_position(r, c, itemsize):
    """Where element (r, c) of a box of 128-byte rows lands with the 128-byte swizzle: row r at
    128 r bytes, its 16-byte chunk k at chunk k ^ (r % 8) (the PTX ISA's "128B swizzle",
    https://docs.nvidia.com/cuda/parallel-thread-execution/
    #asynchronous-warpgroup-level-matrix-shared-memory-layout-swizzling-modes)."""
    per, chunk = 128 // itemsize, 16 // itemsize
    return r * per + ((c // chunk) ^ (r % 8)) * chunk + c % chunk


def expected(x: np.ndarray, at, rows, cols, layout):
    """The tiles NumPy says land, one per box, flat."""
    out = np.zeros((len(at), rows * cols), x.dtype)
    for g, (r0, c0) in enumerate(at):
        for r in range(rows):
            for c in range(cols):
                y, z = r0 + r, c0 + c
                v = x[y, z] if 0 <= y < x.shape[0] and 0 <= z < x.shape[1] else 0
                k = swizzled_position(r, c, x.itemsize) if layout == "swizzle128" else \
                    r * cols + c
                out[g, k] = v
    return out.ravel()


# (dtype, array shape, box, layout): rows of 128 bytes for the swizzle, any multiple of 16 bytes
# without; arrays with awkward extents whose rows are multiples of 16 bytes
CASES = [
    (np.float32, (10, 36), (8, 32), "swizzle128"),
    (np.float16, (21, 72), (16, 64), "swizzle128"),
    (ml_dtypes.bfloat16, (7, 64), (3, 64), "swizzle128"),
    (np.int32, (13, 4), (5, 8), "none"),
    (np.uint8, (5, 48), (2, 16), "none"),
]
# (row, column in units of 16 bytes): inside, partly past each edge, partly before each, wholly
# outside (float32: columns 0, -4, 20, 32, 0, -72 of 36)
AT = [(0, 0), (5, -1), (-4, 5), (3, 8), (100, 0), (-9, -18)]


def in_elements(at, itemsize):
    return [(r, c * (16 // itemsize)) for r, c in at]
DT = {np.float32: tack.f32, np.float16: tack.f16, ml_dtypes.bfloat16: tack.bf16,
      np.int32: tack.i32, np.uint8: tack.u8}


@pytest.mark.engines("sim", "cuda",
                     reason="the GPU engines; the CPU's and Julia's refusal is tested below")
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0].__name__}-{c[3]}" for c in CASES])
def test_a_box_lands_where_its_layout_puts_it_zeros_outside(engine, case):
    np_dtype, shape, (rows, cols), layout = case
    rng = np.random.default_rng(7)
    host = (rng.integers(1, 100, size=shape)).astype(np_dtype)
    kern = box_kernel(rows, cols, layout, np.dtype(np_dtype).itemsize)
    x = tack.array(host)
    at = tack.array(np.array(AT, np.int32))
    out = tack.zeros(len(AT) * rows * cols, DT[np_dtype])
    before = tack.zeros(len(AT) * rows * cols, DT[np_dtype])
    kern(x, at, out, before)
    want = expected(host, in_elements(AT, host.itemsize), rows, cols, layout)
    np.testing.assert_array_equal(out.numpy().view(np.uint8), want.view(np.uint8))
    if engine.engine_name == "sim":  # not waited for: the old contents (a GPU may differ)
        np.testing.assert_array_equal(before.numpy(), np.full(want.shape, SENTINEL, np_dtype))


def test_the_placement_is_the_one_the_warpgroup_mma_reads():
    """ir/tma.py's placement with the swizzle is `tack.wgmma_index`'s, for every element of a
    box of each element size (the matmul tests run a wgmma on such tiles)."""
    from tack.ir import tma, wgmma

    for item in (1, 2, 4, 8):
        r, c = np.divmod(np.arange(64 * (128 // item)), 128 // item)
        got = tma.place("swizzle128", item, 128 // item, r, c)
        np.testing.assert_array_equal(got, wgmma.index("swizzle128", item, r, c))
        np.testing.assert_array_equal(got, swizzled_position(r, c, item))


def test_tack_check_finds_the_copy_clean():
    kern = box_kernel(8, 32, "swizzle128", 4)
    x = tack.array(np.arange(360, dtype=np.float32).reshape(10, 36))
    at = tack.array(np.array([(5, -1), (0, 0)], np.int32))
    out, before = tack.zeros(512), tack.zeros(512)
    with tack.device("sim"):
        report = tack.check(kern, x, at, out, before)
    # `before` reads the tile while the copy is in flight: reported, as for a bulk copy
    assert [f.kind for f in report.findings] and all(
        {w["problem"] for w in f.witnesses} == {"unwaited"} for f in report.findings), \
        report.text()
    np.testing.assert_array_equal(report.outputs["out"],
                                  expected(x.numpy(), [(5, -4), (0, 0)], 8, 32, "swizzle128"))


@tack.kernel
def one_box(x, out):
    for i in range(256):
        tile = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], 1024)
            tack.async_tensor_copy(tile, 0, x, (1, 0), (8, 32), bar[0], "swizzle128")
        tack.mbarrier_wait(bar[0], 0)
        out[i] = tile[tid]


def _args(rows=10, cols=32, device=None):
    x = tack.array(np.arange(rows * cols, dtype=np.float32).reshape(rows, cols), device=device)
    return x, tack.zeros(256, device=device)


def test_the_ir_names_the_box_and_its_layout():
    text = kernel_str(specialize(one_box, list(_args(device="cpu"))))
    assert "async_tensor_copy(tile[0:i64] <- x[1:i64, 0:i64; 8x32], swizzle128, bar[0:i64])" \
        in text


@tack.kernel
def box_too_tall(x, out):
    for i in range(256):
        tile = tack.shared(tack.f32, 512 * 32)
        bar = tack.mbarriers(1)
        tack.async_tensor_copy(tile, 0, x, (0, 0), (512, 32), bar[0], "swizzle128")
        out[i] = tile[0]


@tack.kernel
def short_swizzled_rows(x, out):
    for i in range(256):
        tile = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tack.async_tensor_copy(tile, 0, x, (0, 0), (16, 16), bar[0], "swizzle128")
        out[i] = tile[0]


@tack.kernel
def odd_row_bytes(x, out):
    for i in range(256):
        tile = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tack.async_tensor_copy(tile, 0, x, (0, 0), (8, 6), bar[0], "none")
        out[i] = tile[0]


@tack.kernel
def unknown_layout(x, out):
    for i in range(256):
        tile = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tack.async_tensor_copy(tile, 0, x, (0, 0), (8, 32), bar[0], "interleave")
        out[i] = tile[0]


@tack.kernel
def runtime_box(x, out, n):
    for i in range(256):
        tile = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tack.async_tensor_copy(tile, 0, x, (0, 0), (n, 32), bar[0], "swizzle128")
        out[i] = tile[0]


@tack.kernel
def layout_from_a_name(x, out, n):
    for i in range(256):
        tile = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tack.async_tensor_copy(tile, 0, x, (0, 0), (8, 32), bar[0], n)
        out[i] = tile[0]


@tack.kernel
def one_coordinate(x, out):
    for i in range(256):
        tile = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tack.async_tensor_copy(tile, 0, x, i, (8, 32), bar[0], "swizzle128")
        out[i] = tile[0]


@tack.kernel
def other_dtype(x, out):
    for i in range(256):
        tile = tack.shared(tack.f16, 512)
        bar = tack.mbarriers(1)
        tack.async_tensor_copy(tile, 0, x, (0, 0), (8, 32), bar[0], "swizzle128")
        out[i] = tile[0]


@tack.kernel
def column_from_memory(x, out):
    for i in range(256):
        tile = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        c = tack.i64(out[0])
        tack.async_tensor_copy(tile, 0, x, (0, c), (8, 32), bar[0], "swizzle128")
        out[i] = tile[0]


@tack.kernel
def column_off_the_boundary(x, out):
    for i in range(256):
        tile = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        c = 0
        for k in range(3):
            c += 2  # 2, 4, 6: not always a multiple of 4 float32 elements
        tack.async_tensor_copy(tile, 0, x, (0, c), (8, 32), bar[0], "swizzle128")
        out[i] = tile[0]


@tack.kernel
def into_local(x, out):
    for i in range(256):
        tile = tack.local_array(tack.f32, 256)
        bar = tack.mbarriers(1)
        tack.async_tensor_copy(tile, 0, x, (0, 0), (8, 32), bar[0], "swizzle128")
        out[i] = tile[0]


REFUSED = [  # (kernel, x's shape, error, words, line from `def`)
    (box_too_tall, (10, 32), tack.TackValueError, r"512 × 32 elements: each extent is 1 to 256",
     4),
    (short_swizzled_rows, (10, 32), tack.TackValueError, r"rows are 128 bytes \(32 elements\)",
     4),
    (odd_row_bytes, (10, 32), tack.TackValueError, r"6 elements \(24 bytes\).*multiple of 16",
     4),
    (unknown_layout, (10, 32), tack.TackValueError, "'interleave' is none of", 4),
    (one_box, (10, 33), tack.TackValueError, r"rows of 33 elements \(132 bytes\)", 10),
    (one_box, (320,), tack.TackValueError, "1-dimensional array", 10),
    (runtime_box, (10, 32), tack.UnsupportedSyntaxError, "compile-time integer", 4),
    (layout_from_a_name, (10, 32), tack.UnsupportedSyntaxError, "string literal", 4),
    (one_coordinate, (10, 32), tack.UnsupportedSyntaxError, r"not a pair \(row, col\)", 4),
    (other_dtype, (10, 32), tack.TackTypeError, "both arrays hold one dtype", 4),
    (into_local, (10, 32), tack.UnsupportedSyntaxError, "not a shared array", 4),
    (column_from_memory, (10, 32), tack.TackValueError,
     r"from a column not known to be a multiple of 4 elements \(16 bytes of f32\)", 5),
    (column_off_the_boundary, (10, 32), tack.TackValueError, "multiple of 4 elements", 7),
]


@tack.kernel
def columns_proved(x, out, c):
    for i in range(256):
        tile = tack.shared(tack.f32, 1024)
        bar = tack.mbarriers(1)
        k = (c // 4) * 4
        for s in range(2):
            tack.async_tensor_copy(tile, s * 256, x, (s, k + s * 8), (8, 32), bar[0], "none")
        out[i] = tile[0]


def test_columns_the_typechecker_proves_a_multiple_of_16_bytes_pass():
    x, out = tack.array(np.zeros((10, 32), np.float32), device="sim"), tack.zeros(256, device="sim")
    kir = specialize(columns_proved, [x, out, 5])
    assert "async_tensor_copy" in kernel_str(kir)


@pytest.mark.parametrize("kernel, shape, cls, words, line", REFUSED,
                         ids=[f"{r[0].name}-{len(r[1])}d{r[1][-1]}" for r in REFUSED])
def test_misuse_is_refused_before_anything_runs_with_its_position(kernel, shape, cls, words,
                                                                  line):
    x = tack.array(np.zeros(shape, np.float32), device="sim")
    out = tack.zeros(256, device="sim")
    args = (x, out, 4) if kernel.fn.__code__.co_argcount == 3 else (x, out)
    with tack.device("sim"), pytest.raises(cls, match=words) as info:
        kernel(*args)
    first = kernel.fn.__code__.co_firstlineno  # the decorator's line; `line` counts from `def`
    assert info.value.loc.line == first + 1 + line
    np.testing.assert_array_equal(out.numpy(), 0.0)


@tack.kernel
def off_the_atom(x, out):
    for i in range(256):
        tile = tack.shared(tack.f32, 512)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], 1024)
            tack.async_tensor_copy(tile, 32, x, (0, 0), (8, 32), bar[0], "swizzle128")
        tack.mbarrier_wait(bar[0], 0)
        out[i] = tile[tid]


@tack.kernel
def past_the_tile(x, out):
    for i in range(256):
        tile = tack.shared(tack.f32, 512)
        bar = tack.mbarriers(1)
        if tack.thread_id() == 0:
            tack.async_tensor_copy(tile, 512, x, (0, 0), (8, 32), bar[0], "swizzle128")
        out[i] = tile[0]


def test_a_destination_off_its_alignment_is_refused_when_it_runs():
    with tack.device("sim"), pytest.raises(tack.TackValueError, match="1024-byte aligned"):
        off_the_atom(*_args())


def test_debug_mode_checks_the_shared_end_of_the_box_not_the_source():
    """A box past its tile is reported and skipped (here known when compiling: the copy is
    gone); a box partly outside its array is no error."""
    x, out = _args(device="cpu")
    text = kernel_str(specialize(past_the_tile, [x, out], debug=True))
    assert "async_tensor_copy(" not in text and "atomic_add(.dbg[0:i64], 1:i64)" in text
    tack.set_debug(True)
    with tack.device("sim"), pytest.raises(tack.TackIndexError, match="outside"):
        past_the_tile(*_args())
    kern = box_kernel(8, 32, "swizzle128", 4)
    host = np.arange(360, dtype=np.float32).reshape(10, 36)
    out, before = tack.zeros(512, device="sim"), tack.zeros(512, device="sim")
    with tack.device("sim"):
        kern(tack.array(host), tack.array(np.array([(5, -1), (-7, 8)], np.int32)), out, before)
    np.testing.assert_array_equal(out.numpy(),
                                  expected(host, [(5, -4), (-7, 32)], 8, 32, "swizzle128"))


def test_the_cpu_engine_refuses_them_before_launch():
    x, out = _args(device="cpu")
    with tack.device("cpu"), pytest.raises(RuntimeError, match="workgroup"):
        one_box(x, out)
    np.testing.assert_array_equal(out.numpy(), 0.0)


@pytest.mark.parametrize("arch", ["cpu", "cuda"])
def test_the_julia_engine_refuses_them_before_compiling(arch):
    """KernelAbstractions has no transaction barriers (docs/julia.md): refused with the
    position of the first, from the capabilities alone (no Julia needed)."""
    from tack import capabilities
    from tack.call import signature
    from tack.runtime.registry import JULIA

    class JuliaDevice:  # what capabilities.check reads of a device
        capabilities = JULIA.capabilities[arch]
        engine_name, arch_name = "julia", arch

    x, out = _args(device="cpu")
    pk = one_box.parse_for((x, out))
    specs = signature.specs(one_box.name, pk.params, signature.expand(pk.paths, (x, out)))
    with pytest.raises(CapabilityError, match="is a transaction barrier operation") as info:
        capabilities.check(typecheck(one_box, pk, specs), JuliaDevice())
    assert info.value.loc.line > 0


def test_the_ptx_passes_the_map_by_value_and_assembles_for_sm_90(tmp_path):
    ir = specialize(one_box, list(_args(device="cpu")), library_math=False)
    ptx = compile_ptx(ir, "sm_90").ptx
    param = f"tack_{one_box.name}_param_2"  # after x and out
    assert f".param .align 64 .b8 {param}[128]" in ptx
    assert f"mov.b64 tk_map, {param}; cvta.param.u64 tk_map, tk_map;" in ptx
    at = ptx.index("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes")
    assert ptx.rfind("fence.proxy.async.shared::cta;", 0, at) > 0
    assert ".shared .align 1024" in ptx  # the swizzle's atom
    if PTXAS is None:
        pytest.skip("ptxas is not installed")
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    r = subprocess.run([PTXAS, "-arch=sm_90", str(src), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr


@tack.kernel
def copy_first(x, out):
    for i in range(256):
        tile = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tack.async_tensor_copy(tile, 0, x, (0, 0), (8, 32), bar[0], "swizzle128")
        out[i] = tile[0]


def test_an_older_device_is_refused_before_rendering():
    ir = specialize(copy_first, list(_args(device="cpu")), library_math=False)
    with pytest.raises(CapabilityError, match=r"compute capability 9\.0 .* sm_80") as info:
        compile_ptx(ir, "sm_80")
    assert "cp-async-bulk-tensor" in str(info.value) and "async_tensor_copy" in str(info.value)


class _Driver:
    """libcuda's cuTensorMapEncodeTiled as ctypes would call it: records its arguments and
    writes a map whose bytes say which call made it."""

    def __init__(self):
        self.calls = calls = []

        def encode(out, dtype, rank, ptr, dims, strides, box, steps, *modes):
            calls.append((dtype, rank, ptr, list(dims[:2]), strides[0], list(box[:2]),
                          list(steps[:2]), modes))
            ctypes.memset(out, len(calls), 128)
            return 0

        self.cuTensorMapEncodeTiled = encode  # a function: ctypes' argtypes are set on it


def test_the_engine_encodes_each_map_once_per_address_and_refuses_a_misaligned_one():
    from tack.runtime.cuda.tensormaps import TensorMaps

    class Engine:
        pass

    ir = specialize(one_box, list(_args(rows=21, cols=36, device="cpu")), library_math=False)
    lib = _Driver()
    maps = TensorMaps(Engine(), ir, lib)
    assert len(maps.addresses) == 1 and maps.addresses[0] % 64 == 0
    maps.fill([0x10000, 0x20000])
    maps.fill([0x10000, 0x30000])  # the same array: cached
    maps.fill([0x40000, 0x30000])
    assert len(lib.calls) == 2
    # FLOAT32, rank 2, (columns, rows), the row stride in bytes, the box (columns, rows), the
    # 128-byte swizzle, L2 promotion 128 bytes, zeros outside
    assert lib.calls[0] == (7, 2, 0x10000, [36, 21], 144, [32, 8], [1, 1], (0, 3, 2, 0))
    assert ctypes.string_at(maps.addresses[0], 128) == bytes([2]) * 128
    with pytest.raises(tack.TackValueError, match="not a multiple of 16 bytes"):
        maps.fill([0x40008, 0x30000])
