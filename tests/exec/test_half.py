"""Half precision (tack.f16, tack.bf16) on every engine present, bit for bit against NumPy's float16
and ml_dtypes' bfloat16 (docs/language.md, "Half precision"): each arithmetic op, comparison and
conversion over the special values (±0, subnormals, the largest finite, ±inf, NaN, ties) and
random values, on awkward sizes, on the CPU (the host's ISA and the baseline x86-64-v2, which has
no F16C) and the simulator. NaN results compare as NaN (their payload is not part of the rule)."""
import contextlib
import math
import platform

import numpy as np
import pytest
import tack
from tack.testing.shapes import noncontiguous
from tack.toolchain import llvm_host

from tests.kernels.half import (
    BF16,
    BINARY,
    F16,
    HALVES,
    k_add,
    k_compare,
    k_convert,
    k_div,
    k_math,
    k_muladd,
    k_unary,
    pairs,
    same_bits,
    sample,
)

X86 = platform.machine().lower() in ("x86_64", "amd64")
pytestmark = pytest.mark.filterwarnings("ignore:.*encountered:RuntimeWarning")


def run(kernel, engine, *arrays, out_shape, out_dtype):
    """`kernel(*arrays, out)` on `engine` (None: the default device, as the Julia tier sets it)."""
    with tack.device(engine) if engine else contextlib.nullcontext():
        args = [tack.array(a) for a in arrays]
        out = tack.zeros(out_shape, out_dtype)
        kernel(*args, out)
        return out.numpy()


@pytest.mark.parametrize("half", list(HALVES))
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_ops_round_once_like_numpy(engine, half, op):
    t, np_t = HALVES[half]
    kernel, ref = BINARY[op]
    a, b = pairs(np_t)
    with np.errstate(all="ignore"):
        want = ref(a, b).astype(np_t)
    got = run(kernel, engine, a, b, out_shape=a.size, out_dtype=t)
    same_bits(got, want, f"{op} on {half} ({engine})", zeros_equal=op in ("min", "max"))


@pytest.mark.parametrize("half", list(HALVES))
def test_comparisons_are_exact(engine, half):
    np_t = HALVES[half][1]
    a, b = pairs(np_t)
    got = run(k_compare, engine, a, b, out_shape=(a.size, 7), out_dtype=tack.i32)
    want = np.stack([a < b, a <= b, a == b, a != b, a > b, a >= b,
                     np.isnan(a.astype(np.float32))], axis=1).astype(np.int32)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("half", list(HALVES))
def test_unary_ops_and_weak_literals(engine, half):
    t, np_t = HALVES[half]
    a = sample(np_t, 997)
    got = run(k_unary, engine, a, out_shape=(a.size, 8), out_dtype=t)
    with np.errstate(all="ignore"):
        want = [-a, np.abs(a), np.sqrt(a), np.floor(a), np.ceil(a), np.trunc(a),
                a * np_t.type(0.1), a + np_t.type(1)]
    for k, w in enumerate(want):
        same_bits(got[:, k], w.astype(np_t), f"unary column {k} on {half} ({engine})")


@pytest.mark.parametrize("half", list(HALVES))
def test_transcendentals_are_the_f32_function_rounded_once(engine, half):
    """Within one half ulp of NumPy's f32 function rounded to the half type: the f32 results of
    two math libraries may differ in their last f32 bits, which a rounding to half can expose
    only next to a half rounding boundary (docs/language.md, "Half precision")."""
    t, np_t = HALVES[half]
    a = sample(np_t, 601)
    got = run(k_math, engine, a, out_shape=(a.size, 6), out_dtype=t).astype(np.float64)
    x = a.astype(np.float32)
    with np.errstate(all="ignore"):
        want = np.stack([np.exp(x), np.log(x), np.sin(x), np.tanh(x), np.exp2(x),
                         np.arctan(x)], axis=1).astype(np_t).astype(np.float64)
    ulp = np.spacing(np.abs(want).astype(np_t)).astype(np.float64)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    close = same | (np.abs(got - want) <= ulp)
    assert close.all(), np.argwhere(~close)[:5]
    assert same.mean() > 0.99  # the same bits, but for rare boundary cases


