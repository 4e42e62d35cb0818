"""The LLVM renderer's text: semantics choices visible in the IR, structure, errors, vectorization.
(Execution against references is tests/runtime/test_cpu_runtime.py.)"""
from __future__ import annotations

import re

import llvmlite.binding as llvm
import pytest
from llvmlite import ir
from tack import dtypes as D
from tack.errors import RenderError
from tack.ir.nodes import (
    Assign,
    Barrier,
    Break,
    Expr,
    ExprStmt,
    For,
    If,
    KernelIR,
    Loc,
    Param,
    Scratch,
    Stmt,
    Store,
    While,
)
from tack.ir.ops import Op
from tack.render.llvm.printer import LLVMRenderer, render
from tack.toolchain.llvm_host import optimize

L = Loc("t.py", 3, 5, 3, 9, source=("", "", "    y[i] = min(a, b)",), first_line=1)
T = Expr(Op.LAUNCH, D.i64, (), None, L)


def E(op, dt, *args, arg=None):
    return Expr(op, dt, args, arg, L)


def C(v, dt=D.i64):
    return E(Op.CONST, dt, arg=v)


def ld(name, dt, idx=T):
    return E(Op.LOAD, dt, idx, arg=name)


def arr(name, dt, written=False):
    return Param(name, "array", dt, 1, (None,), written)


def kernel(body, params, locals_=None, name="k"):
    return KernelIR(name, params, body, dict(locals_ or {}), L)


def unary_kernel(op, dt, out_dt=None, name="k"):
    out_dt = out_dt or dt
    return kernel([Store(L, "o", (T,), E(op, out_dt, ld("a", dt)))],
                  [arr("a", dt), arr("o", out_dt, True)], name=name)


def binary_kernel(op, dt, out_dt=None):
    out_dt = out_dt or dt
    return kernel([Store(L, "o", (T,), E(op, out_dt, ld("a", dt), ld("b", dt)))],
                  [arr("a", dt), arr("b", dt), arr("o", out_dt, True)])


def body_of(text: str) -> str:
    """The kernel body function's text."""
    return text[text.index('.body"'):text.index('define void')]


def verified(text: str) -> str:
    mod = llvm.parse_assembly(text)
    mod.verify()
    return text


# ---- semantics visible in the text --------------------------------------------------------------
@pytest.mark.parametrize("op, signed, unsigned", [
    (Op.IDIV, "sdiv", "udiv"), (Op.IREM, "srem", "urem"), (Op.SHR, "ashr", "lshr"),
    (Op.MIN, "llvm.smin", "llvm.umin"), (Op.MAX, "llvm.smax", "llvm.umax"),
])
def test_signedness_picks_the_instruction(op, signed, unsigned):
    for dt in (D.i8, D.i16, D.i32, D.i64):
        assert signed in verified(render(binary_kernel(op, dt)))
    for dt in (D.u8, D.u16, D.u32, D.u64):
        text = verified(render(binary_kernel(op, dt)))
        assert unsigned in text and signed not in text


@pytest.mark.parametrize("dt, pred", [(D.i32, "slt"), (D.u32, "ult"), (D.f32, "fcmp olt")])
def test_compare_predicates(dt, pred):
    k = kernel([Store(L, "o", (T,), E(Op.CAST, D.i32, E(Op.LT, D.bool_, ld("a", dt),
                                                        ld("b", dt))))],
               [arr("a", dt), arr("b", dt), arr("o", D.i32, True)])
    assert pred in verified(render(k))


def test_float_ne_is_unordered_and_isnan_is_uno():
    k = kernel([Store(L, "o", (T,), E(Op.CAST, D.i32, E(Op.NE, D.bool_, ld("a", D.f64),
                                                        ld("b", D.f64)))),
                Store(L, "o", (T,), E(Op.CAST, D.i32, E(Op.ISNAN, D.bool_, ld("a", D.f64))))],
               [arr("a", D.f64), arr("b", D.f64), arr("o", D.i32, True)])
    text = verified(render(k))
    assert "fcmp une double" in text and "fcmp uno double" in text


