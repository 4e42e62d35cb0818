# ruff: noqa: F821  (rsqrt is a kernel builtin, unbound in Python)
"""What the renderers make of `tack.unroll`: LLVM loop metadata that LLVM honours (CPU O3 and the
NVPTX pipeline), and KernelAbstractions' `@unroll` in the Julia text."""
from __future__ import annotations

import re

import llvmlite.binding as llvm
import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.render.julia.ka import render_julia
from tack.render.llvm.printer import render
from tack.toolchain.llvm_host import host_target_machine, optimize, target_fuses


@pytest.fixture(autouse=True)
def cpu():
    tack.set_default_device("cpu")
    yield


# The same recurrence under different hints: LLVM may not reassociate it (no fast-math), so
# each unrolled copy of the body keeps its own fmul.
@tack.kernel
def horner8(x, c, out, n):
    for i in range(out.shape[0]):
        acc = 0.0
        for j in tack.unroll(range(n), 8):
            acc = acc * x[i] + c[j]
        out[i] = acc


@tack.kernel
def horner3(x, c, out, n):
    for i in range(out.shape[0]):
        acc = 0.0
        for j in tack.unroll(range(n), 3):
            acc = acc * x[i] + c[j]
        out[i] = acc


@tack.kernel
def horner1(x, c, out, n):
    for i in range(out.shape[0]):
        acc = 0.0
        for j in tack.unroll(range(n), 1):
            acc = acc * x[i] + c[j]
        out[i] = acc


@tack.kernel
def horner_full(x, c, out, n):
    for i in range(out.shape[0]):
        acc = 0.0
        for j in tack.unroll(range(n)):
            acc = acc * x[i] + c[j]
        out[i] = acc


@tack.kernel
def horner_plain(x, c, out, n):
    for i in range(out.shape[0]):
        acc = 0.0
        for j in range(n):
            acc = acc * x[i] + c[j]
        out[i] = acc


@tack.kernel
def horner_full100(x, c, out, n):
    for i in range(out.shape[0]):
        acc = 0.0
        for j in tack.unroll(range(100)):
            acc = acc * x[i] + c[j]
        out[i] = acc


@tack.kernel
def horner_plain100(x, c, out, n):
    for i in range(out.shape[0]):
        acc = 0.0
        for j in range(100):
            acc = acc * x[i] + c[j]
        out[i] = acc


@tack.kernel
def two_loops(x, c, out, n):
    for i in range(out.shape[0]):
        acc = 0.0
        for j in tack.unroll(range(n), 4):
            acc = acc * x[i] + c[j]
        for j in tack.unroll(range(n), 4):
            acc = acc * x[i] + c[j]
        out[i] = acc


@tack.kernel
def julia_hints(x, c, out, n):
    for i in range(out.shape[0]):
        acc = 0.0
        for j in tack.unroll(range(n), 8):
            acc = acc * x[i] + c[j]
        for j in tack.unroll(range(4)):
            acc = acc + c[j]
        for j in tack.unroll(range(n, 0, -2), 1):
            acc = acc - c[j]
        for j in range(n):
            acc = acc * 0.5
        out[i] = acc


def _rsqrt_loop(pos, acc, n):
    for i in range(n):
        a = 0.0
        for j in tack.unroll(range(256), 8):
            d = pos[j] - pos[i]
            a += d * rsqrt(d * d + 0.01)
        acc[i] = a


def _rsqrt_loop1(pos, acc, n):
    for i in range(n):
        a = 0.0
        for j in tack.unroll(range(256), 1):
            d = pos[j] - pos[i]
            a += d * rsqrt(d * d + 0.01)
        acc[i] = a


# fastmath: the root is one approximate PTX instruction (no libdevice), easy to count
rsqrt_loop8 = tack.kernel(fastmath=True)(_rsqrt_loop)
rsqrt_loop1 = tack.kernel(fastmath=True)(_rsqrt_loop1)


def _kir(kernel, n=5):
    f = tack.array(np.ones(16, np.float32))
    return specialize(kernel, [f, tack.array(np.ones(300, np.float32)), tack.zeros(16), n])


# a multiply-add in optimized IR: llvm.fma where the target fuses (toolchain/llvm_host.py,
# `fused_multiply_adds`), llvm.fmuladd elsewhere
FMA = "llvm.fma" if target_fuses(host_target_machine()) else "llvm.fmuladd"


def _self_loop_counts(text: str, op: str) -> list[int]:
    """How many `op` instructions (or calls of the intrinsic `op`) each basic block that branches
    to itself holds: after unrolling, an innermost loop without control flow in its body is one
    such block."""
    out = []
    for block in re.split(r"\n(?=[\w.\-]+:)", text):
        m = re.match(r"([\w.\-]+):", block)
        if m and re.search(rf"label %{re.escape(m.group(1))}\b(?!\.)", block):
            out.append(len(re.findall(rf"= (?:tail call float @)?{re.escape(op)}[ .]", block)))
    return out


