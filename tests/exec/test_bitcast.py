"""`tack.bitcast(x, dtype)` reads x's bits as another dtype of the same width (docs/language.md,
"Bit casts"): on every engine (the `engine` fixture: the CPU, the simulator, a GPU, Julia),
against NumPy's `.view`, with NaN payloads, signed zeros, subnormals and infinities; constants
fold to the same bits; a width mismatch or a non-dtype target is refused with its position.
tests/julia/test_julia153_bitcast.py checks how BITCAST renders for KernelAbstractions."""
from __future__ import annotations

import numpy as np
import pytest
import tack

from tests.kernels.bitcast import bits32

F32_BITS = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 1, 0x80000001, 0x007FFFFF,
                     0x00800000, 0x3F800000, 0x7F7FFFFF, 0x7FC00000, 0x7FC00001, 0xFFC12345,
                     0x7F800001, 0xFFA00000, 0x12345678], np.uint32)
F64_BITS = np.array([0, 1 << 63, 0x7FF0000000000000, 0xFFF0000000000000, 1, 0x000FFFFFFFFFFFFF,
                     0x7FF8000000000001, 0xFFF4000000000000, 0x7FF0000000000001,
                     0x3FF0000000000000, 0x0123456789ABCDEF], np.uint64)


@tack.kernel
def bits64(x, u, i, back):
    for j in range(x.shape[0]):
        b = tack.bitcast(x[j], tack.u64)
        u[j] = b
        i[j] = tack.bitcast(x[j], tack.i64)
        back[j] = tack.bitcast(b, tack.f64)


def _patterns(rng, bits, dtype):
    rand = rng.integers(0, 2 ** 63, 4000, dtype=np.int64).astype(dtype)
    if dtype == np.uint32:
        rand = rand ^ (rand >> np.uint32(7)) << np.uint32(1)
    return np.concatenate([bits, rand])


@pytest.mark.parametrize("width", [32, 64])
def test_float_bits_round_trip(engine, width):
    """f32 ↔ u32/i32 and f64 ↔ u64/i64: every bit kept, NaN payloads and signaling NaNs too."""
    udt, idt, fdt = ((np.uint32, np.int32, np.float32) if width == 32 else
                     (np.uint64, np.int64, np.float64))
    bits = _patterns(np.random.default_rng(width), F32_BITS if width == 32 else F64_BITS, udt)
    x = bits.view(fdt)
    u = tack.zeros(len(x), tack.u32 if width == 32 else tack.u64)
    i = tack.zeros(len(x), tack.i32 if width == 32 else tack.i64)
    back = tack.zeros(len(x), tack.f32 if width == 32 else tack.f64)
    (bits32 if width == 32 else bits64)(tack.array(x), u, i, back)
    np.testing.assert_array_equal(u.numpy(), bits)
    np.testing.assert_array_equal(i.numpy(), bits.view(idt))
    np.testing.assert_array_equal(back.numpy().view(udt), bits)


@tack.kernel
def narrow(a8, b8, a16, b16):
    for j in range(a8.shape[0]):
        b8[j] = tack.bitcast(a8[j], tack.u8)
        b16[j] = tack.bitcast(a16[j], tack.u16)


def test_narrow_integers(engine):
    a8 = np.array([-128, -1, 0, 1, 127], np.int8)
    a16 = np.array([-32768, -1, 0, 1, 32767], np.int16)
    b8, b16 = tack.zeros(5, tack.u8), tack.zeros(5, tack.u16)
    narrow(tack.array(a8), b8, tack.array(a16), b16)
    np.testing.assert_array_equal(b8.numpy(), a8.view(np.uint8))
    np.testing.assert_array_equal(b16.numpy(), a16.view(np.uint16))


@tack.kernel
def folded(out, fout):
    for j in range(1):
        out[0] = tack.bitcast(1.5, tack.u32)  # a weak float literal is f32
        out[1] = tack.bitcast(tack.f32(-0.0), tack.u32)
        out[2] = tack.bitcast(tack.i32(-1), tack.u32)
        fout[0] = tack.bitcast(tack.u32(0x7FC00001), tack.f32)  # a NaN: not folded, kept
        fout[1] = tack.bitcast(tack.u32(1), tack.f32)


def test_constants_fold_to_the_same_bits(engine):
    out, fout = tack.zeros(3, tack.u32), tack.zeros(2, tack.f32)
    folded(out, fout)
    assert out.numpy().tolist() == [0x3FC00000, 0x80000000, 0xFFFFFFFF]
    assert fout.numpy().view(np.uint32).tolist() == [0x7FC00001, 1]


def test_the_ir_names_it():
    from tack.compiler import specialize
    from tack.ir.printer import expr_str
    from tack.ir.walk import iter_stmts, stmt_exprs

    kir = specialize(bits32, [tack.zeros(2, tack.f32), tack.zeros(2, tack.u32),
                              tack.zeros(2, tack.i32), tack.zeros(2, tack.f32)])
    text = " ".join(expr_str(x) for s in iter_stmts(kir.body) for x in stmt_exprs(s))
    assert "bitcast(" in text


@tack.kernel
def width_mismatch(x, out):
    for j in range(x.shape[0]):
        out[j] = tack.bitcast(x[j], tack.u64)


@tack.kernel
def not_a_dtype(x, out):
    for j in range(x.shape[0]):
        out[j] = tack.bitcast(x[j], 32)


@tack.kernel
def bool_target(x, out):
    for j in range(x.shape[0]):
        out[j] = tack.bitcast(x[j] > 0.0, tack.u8)


def test_widths_must_match():
    x = tack.zeros(4, tack.f32)
    with pytest.raises(TypeError, match=r"bitcast of f32 to u64: the widths differ \(32 and 64"
                       ) as ei:
        width_mismatch(x, tack.zeros(4, tack.u64))
    assert ei.value.loc is not None and ei.value.loc.line > 0
    assert "same width" in str(ei.value)


def test_target_must_be_a_number_dtype():
    x = tack.zeros(4, tack.f32)
    with pytest.raises(tack.UnsupportedSyntaxError, match="takes a value and a number dtype"):
        not_a_dtype(x, tack.zeros(4, tack.u32))
    with pytest.raises(TypeError, match="bitcast of bool"):
        bool_target(x, tack.zeros(4, tack.u8))


def test_host_call_names_itself():
    with pytest.raises(RuntimeError, match=r"bitcast\(\) can only be used inside"):
        tack.bitcast(1.0, tack.u32)