def test_integers_wrap_and_floats_carry_no_flags():
    # Not even `contract`: a multiply-add fuses only as an explicit Op.MULADD (passes/muladd.py).
    body = [Store(L, "o", (T,), E(op, D.i32, ld("a", D.i32), ld("a", D.i32)))
            for op in (Op.ADD, Op.SUB, Op.MUL, Op.SHL)]
    body += [Store(L, "f", (T,), E(op, D.f32, ld("g", D.f32), ld("g", D.f32)))
             for op in (Op.ADD, Op.SUB, Op.MUL, Op.FDIV, Op.FREM)]
    body += [Store(L, "o", (T,), E(Op.NEG, D.i32, ld("a", D.i32))),
             Store(L, "f", (T,), E(Op.NEG, D.f32, ld("g", D.f32)))]
    text = verified(render(kernel(body, [arr("a", D.i32), arr("o", D.i32, True), arr("g", D.f32),
                                         arr("f", D.f32, True)])))
    for flag in ("nsw", "nuw", "fast", "reassoc", "nnan", "ninf", "nsz", "arcp", "afn",
                 "noalias", "exact", "contract"):
        assert not re.search(rf"\b{flag}\b", text), flag
    for inst in ("fadd", "fsub", "fmul", "fdiv", "frem", "fneg"):
        assert f"{inst} float" in text


def test_muladd_is_fmuladd():
    body = [Store(L, "f", (T,), E(Op.MULADD, D.f32, ld("g", D.f32), ld("g", D.f32),
                                  ld("g", D.f32)))]
    text = verified(render(kernel(body, [arr("g", D.f32), arr("f", D.f32, True)])))
    assert re.search(r"call float @\"?llvm\.fmuladd\.f32\"?\(", text)


def test_int_abs_wraps():
    text = verified(render(unary_kernel(Op.ABS, D.i16)))
    assert re.search(r"call i16 @\"?llvm\.abs\.i16\"?\(i16 [^,]+, i1 0\)", text)
    assert "llvm.abs" not in render(unary_kernel(Op.ABS, D.u16))  # unsigned: identity
    assert "llvm.fabs.f32" in render(unary_kernel(Op.ABS, D.f32))


@pytest.mark.parametrize("src, dst, inst", [
    (D.i8, D.i32, "sext"), (D.u8, D.i32, "zext"), (D.i8, D.u64, "sext"), (D.u16, D.i64, "zext"),
    (D.i64, D.i8, "trunc"), (D.i32, D.f32, "sitofp"), (D.u32, D.f64, "uitofp"),
    (D.f32, D.i16, "fptosi float"), (D.f64, D.u32, "fptoui double"),
    (D.f32, D.f64, "fpext"), (D.f64, D.f32, "fptrunc"),
])
def test_cast_instruction_follows_the_source_signedness(src, dst, inst):
    text = verified(render(unary_kernel(Op.CAST, src, dst)))
    assert inst in body_of(text)


@pytest.mark.parametrize("src, dst, ends", [
    (D.f32, D.i16, ("i16 32767", "i16 -32768")), (D.f64, D.u32, ("i32 -1", "i32 0")),
    (D.f32, D.i64, ("i64 9223372036854775807", "i64 -9223372036854775808")),
])
def test_float_to_int_saturates_by_selects_on_the_cpu(src, dst, ends):
    """The CPU spells fpto[su]i.sat out (the x86 backend scalarizes the vector intrinsic): the
    plain conversion, then the range's two ends (the unsigned maximum is all ones) and NaN → 0
    chosen by selects."""
    text = body_of(verified(render(unary_kernel(Op.CAST, src, dst))))
    assert ".sat" not in text
    assert len(re.findall(r"= select\s+i1", text)) == 3
    assert re.search(r"fcmp oge \w+ %\S+, ", text) and re.search(r"fcmp olt \w+ %\S+, ", text)
    assert "fcmp uno" in text
    for end in ends:
        assert f"{end}," in text, (end, text)


def test_float_to_int_keeps_the_intrinsic_on_nvptx():
    from tack.render.llvm.ptx import PTXRenderer

    text = PTXRenderer().render(unary_kernel(Op.CAST, D.f32, D.i32))
    assert "llvm.fptosi.sat.i32.f32" in text  # cvt.rzi saturates in hardware


def test_cast_to_and_from_bool():
    to_bool = E(Op.CAST, D.bool_, ld("a", D.f32))
    k = kernel([Store(L, "o", (T,), E(Op.CAST, D.i32, to_bool))],
               [arr("a", D.f32), arr("o", D.i32, True)])
    text = body_of(verified(render(k)))
    assert "fcmp une float" in text and "zext i1" in text


@pytest.mark.parametrize("op, f32, f64", [
    (Op.SQRT, "llvm.sqrt.f32", "llvm.sqrt.f64"), (Op.EXP2, "llvm.exp2.f32", "llvm.exp2.f64"),
    (Op.LOG10, "llvm.log10.f32", "llvm.log10.f64"), (Op.TRUNC, "llvm.trunc.f32", "llvm.trunc.f64"),
    (Op.TAN, "@\"tanf\"", "@\"tan\""), (Op.TANH, "@\"tanhf\"", "@\"tanh\""),
    (Op.ACOS, "@\"acosf\"", "@\"acos\""),
])
def test_math_uses_intrinsics_then_libm(op, f32, f64):
    assert f32 in verified(render(unary_kernel(op, D.f32)))
    assert f64 in verified(render(unary_kernel(op, D.f64)))