# -- LLVM IR -----------------------------------------------------------------------------------
@pytest.mark.parametrize("kernel,prop", [
    (horner8, '!"llvm.loop.unroll.count", i32 8'),
    (horner1, '!"llvm.loop.unroll.disable"'),
    (horner_full, '!"llvm.loop.unroll.full"'),
], ids=["count", "disable", "full"])
def test_latch_carries_a_loop_id(kernel, prop):
    text = render(_kir(kernel))
    latch = re.search(r'br label %"for\.cond", !llvm\.loop !(\d+)', text)
    assert latch, text
    node = re.search(rf"^!{latch.group(1)} = distinct !{{ !{latch.group(1)}, !(\d+) }}$", text,
                     re.MULTILINE)
    assert node, text
    assert re.search(rf"^!{node.group(1)} = !{{ {prop} }}$", text, re.MULTILINE), text
    llvm.parse_assembly(text).verify()  # valid IR: the self-reference and `distinct` included


def test_no_hint_no_metadata():
    assert "llvm.loop" not in render(_kir(horner_plain))


def test_every_loop_gets_its_own_id():
    text = render(_kir(two_loops))
    ids = re.findall(r"!llvm\.loop !(\d+)", text)
    assert len(ids) == 2 and ids[0] != ids[1], text
    assert text.count('!"llvm.loop.unroll.count", i32 4') == 1  # the property node is shared
    llvm.parse_assembly(text).verify()


@pytest.mark.parametrize("kernel,factor", [(horner3, 3), (horner8, 8)], ids=["3", "8"])
def test_optimized_ir_is_unrolled_by_the_factor(kernel, factor):
    # `acc * x + c` is one multiply-add (passes/muladd.py): one per iteration
    hinted = optimize(render(_kir(kernel)))
    assert factor in _self_loop_counts(hinted, FMA), hinted
    disabled = optimize(render(_kir(horner1)))
    assert set(_self_loop_counts(disabled, FMA)) == {1}, disabled


def test_full_unroll_of_a_constant_trip_count():
    # 100 trips: more than LLVM unrolls by itself (it unrolls the plain loop partially).
    full = optimize(render(_kir(horner_full100)))
    plain = optimize(render(_kir(horner_plain100)))
    assert full.count(f"@{FMA}.") >= 100, full
    assert plain.count(f"@{FMA}.") < 100, plain


# -- PTX (the NVPTX renderer inherits the loop metadata) ---------------------------------------
def _ptx(kernel):
    from tack.toolchain.nvptx import compile_ptx

    pos = tack.array(np.ones(512, np.float32))
    return compile_ptx(specialize(kernel, [pos, tack.zeros(512), 512]), "sm_90").ptx


@pytest.mark.parametrize("kernel,factor", [(rsqrt_loop1, 1), (rsqrt_loop8, 8)], ids=["1", "8"])
def test_ptx_inner_loop_unrolled(kernel, factor):
    # fastmath may rewrite d * rsqrt(x) as d / sqrt(x): either way, one approximate root per copy
    # (flushing subnormals: fast-math kernels are `.ftz` on the GPU)
    assert _ptx(kernel).count("sqrt.approx.ftz.f32") == factor


def test_bench_nbody_tiled_matches_the_cuda_peer():
    # bench/gpu.py's tiled n-body unrolls its inner loop by 8, as its CUDA C peer's
    # `#pragma unroll 8`: 8 approximate rsqrts per trip of the loop.
    from tack.toolchain.nvptx import compile_ptx

    from bench.gpu import nbody_tiled_fast

    pos, acc = tack.array(np.ones((256, 4), np.float32)), tack.array(np.ones((256, 3), np.float32))
    kir = specialize(nbody_tiled_fast, [pos, acc, 256, np.float32(0.01)])
    assert compile_ptx(kir, "sm_90").ptx.count("rsqrt.approx.ftz.f32") == 8


# -- Julia -------------------------------------------------------------------------------------
def test_julia_unroll_macro():
    text = render_julia(_kir(julia_hints))
    loops = [ln.strip().split("  #")[0] for ln in text.splitlines() if " for outer " in
             f" {ln.strip()}"]
    assert [re.sub(r" for outer .*", "", ln) if "@unroll" in ln else "" for ln in loops] == [
        "KernelAbstractions.Extras.@unroll 8", "KernelAbstractions.Extras.@unroll",
        "KernelAbstractions.Extras.@unroll 1", ""], loops


def test_julia_unroll_macro_parses():
    tree_sitter = pytest.importorskip("tree_sitter")
    tree_sitter_julia = pytest.importorskip("tree_sitter_julia")
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_julia.language()))
    tree = parser.parse(render_julia(_kir(julia_hints)).encode())
    errors = [n for n in _nodes(tree.root_node) if n.type == "ERROR" or n.is_missing]
    assert not errors
    macros = [n for n in _nodes(tree.root_node) if n.type == "macrocall_expression"
              and any(c.text == b"@unroll" for c in n.children)]
    assert len(macros) == 3
    for m in macros:  # the loop is the macro's last argument, as `@capture(for i_ in ...)` needs
        assert m.children[-1].named_children[-1].type == "for_statement"


def _nodes(node):
    yield node
    for c in node.children:
        yield from _nodes(c)