def conversion_sources():
    """(tack dtype, NumPy values) of every storage dtype, with its awkward values: extremes, the
    integers next to the half types' rounding boundaries (ties above 2**53 among them)."""
    out = []
    for t in (tack.i8, tack.u8, tack.i16, tack.u16, tack.i32, tack.u32, tack.i64, tack.u64):
        info = np.iinfo(t.np)
        vals = {0, 1, 2, 3, 7, 255, 2047, 2049, 4097, 65504, 65519, 65520, 65536, 257, 259,
                info.max, info.max - 1, info.min, info.min + 1, 2**24 + 1, 2**31 - 1,
                2**53 + 1, 2**62 + 2**54, 2**62 + 2**54 + 1, 2**62 + 2**54 - 1, 2**63 - 2**54,
                3 << 60, (2**62 + 2**54) | 2047, 2**63 + 2**55 + 1}
        vals |= {-v for v in vals}
        vals = sorted(v for v in vals if info.min <= v <= info.max)
        rng = np.random.default_rng(t.bits)
        rand = rng.integers(info.min, info.max, 200, dtype=t.np, endpoint=True)
        out.append((t, np.concatenate([np.array(vals, t.np), rand])))
    for t in (tack.f32, tack.f64):
        eps = np.finfo(t.np).eps
        vals = [0.0, -0.0, 1 + 2**-8, 1 + 2**-8 + eps, 1 + 2**-8 - eps / 2, 1 + 2**-11,
                1 + 2**-11 + eps, 1 + 3 * 2**-11, 65504.0, 65519.99, 65520.0, 3.3895e38,
                3.3961e38, 3.4e38, 2.0**-24, 2.0**-25, 2.0**-25 * (1 + eps), 2.0**-133, 2.0**-134,
                2.0**-134 * (1 + eps), 1e-45, math.inf, -math.inf, math.nan, 0.1, 1 / 3, 1e300]
        vals += [-v for v in vals]
        rng = np.random.default_rng(t.bits + 1)
        rand = (rng.standard_normal(300) * np.exp2(rng.integers(-140, 130, 300)))
        out.append((t, np.concatenate([np.array(vals), rand]).astype(t.np)))
    for half in HALVES.values():
        out.append((half[0], sample(half[1], 500)))
    return out


@pytest.mark.parametrize("half", list(HALVES))
@pytest.mark.parametrize("src", conversion_sources(), ids=lambda s: s[0].name)
def test_conversions_to_half_round_once(engine, half, src):
    t, np_t = HALVES[half]
    st, values = src
    with np.errstate(all="ignore"):
        want = values.astype(np_t)  # NumPy and ml_dtypes round once, directly
    got = run(k_convert, engine, values, out_shape=values.size, out_dtype=t)
    same_bits(got, want, f"{st.name} → {half} ({engine})")


@pytest.mark.parametrize("half", list(HALVES))
@pytest.mark.parametrize("dst", [tack.i8, tack.u8, tack.i16, tack.u16, tack.i32, tack.u32,
                                 tack.i64, tack.u64, tack.f32, tack.f64], ids=lambda d: d.name)
def test_conversions_from_half(engine, half, dst):
    """Through the exact f32 value: to floats exactly, to integers truncated and saturated."""
    np_t = HALVES[half][1]
    a = sample(np_t, 400)
    got = run(k_convert, engine, a, out_shape=a.size, out_dtype=dst)
    x = a.astype(np.float32)
    want = tack.dtypes.saturate_int(x, dst) if dst.is_int else x.astype(dst.np)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [1, 2, 31, 257])
def test_awkward_sizes_and_noncontiguous_sources(engine, n):
    a, b = sample(F16, n, 3), sample(F16, n, 4)
    got = run(k_muladd, engine, noncontiguous(a), noncontiguous(b, "reversed"), out_shape=n,
              out_dtype=tack.f16)
    same_bits(got, a * b + a, f"f16 muladd, n={n} ({engine})")


@tack.kernel
def k_mixed(h, g, s, out, acc):
    for i in range(h.shape[0]):
        out[i, 0] = h[i] + s[i]  # half with f32: f32, exact operands
        out[i, 1] = h[i] + g[i]  # f16 with bf16: f32
        out[i, 2] = tack.f32(h[i]) * 3.0
        total = tack.f32(0.0)  # accumulates in f32 whatever it is fed
        for k in range(h.shape[0]):
            total += h[k] * g[k]
        acc[i] = total


def test_mixed_precision_rules(engine):
    n = 37
    h, g = sample(F16, n, 5) / 256, sample(BF16, n, 6) / 256
    h[~np.isfinite(h.astype(np.float32))] = 1
    g[~np.isfinite(g.astype(np.float32))] = 1
    s = np.random.default_rng(7).standard_normal(n).astype(np.float32)
    with tack.device(engine) if engine else contextlib.nullcontext():
        out, acc = tack.zeros((n, 3), tack.f32), tack.zeros(n, tack.f32)
        k_mixed(tack.array(h), tack.array(g), tack.array(s), out, acc)
        out, acc = out.numpy(), acc.numpy()
    h32, g32 = h.astype(np.float32), g.astype(np.float32)
    np.testing.assert_array_equal(out[:, 0], h32 + s)
    np.testing.assert_array_equal(out[:, 1], h32 + g32)
    np.testing.assert_array_equal(out[:, 2], h32 * np.float32(3.0))
    total = np.float32(0)
    for k in range(n):  # the f32 sum of f32 products (a half times a half is exact in f32)
        total = np.float32(total + h32[k] * g32[k])
    np.testing.assert_array_equal(acc, np.full(n, total, np.float32))