def test_binary_math():
    assert "llvm.pow.f32" in verified(render(binary_kernel(Op.POW, D.f32)))
    assert "llvm.copysign.f64" in verified(render(binary_kernel(Op.COPYSIGN, D.f64)))
    assert '@"atan2f"' in verified(render(binary_kernel(Op.ATAN2, D.f32)))


def test_ipow_is_an_internal_helper_emitted_once():
    k = kernel([Store(L, "o", (T,), E(Op.IPOW, D.i32, ld("a", D.i32), ld("e", D.u8))),
                Store(L, "o", (T,), E(Op.IPOW, D.i32, ld("o", D.i32), ld("e", D.u8)))],
               [arr("a", D.i32), arr("e", D.u8), arr("o", D.i32, True)])
    text = verified(render(k))
    assert text.count('define internal i32 @"tack.ipow.i32.i8"') == 1
    assert text.count('call i32 @"tack.ipow.i32.i8"') == 2


def test_lazy_ops_branch_and_select_does_not():
    b = E(Op.NE, D.bool_, ld("a", D.i32), C(0, D.i32))
    for op, args in ((Op.LAND, (b, b)), (Op.LOR, (b, b)), (Op.IFEXP, (b, b, b))):
        k = kernel([Store(L, "o", (T,), E(Op.CAST, D.i32, E(op, D.bool_, *args)))],
                   [arr("a", D.i32), arr("o", D.i32, True)])
        text = body_of(verified(render(k)))
        assert re.search(r"phi\s+i1", text) and text.count("br i1") == 1, op
        # the second operand's load sits in a block of its own, after the branch
        assert text.index("br i1") < text.rindex("load i32")
    k = kernel([Store(L, "o", (T,), E(Op.SELECT, D.i32, b, ld("a", D.i32), C(3, D.i32)))],
               [arr("a", D.i32), arr("o", D.i32, True)])
    text = body_of(verified(render(k)))
    assert re.search(r"select\s+i1", text) and "br i1" not in text


# ---- structure ----------------------------------------------------------------------------------
def test_entry_abi_and_arrays():
    k = kernel([Store(L, "y", (T,), E(Op.ADD, D.f64, E(Op.PARAM, D.f64, arg="a"),
                                      ld("x", D.f64)))],
               [Param("a", "scalar", D.f64), arr("x", D.f64), arr("y", D.f64, True),
                Param("k", "scalar", D.u8)], name="axpy")
    text = verified(render(k))
    assert ('define void @"tack_axpy"(i64 %"t_begin", i64 %"t_end", i8* %"args", '
            'i64 %"sig0")') in text
    assert ('define internal void @"tack_axpy.body"(i64 %"t", double %"a", double* %"x", '
            'double* %"y", i8 %"k") alwaysinline nounwind') in text
    assert "load double, double* %" in text and "align 8" in text
    for off in (8, 16, 24):  # one 8-byte slot per parameter
        assert f'i8* %"args", i64 {off}' in text


@pytest.mark.parametrize("dt", [D.i8, D.u16, D.i32, D.u64, D.f32, D.f64], ids=lambda d: d.name)
def test_loads_and_stores_align_to_the_element(dt):
    text = body_of(verified(render(unary_kernel(Op.NEG, dt))))
    ty = str(LLVMRenderer().ll_type(dt))
    assert f"load {ty}, {ty}* " in text and text.count(f", align {dt.itemsize}") == 2
    assert "getelementptr inbounds" in text


def test_locals_are_entry_block_allocas():
    i64 = D.i64
    body = [Assign(L, "s", C(0)),
            For(L, "i", C(0), C(10), None, [
                While(L, E(Op.LT, D.bool_, E(Op.VAR, i64, arg="s"), C(5)),
                      [Assign(L, "s", E(Op.ADD, i64, E(Op.VAR, i64, arg="s"), C(1)))])]),
            Store(L, "o", (T,), E(Op.VAR, i64, arg="s"))]
    text = body_of(verified(render(kernel(body, [arr("o", i64, True)], {"s": i64, "i": i64}))))
    entry = text[text.index("entry:"):text.index("body:")]
    assert entry.count("alloca") == text.count("alloca") == 3  # s, i and the hidden counter


