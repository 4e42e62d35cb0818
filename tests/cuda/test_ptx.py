"""The PTX renderer without a GPU: structure of the PTX for every corpus kernel, libdevice linking,
workgroup primitives, and (when `ptxas` is installed) that ptxas accepts it for sm_90."""
from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.toolchain.nvptx import compile_ptx, find_libdevice

from tests.cuda.ptxas import PTXAS
from tests.kernels.corpus import CASES

LIBDEVICE = find_libdevice()


@pytest.fixture(autouse=True)
def cpu():
    tack.set_default_device("cpu")
    yield


def _kir(case, n=7):
    host = case.make(np.random.default_rng(0), n)
    args = [tack.array(a) if isinstance(a, np.ndarray) else a for a in host]
    return specialize(case.kernel, args, library_math=False)  # as the CUDA engine: libdevice


def _compile(kir):
    try:
        return compile_ptx(kir, "sm_90")
    except tack.RenderError as exc:
        if "libdevice" in str(exc) and LIBDEVICE is None:
            pytest.skip("libdevice not found (pip install nvidia-nvvm, or set CUDA_HOME)")
        raise


def _assemble(ptx: str, tmp_path) -> None:
    if PTXAS is None:
        return
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    r = subprocess.run([PTXAS, "-arch=sm_90", str(src), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_corpus_ptx_structure(case, tmp_path):
    kir = _kir(case)
    m = _compile(kir)
    ptx = m.ptx
    entry = f"tack_{kir.name}"
    assert re.search(rf"\.visible \.entry {entry}\(", ptx)
    assert ".target sm_90" in ptx and ".address_size 64" in ptx
    # n is the last parameter, 64-bit; the index is formed in 64 bits and compared in 64 bits.
    nparam = len(kir.params)
    assert re.search(rf"\.param \.(u|b|s)64 {entry}_param_{nparam}\s*\n?\)", ptx)
    assert "%ctaid.x" in ptx and "%ntid.x" in ptx and "%tid.x" in ptx
    assert re.search(r"mul\.wide\.u32\s+%rd\d+", ptx) or re.search(r"mul\.lo\.s64", ptx)
    assert not re.search(r"mad\.lo\.s32[^\n]*\n?", ptx.split("%ctaid.x")[1].split("setp")[0])
    assert re.search(r"setp\.(ge|lt)\.s64", ptx)
    # No fast-math: arithmetic keeps subnormals, divisions and square roots are IEEE. (libdevice's
    # own algorithms use `ex2.approx.ftz` / `rcp.approx.ftz` steps inside; that is its accuracy.)
    if not m.libdevice:
        assert ".ftz" not in ptx and ".approx" not in ptx
    uses_f64 = any(p.dtype is tack.f64 for p in kir.params)
    if not uses_f64 and not m.libdevice:
        assert ".f64" not in ptx, "an f32 kernel computes in f64"
    assert "__nvvm_reflect" not in ptx and "__nv_" not in ptx  # all resolved and inlined
    _assemble(ptx, tmp_path)


def test_sqrt_and_division_are_ieee():
    from tests.kernels.corpus import transform

    x = tack.zeros(8)
    ptx = compile_ptx(specialize(transform, [x, tack.zeros(8)])).ptx
    assert "sqrt.rn.f32" in ptx and "abs.f32" in ptx

    @tack.kernel
    def divide(a, b, out):
        for i in range(a.shape[0]):
            out[i] = a[i] / b[i]

    ptx = compile_ptx(specialize(divide, [x, x, tack.zeros(8)])).ptx
    assert "div.rn.f32" in ptx


def test_libdevice_linked_only_when_needed():
    from tests.kernels.corpus import math_builtins, saxpy

    x = tack.zeros(8)
    assert not compile_ptx(specialize(saxpy, [2.0, x, x, tack.zeros(8)])).libdevice
    if LIBDEVICE is None:
        pytest.skip("libdevice not found")
    m = compile_ptx(specialize(math_builtins, [x, tack.zeros(8)]))
    assert m.libdevice
    assert len(m.ptx) < 64_000  # only what the kernel calls survives, not all of libdevice
    assert ".visible .func" not in m.ptx  # everything but the entry became internal
    assert m.ptx.count(".entry") == 1


def test_bool_params_travel_as_a_byte():
    from tack.ir.nodes import Expr, KernelIR, Loc, Param, Store
    from tack.ir.ops import Op
    from tack.render.llvm.ptx import PTXRenderer

    loc = Loc("k.py", 1, 1, 1, 2)
    t = Expr(Op.LAUNCH, tack.i64, (), None, loc)
    flag = Expr(Op.PARAM, tack.dtypes.bool_, (), "flag", loc)
    val = Expr(Op.CAST, tack.i32, (flag,), None, loc)
    kir = KernelIR("k", [Param("out", "array", tack.i32, 1, (None,), True),
                         Param("flag", "scalar", tack.dtypes.bool_)],
                   [Store(loc, "out", (t,), val)], {}, loc)
    text = PTXRenderer().render(kir)
    assert re.search(r"define ptx_kernel void @\"?tack_k\"?\((ptr|i32)( addrspace\(1\))?\*? %\"?out\"?, "
                     r"i8 %\"?flag\"?, i64 %\"?n\"?\)", text), text


# ---- workgroup primitives and atomics ---------------------------------------------------------
@tack.kernel
def block_reduce(data, partial_sums, n):
    for i in range(n):
        smem = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        smem[tid] = data[i]
        tack.barrier()
        stride = 128
        while stride > 0:
            if tid < stride:
                smem[tid] = smem[tid] + smem[tid + stride]
            tack.barrier()
            stride = stride // 2
        if tid == 0:
            tack.atomic_add(partial_sums, i // 256, smem[0])


@tack.kernel
def extremes(x, lo, hi):
    for i in range(x.shape[0]):
        tack.atomic_min(lo, 0, x[i])
        tack.atomic_max(hi, 0, x[i])


def test_elementwise_kernels_use_16_byte_accesses(tmp_path):
    from tests.kernels.corpus import saxpy, stencil5

    x = tack.zeros(8)
    m = compile_ptx(specialize(saxpy, [2.0, x, x, tack.zeros(8)]))
    assert m.per_thread == 4
    assert re.search(r"ld\.global\.v4\.(b|f)32", m.ptx) and re.search(r"st\.global\.v4", m.ptx)
    assert re.search(r"\.param \.u64 \.ptr \.global", m.ptx)  # arrays are global pointers
    _assemble(m.ptx, tmp_path)
    u = tack.zeros((6, 7))
    assert compile_ptx(specialize(stencil5, [u, tack.zeros((6, 7))])).per_thread == 1
    assert compile_ptx(specialize(block_reduce, [tack.zeros(256), x, 256])).per_thread == 1


def test_workgroup_ptx(tmp_path):
    ptx = compile_ptx(specialize(block_reduce, [tack.zeros(512), tack.zeros(2), 512])).ptx
    assert "bar.sync 	0" in ptx or re.search(r"bar(rier)?\.sync(\.aligned)?\s+0", ptx)
    assert re.search(r"\.shared \.align \d+ \.b8 \S+\[1024\]", ptx)
    assert "st.shared" in ptx and "ld.shared" in ptx
    assert "atom.global.add.f32" in ptx
    _assemble(ptx, tmp_path)


@pytest.mark.parametrize("dtype", [tack.i32, tack.u32, tack.i64, tack.u64, tack.f32, tack.f64])
def test_atomic_min_max_ptx(dtype, tmp_path):
    a = tack.zeros(4, dtype)
    ptx = compile_ptx(specialize(extremes, [a, tack.zeros(1, dtype), tack.zeros(1, dtype)])).ptx
    if dtype.is_float:  # no native float min/max atomics: a compare-and-swap loop
        assert re.search(r"atom(\.\w+)*\.cas\.b(32|64)", ptx)
    else:
        assert re.search(r"atom\.global\.min\.[su]\d\d", ptx)
        assert re.search(r"atom\.global\.max\.[su]\d\d", ptx)
    _assemble(ptx, tmp_path)


@tack.kernel
def shout(x, n):
    for i in range(n):
        print("i =", i, "x =", x[i], "100%")


def test_print_is_vprintf(tmp_path):
    ptx = compile_ptx(specialize(shout, [tack.zeros(4), 4])).ptx
    assert "vprintf" in ptx and "printf(" not in ptx.replace("vprintf(", "")
    _assemble(ptx, tmp_path)