@tack.kernel
def k_explicit(x, out16, outb16):
    for i in range(x.shape[0]):
        out16[i] = tack.f16(x[i])
        outb16[i] = tack.bf16(x[i] * 1.0)


def test_explicit_conversions_and_host_calls(engine):
    x = conversion_sources()[9][1]  # f64 values
    with tack.device(engine) if engine else contextlib.nullcontext():
        a, b = tack.zeros(x.size, tack.f16), tack.zeros(x.size, tack.bf16)
        k_explicit(tack.array(x), a, b)
        a, b = a.numpy(), b.numpy()
    with np.errstate(all="ignore"):
        same_bits(a, x.astype(F16), "tack.f16(f64)")
        same_bits(b, x.astype(BF16), "tack.bf16(f64)")
    # the host conversion is the kernel's
    for v in (1 + 2**-8 + 2**-40, 2**62 + 2**54 + 1, 65520.0, -2.0**-134 * 1.5):
        assert tack.bf16(v).view(np.uint16) == np.array(v).astype(BF16).view(np.uint16)
        assert tack.f16(v).view(np.uint16) == np.array(v).astype(F16).view(np.uint16)


def test_typed_ir_names_the_half_types():
    a = tack.array(np.ones(4, F16))
    b = tack.array(np.ones(4, BF16))
    out = tack.zeros(4, tack.f16)
    text = tack.inspect(k_add, a, a, out, mode="ir")
    assert "f16[" in text
    text = tack.inspect(k_mixed, a, b, tack.zeros(4, tack.f32), tack.zeros((4, 3), tack.f32),
                        tack.zeros(4, tack.f32), mode="ir")
    assert "bf16[" in text and "f16[" in text


@tack.kernel
def k_atomic(a, v):
    for i in range(v.shape[0]):
        tack.atomic_add(a, 0, v[i])


@pytest.mark.parametrize("half", list(HALVES))
def test_atomics_on_half_arrays_are_refused_before_launch(engine, half):
    t, _ = HALVES[half]
    with tack.device(engine) if engine else contextlib.nullcontext():
        a, v = tack.zeros(2, t), tack.ones(3, t)
        with pytest.raises(tack.TackTypeError, match=f"atomic update of a {t.name} element"):
            k_atomic(a, v)
        assert a.numpy().tolist() == [0, 0]


@pytest.mark.skipif(not X86, reason="the baseline ISA is an x86-64 level")
@pytest.mark.parametrize("half", list(HALVES))
def test_baseline_isa_gives_the_same_bits(tmp_path, half):
    """x86-64-v2 has no F16C: f16 converts with the module's integer code (render/llvm/half.py),
    vectorized, where LLVM would call __truncsfhf2/__extendhfsf2 per element (functions the
    process need not have). Fresh kernel objects: one compiled before keeps its host code."""
    t, np_t = HALVES[half]
    a, b = pairs(np_t, 100)
    values = conversion_sources()[9][1]
    div, convert, convert_back = (tack.kernel(k.fn) for k in (k_div, k_convert, k_convert))
    with llvm_host.cpu_target("x86-64-v2"):
        got = run(div, "cpu", a, b, out_shape=a.size, out_dtype=t)
        conv = run(convert, "cpu", values, out_shape=values.size, out_dtype=t)
        back = run(convert_back, "cpu", sample(np_t, 300), out_shape=300, out_dtype=tack.f32)
        text = tack.inspect(div, tack.array(a), tack.array(b), tack.zeros(a.size, t),
                            mode="optimized")
    assert "hf2" not in text and ("x half>" in text or "x i16>" in text)  # vectorized
    with np.errstate(all="ignore"):
        same_bits(got, (a / b).astype(np_t), f"{half} division on x86-64-v2")
        same_bits(conv, values.astype(np_t), f"f64 → {half} on x86-64-v2")
    np.testing.assert_array_equal(back, sample(np_t, 300).astype(np.float32))