def test_statements_after_break_are_unreachable_but_valid():
    body = [For(L, "i", C(0), C(3), None, [Break(L), Assign(L, "i", C(9)), Break(L)]),
            If(L, E(Op.EQ, D.bool_, T, C(0)), [], [ExprStmt(L, ld("o", D.i64))]),
            Store(L, "o", (T,), E(Op.VAR, D.i64, arg="i"))]
    text = verified(render(kernel(body, [arr("o", D.i64, True)], {"i": D.i64})))
    # `i = 9` after the break: in a block of its own that no branch reaches
    assert re.search(r'^dead:\n  store i64 9, i64\* %"i"$', text, re.MULTILINE), text
    assert 'label %"dead"' not in text


def test_optimize_returns_parseable_text():
    text = optimize(render(unary_kernel(Op.SQRT, D.f32)))
    assert "target datalayout" in text
    verified(text)


# ---- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize("op", [Op.MIN, Op.MAX])
def test_float_min_max_are_minnum_maxnum(op):
    text = render(binary_kernel(op, D.f32))
    assert "fcmp uno" in text and "select" in text  # a NaN loses to a number


@pytest.mark.parametrize("bad", [
    E(Op.FLOORDIV, D.i32, C(1, D.i32), C(2, D.i32)), E(Op.SHAPE, D.i64, arg=("a", 0)),
    E(Op.SQRT, D.i32, C(1, D.i32)), E(Op.INVERT, D.f32, C(1.0, D.f32)),
    E(Op.NEG, D.bool_, C(True, D.bool_)), E(Op.ISNAN, D.bool_, C(1, D.i32)),
    E(Op.LOAD, D.i32, T, arg="nope"), E(Op.PARAM, D.i32, arg="a"),
], ids=["floordiv", "shape", "int-sqrt", "float-invert", "bool-neg", "int-isnan",
        "unknown-array", "array-as-scalar"])
def test_missing_renderings_raise_render_error(bad):
    with pytest.raises(RenderError, match=r"^t\.py:3:5: "):
        render(kernel([Store(L, "o", (T,), bad)], [arr("a", D.i32), arr("o", bad.dtype, True)]))


def test_structural_errors():
    two_d = Store(L, "o", (T, T), C(1, D.i32))
    with pytest.raises(RenderError, match="one flat i64 index"):
        render(kernel([two_d], [arr("o", D.i32, True)]))
    with pytest.raises(RenderError, match="break outside a loop"):
        render(kernel([Break(L)], []))

    class Odd(Stmt):
        pass

    with pytest.raises(RenderError, match="cannot render a Odd statement"):
        render(kernel([Odd(L)], []))


# ---- atomics, scratch, workgroups ---------------------------------------------------------------
@pytest.mark.parametrize("op, dt, inst", [
    (Op.ATOMIC_ADD, D.i8, "add i8"), (Op.ATOMIC_ADD, D.u64, "add i64"),
    (Op.ATOMIC_ADD, D.f32, "fadd float"), (Op.ATOMIC_MIN, D.i32, "min i32"),
    (Op.ATOMIC_MIN, D.u32, "umin i32"), (Op.ATOMIC_MAX, D.i16, "max i16"),
    (Op.ATOMIC_MAX, D.u8, "umax i8"), (Op.ATOMIC_MAX, D.f64, "fmax double"),
    (Op.ATOMIC_MIN, D.f64, "fmin double"),
])
def test_atomics_are_relaxed_read_modify_writes(op, dt, inst):
    k = kernel([Store(L, "o", (T,), E(op, dt, C(0), ld("o", dt), arg="c"))],
               [arr("c", dt, True), arr("o", dt, True)])
    text = body_of(verified(render(k)))
    rmw, ty = inst.split()
    assert re.search(rf"atomicrmw {rmw} {ty}\* %[^,]+, {ty} %[^ ]+ monotonic", text), text


def test_local_scratch_is_an_entry_block_alloca():
    k = KernelIR("k", [arr("o", D.f32, True)],
                 [Store(L, "buf", (C(3),), C(1.0, D.f32)),
                  Store(L, "o", (T,), ld("buf", D.f32, C(3)))], {}, L,
                 scratch={"buf": Scratch("buf", D.f32, 16, "local")})
    text = body_of(verified(render(k)))
    entry = text[text.index("entry:"):text.index("body:")]
    assert '%"buf" = alloca [16 x float]' in entry
    assert "store float 0x3ff0000000000000" in text


