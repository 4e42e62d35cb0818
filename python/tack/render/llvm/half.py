"""Half types in LLVM IR: f16 as LLVM `half`, bf16 as its 16 bits in an `i16`, and the two
conversions `passes.half` leaves to every engine (f32 → half rounded to nearest even, half → f32
exact). See docs/language.md, "Half precision".

f16 converts with `fptrunc`/`fpext` where the target has the instructions: F16C's
`vcvtps2ph`/`vcvtph2ps` on x86-64, `fcvt` on ARM64, `cvt.rn.f16.f32` on NVPTX. On an x86-64 CPU
without F16C (the x86-64-v2 baseline) LLVM would call compiler-rt's `__truncsfhf2`/`__extendhfsf2`
once per element, which the process need not have (Tack loads object code itself and resolves
undefined symbols with dlsym), or has from a library with another calling convention (resolved
so, a test process crashed), and which stop vectorization; there the renderer calls the module's
own `tack.f32_to_f16`/`tack.f16_to_f32` instead (`f16_converters`): integer operations giving
F16C's bits, inlined and vectorized like the rest of the loop.

bf16 converts with integer operations on every target: LLVM's `fptrunc float to bfloat` is
AVX-512 BF16's `vcvtneps2bf16` where the CPU has it, which flushes subnormal inputs and results
to zero (measured on a Zen 4: 1.1754942e-38 gave 0, not 0x0080), a libcall elsewhere, and
`cvt.rn.bf16.f32` only from sm_80 on. The integer form is exact, vectorizes, and is what
ml_dtypes computes: round to nearest even on the bit pattern, a NaN kept quiet with its sign.
The PTX renderer takes `cvt.rn.bf16.f32` from sm_80 on (render/llvm/ptx.py, `cast`): the same
bits but a NaN's, one instruction for seven."""
from __future__ import annotations

from llvmlite import ir

I16, I32, F32, HALF = ir.IntType(16), ir.IntType(32), ir.FloatType(), ir.HalfType()


def _c(ty: ir.Type, v) -> ir.Constant:
    return ir.Constant(ty, v)


def f32_to_bf16(b: ir.IRBuilder, v: ir.Value) -> ir.Value:
    """f32 `v` → bf16 bits (i16): round to nearest even; NaN quiet, sign kept."""
    u = b.bitcast(v, I32)
    high = b.lshr(u, _c(I32, 16))
    lsb = b.and_(high, _c(I32, 1))
    rounded = b.lshr(b.add(u, b.add(lsb, _c(I32, 0x7FFF))), _c(I32, 16))
    nan = b.fcmp_unordered("uno", v, v)
    return b.trunc(b.select(nan, b.or_(high, _c(I32, 0x40)), rounded), I16)


def bf16_to_f32(b: ir.IRBuilder, h: ir.Value) -> ir.Value:
    """bf16 bits (i16) → f32, exactly: the bits are f32's upper half."""
    return b.bitcast(b.shl(b.zext(h, I32), _c(I32, 16)), F32)


def f16_converters(module: ir.Module) -> tuple[ir.Function, ir.Function]:
    """`half @tack.f32_to_f16(float)` and `float @tack.f16_to_f32(half)` of `module` (defined on
    first use): internal, always inlined (the module docstring)."""
    got = module.globals.get("tack.f32_to_f16")
    if got is not None:
        return got, module.globals["tack.f16_to_f32"]
    fns = (ir.Function(module, ir.FunctionType(HALF, [F32]), name="tack.f32_to_f16"),
           ir.Function(module, ir.FunctionType(F32, [HALF]), name="tack.f16_to_f32"))
    for fn, body in zip(fns, (_trunc, _extend)):
        fn.linkage = "internal"
        fn.attributes.add("alwaysinline")
        fn.attributes.add("nounwind")
        body(fn)
    return fns


def _trunc(fn: ir.Function) -> None:
    """f32 → f16, round to nearest even (F. Giesen's float_to_half_fast3_rtne,
    https://gist.github.com/rygorous/2156668): normal results round on the rebiased bits;
    subnormal ones come from one f32 addition of 0.5, whose last place is f16's smallest
    subnormal, so the FPU rounds them."""
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    u = b.bitcast(fn.args[0], I32)
    sign = b.and_(b.lshr(u, _c(I32, 16)), _c(I32, 0x8000))
    a = b.and_(u, _c(I32, 0x7FFFFFFF))
    nan = b.or_(_c(I32, 0x7E00), b.and_(b.lshr(a, _c(I32, 13)), _c(I32, 0x3FF)))
    rebiased = b.sub(a, _c(I32, 112 << 23))
    odd = b.and_(b.lshr(rebiased, _c(I32, 13)), _c(I32, 1))
    normal = b.lshr(b.add(rebiased, b.add(odd, _c(I32, 0xFFF))), _c(I32, 13))
    shifted = b.fadd(b.bitcast(a, F32), _c(F32, 0.5))
    sub = b.sub(b.bitcast(shifted, I32), _c(I32, 0x3F000000))
    out = b.select(b.icmp_unsigned("<", a, _c(I32, 0x38800000)), sub, normal)  # below 2**-14
    out = b.select(b.icmp_unsigned(">=", a, _c(I32, 0x477FF000)), _c(I32, 0x7C00), out)  # inf
    out = b.select(b.icmp_unsigned(">", a, _c(I32, 0x7F800000)), nan, out)
    b.ret(b.bitcast(b.trunc(b.or_(out, sign), I16), HALF))


def _extend(fn: ir.Function) -> None:
    """f16 → f32, exactly: normal numbers rebias, subnormals are their integer times 2**-24,
    inf and NaN keep their payload."""
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    h = b.zext(b.bitcast(fn.args[0], I16), I32)
    sign = b.shl(b.and_(h, _c(I32, 0x8000)), _c(I32, 16))
    a = b.and_(h, _c(I32, 0x7FFF))
    normal = b.add(b.shl(a, _c(I32, 13)), _c(I32, 112 << 23))
    special = b.or_(b.shl(a, _c(I32, 13)), _c(I32, 0x7F800000))
    sub = b.bitcast(b.fmul(b.uitofp(a, F32), _c(F32, 2.0 ** -24)), I32)
    out = b.select(b.icmp_unsigned("<", a, _c(I32, 0x400)), sub, normal)
    out = b.select(b.icmp_unsigned(">=", a, _c(I32, 0x7C00)), special, out)
    b.ret(b.bitcast(b.or_(out, sign), F32))