@pytest.mark.parametrize("arch", ["sm_70", "sm_90"])
def test_ptx_converts_with_cvt_and_integer_rounding(arch):
    """The CUDA renderer's text (no GPU needed), 16-bit loads and stores, no multiply-add fused
    and no libcall: f16 through PTX's .f16 instructions (LLVM narrows an f32 + - * / of two
    widened halves rounded back to half into the half instruction, which rounds the same, as
    the module docstring of passes/half.py says) on every sm; bf16 through the CPU's integer
    rounding below sm_80 and one `cvt.rn.bf16.f32` from sm_80 on (the GPU's bits of it:
    `test_conversions_to_half_round_once` on the cuda engine)."""
    from tack.compiler import specialize
    from tack.toolchain.nvptx import render_ptx

    for t, np_t in HALVES.values():
        a = tack.array(np.ones(8, np_t))
        ptx = render_ptx(specialize(k_muladd, (a, a, tack.zeros(8, t))), arch)
        assert "ld.global.b16" in ptx or "ld.global.u16" in ptx, ptx
        assert "st.global.b16" in ptx or "st.global.u16" in ptx, ptx
        assert "hf2" not in ptx and "fma" not in ptx  # half never fuses a multiply-add
        if t is tack.f16:
            assert "mul.rn.f16" in ptx and "add.rn.f16" in ptx
        elif arch == "sm_70":
            assert "bf16" not in ptx and "32767" in ptx  # + 0x7fff: rounding to nearest even
        else:
            assert "cvt.rn.bf16.f32" in ptx and "32767" not in ptx


@tack.kernel
def k_bits_f16(a, bits, back):
    for i in range(a.shape[0]):
        bits[i] = tack.bitcast(a[i], tack.u16)
        back[i] = tack.bitcast(tack.bitcast(a[i], tack.i16), tack.f16)


@tack.kernel
def k_bits_bf16(a, bits, back):
    for i in range(a.shape[0]):
        bits[i] = tack.bitcast(a[i], tack.u16)
        back[i] = tack.bitcast(tack.bitcast(a[i], tack.i16), tack.bf16)


@pytest.mark.parametrize("half", list(HALVES))
def test_bitcast_keeps_every_bit(engine, half):
    t, np_t = HALVES[half]
    a = np.arange(1 << 16, dtype=np.uint16).view(np_t)  # every pattern, NaN payloads included
    kernel = k_bits_f16 if t is tack.f16 else k_bits_bf16
    with tack.device(engine) if engine else contextlib.nullcontext():
        bits, back = tack.zeros(a.size, tack.u16), tack.zeros(a.size, t)
        kernel(tack.array(a), bits, back)
        np.testing.assert_array_equal(bits.numpy(), a.view(np.uint16))
        np.testing.assert_array_equal(back.numpy().view(np.uint16), a.view(np.uint16))


@tack.kernel
def k_scale(s, a, out):
    for i in range(out.shape[0]):
        out[i] = a[i] * s


@pytest.mark.parametrize("half", list(HALVES))
def test_half_scalar_arguments_are_f32(engine, half):
    """A NumPy float16 or bfloat16 scalar argument is an f32 parameter holding its exact value:
    half array times it is an f32 product."""
    np_t = HALVES[half][1]
    a = sample(np_t, 50)
    s = np_t.type(1 / 3)
    with tack.device(engine) if engine else contextlib.nullcontext():
        out = tack.zeros(a.size, tack.f32)
        k_scale(s, tack.array(a), out)
        got = out.numpy()
        assert "s: f32" in tack.inspect(k_scale, s, tack.array(a), out, mode="ir")
    np.testing.assert_array_equal(got, a.astype(np.float32) * np.float32(s))


@tack.kernel
def k_vectors(a, b, out, rev):
    for i in range(a.shape[0]):
        out[i] = a[i] * b[i] + a[i] * 0.5  # per component: each op rounded to the half type
        tmp = tack.local_array(tack.f16, 3)
        for k in range(3):
            tmp[k] = tack.f16(a[i][k])
        for k in range(3):
            rev[i, k] = tmp[2 - k] / 3.0


def test_half_vectors_and_local_arrays(engine):
    n = 29
    x = sample(F16, 3 * n, 8).reshape(n, 3)
    y = sample(F16, 3 * n, 9).reshape(n, 3)
    with tack.device(engine) if engine else contextlib.nullcontext():
        v3 = tack.vector(3, tack.f16)
        out, rev = tack.zeros(n, v3), tack.zeros((n, 3), tack.f16)
        k_vectors(tack.array(x, v3), tack.array(y, v3), out, rev)
        out, rev = out.numpy(), rev.numpy()
    assert out.shape == (n, 3) and out.dtype == F16
    with np.errstate(all="ignore"):
        same_bits(out, x * y + x * F16.type(0.5), f"vec3<f16> arithmetic ({engine})")
        same_bits(rev, x[:, ::-1] / F16.type(3.0), f"f16 local array ({engine})")