@pytest.mark.parametrize("what", ["shared", "barrier", "thread_id", "atomic-on-scratch"])
def test_cpu_renderer_refuses_workgroup_features(what):
    scratch, body = {}, [Store(L, "o", (T,), C(1, D.i32))]
    if what == "shared":
        scratch = {"sh": Scratch("sh", D.i32, 256, "shared")}
    elif what == "barrier":
        body.append(Barrier(L))
    elif what == "thread_id":
        body = [Store(L, "o", (T,), E(Op.THREAD_ID, D.i32))]
    else:
        scratch = {"loc": Scratch("loc", D.i32, 4, "local")}
        body = [ExprStmt(L, E(Op.ATOMIC_ADD, D.i32, C(0), C(1, D.i32), arg="loc"))]
    k = KernelIR("k", [arr("o", D.i32, True)], body, {}, L, scratch=scratch)
    with pytest.raises(RenderError, match=r"^t\.py:3:5: ") as err:
        render(k)
    assert isinstance(err.value, NotImplementedError)  # what tack.inspect lets through


# ---- vectorization evidence ---------------------------------------------------------------------
def _host_has(feature: str) -> bool:
    return f"+{feature}" in llvm.get_host_cpu_features().flatten().split(",")


def saxpy():
    f32 = D.f32
    return kernel([Store(L, "y", (T,), E(Op.ADD, f32, E(Op.MUL, f32, E(Op.PARAM, f32, arg="a"),
                                                        ld("x", f32)), ld("y", f32)))],
                  [Param("a", "scalar", f32), arr("x", f32), arr("y", f32, True)], name="saxpy")


def stencil5():
    """o[c] = a[c-1] + a[c+1] + a[c-W] + a[c+W] - 4 a[c], c = start + t (rows flattened)."""
    f32, i64 = D.f32, D.i64
    c = E(Op.ADD, i64, E(Op.PARAM, i64, arg="start"), T)
    w = E(Op.PARAM, i64, arg="W")

    def at(off):
        return ld("a", f32, E(Op.ADD, i64, c, off))

    lap = E(Op.SUB, f32,
            E(Op.ADD, f32, E(Op.ADD, f32, at(C(-1)), at(C(1))),
              E(Op.ADD, f32, at(E(Op.NEG, i64, w)), at(w))),
            E(Op.MUL, f32, C(4.0, f32), ld("a", f32, c)))
    return kernel([Store(L, "o", (c,), lap)],
                  [Param("start", "scalar", i64), Param("W", "scalar", i64), arr("a", f32),
                   arr("o", f32, True)], name="stencil5")


@pytest.mark.skipif(not _host_has("avx2"), reason="needs an AVX2 host")
@pytest.mark.parametrize("make", [saxpy, stencil5])
def test_simple_kernels_vectorize(make):
    text = optimize(render(make()))
    widths = set(re.findall(r"<(\d+) x float>", text))
    assert widths & {"8", "16"}, widths  # 256-bit (AVX2) or 512-bit (AVX-512) vectors
    assert re.search(r"load <(8|16) x float>", text)
    assert re.search(r"store <(8|16) x float>", text)


@pytest.mark.skipif(not _host_has("avx2"), reason="needs an AVX2 host")
def test_float_to_int_conversion_vectorizes():
    text = optimize(render(unary_kernel(Op.CAST, D.f32, D.i32)))
    assert re.search(r"fptosi <(8|16) x float>", text)
    assert "fptosi.sat" not in text


# ---- the subclass hooks a PTX renderer uses -----------------------------------------------------
class OneThreadPerCall(LLVMRenderer):
    """A toy target: the entry takes the parameters directly and t from a global, arrays live in
    address space 1 and math comes from a `__dev_` library."""

    array_addrspace = 1

    def emit_entry(self, kir, body):
        params = [a.type for a in body.args[1:]]
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), params),
                         name=f"dev_{kir.name}")
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        tid = ir.GlobalVariable(self.module, ir.IntType(64), "tid")
        b.call(body, [b.load(tid)] + list(fn.args))
        b.ret_void()
        return fn

    def math_function(self, op, dt):
        ty = self.ll_type(dt)
        return self.declare(f"__dev_{op.name.lower()}_{dt.name}", ty, [ty])


def test_subclass_replaces_entry_address_space_and_math():
    text = verified(OneThreadPerCall().render(unary_kernel(Op.SIN, D.f32, name="s")))
    assert 'define void @"dev_s"(float addrspace(1)* %".1", float addrspace(1)* %".2")' in text
    assert '@"__dev_sin_f32"' in text and "llvm.sin" not in text
    assert "tack_s" not in text.replace("tack_s.body", "")
