"""passes/simplify.py's identities: every operation of one constant and one value that it drops
is, by NumPy on awkward values of each dtype (both signed zeros, infinities, NaN, the integer
extremes), the value itself, and every such operation that NumPy says is the value is dropped
(so a missing identity fails too, not only a wrong one); the IR printed for a small kernel holds
no `+ 0`, `- 0` or `* 1` in its index arithmetic, and the kernel still computes NumPy's result
on every engine over awkward shapes."""
from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
import tack
import tack.dtypes as dt
from tack.ir.nodes import Expr, Loc
from tack.ir.ops import Op
from tack.passes.simplify import simplify_expr

LOC = Loc("k.py", 1, 1, 1, 2)
INTS = [dt.i8, dt.u8, dt.i32, dt.u32, dt.i64, dt.u64]
FLOATS = [dt.f32, dt.f64]

# NumPy's own operation for each op (integer division by truncation, as ir/ops.py's IDIV)
NUMPY = {
    Op.ADD: np.add, Op.SUB: np.subtract, Op.MUL: np.multiply, Op.FDIV: np.divide,
    Op.IDIV: lambda a, b: _truncating_division(a, b),
    Op.OR_: np.bitwise_or, Op.XOR: np.bitwise_xor, Op.AND_: np.bitwise_and,
    Op.SHL: lambda a, b: np.left_shift(a, b % (8 * a.itemsize)),
    Op.SHR: lambda a, b: np.right_shift(a, b % (8 * a.itemsize)),
}


def _truncating_division(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a / b rounded toward zero by Python ints, wrapped to the dtype; 0 where b is 0 (a value
    no identity gives)."""
    def q(p: int, d: int) -> int:
        return 0 if d == 0 else (abs(p) // abs(d)) * (1 if (p < 0) == (d < 0) else -1)

    out = [q(int(p), int(d)) % (1 << (8 * a.itemsize)) for p, d in zip(a, b)]
    return np.array(out, np.uint64).astype(a.dtype)


INT_OPS = [Op.ADD, Op.SUB, Op.MUL, Op.IDIV, Op.OR_, Op.XOR, Op.AND_, Op.SHL, Op.SHR]
FLOAT_OPS = [Op.ADD, Op.SUB, Op.MUL, Op.FDIV]


def _values(t) -> np.ndarray:
    if t.kind == "f":
        f = np.finfo(t.np)
        return np.array([0.0, -0.0, 1.0, -1.0, 0.5, -3.25, f.tiny, -f.tiny / 4, f.max, -f.max,
                         np.inf, -np.inf, np.nan], t.np)
    i = np.iinfo(t.np)
    return np.array(sorted({0, 1, 2, 7, 100, i.max, i.max - 1, i.min, i.min + 1,
                            i.min // 3}), t.np)


def _consts(t) -> list:
    if t.kind == "f":
        return [0.0, -0.0, 1.0, -1.0, 2.0]
    return [int(v) for v in np.array([0, 1, -1, 2], np.int64).astype(t.np)]


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit for bit, a NaN matching any NaN (its signalling bit is no identity's business)."""
    if a.dtype.kind == "f":
        return bool(np.all((a.view(f"u{a.itemsize}") == b.view(f"u{b.itemsize}"))
                           | (np.isnan(a) & np.isnan(b))))
    return bool(np.array_equal(a, b))


def _cases():
    for t, ops in itertools.chain(((t, INT_OPS) for t in INTS), ((t, FLOAT_OPS) for t in FLOATS)):
        for op, c, side in itertools.product(ops, _consts(t), (0, 1)):
            yield t, op, c, side


def _ids():
    return [f"{t.name}-{op.name}-{c!r}-{'left' if side == 0 else 'right'}"
            for t, op, c, side in _cases()]


@pytest.mark.parametrize("t, op, c, side", list(_cases()), ids=_ids())
def test_an_identity_is_dropped_exactly_where_numpy_says_it_holds(t, op, c, side):
    x = Expr(Op.VAR, t, (), "x", LOC)
    const = Expr(Op.CONST, t, (), c, LOC)
    args = (const, x) if side == 0 else (x, const)
    folded = simplify_expr(Expr(op, t, args, None, LOC)) is x
    v = _values(t)
    k = np.full_like(v, c)
    with np.errstate(all="ignore"):
        got = NUMPY[op](k, v) if side == 0 else NUMPY[op](v, k)
    holds = _same(np.asarray(got, t.np), v)
    assert folded == holds, ("dropped although NumPy gives another value" if folded else
                             "kept although NumPy gives the value itself")


@tack.kernel
def _gather(x, y, n):
    for i in range(n):
        y[i, 0] = x[i, 1] + x[i, 0] * 1.0 - 0.0


def _printed_ir(*args) -> str:
    return tack.inspect(_gather, *args, mode="ir")


def test_the_index_arithmetic_holds_no_identity():
    """`y[i, 0]` was printed as `y[(i * 3 + 0)]` and `x[i, 0] * 1.0` kept its multiply."""
    tack.set_default_device("cpu")
    text = _printed_ir(tack.zeros((5, 3)), tack.zeros((5, 3)), 5)
    body = [line for line in text.splitlines() if "] =" in line]
    assert body, text
    for line in body:
        assert not re.search(r"[-+] 0(\.0)?:|\* 1(\.0)?:|\b0(\.0)?:\w+ \+", line), line


@pytest.mark.parametrize("rows, cols, strided", [(1, 2, False), (7, 3, False), (13, 5, True),
                                                 (31, 2, True)])
def test_the_simplified_kernel_computes_numpys_result(engine, rows, cols, strided):
    rng = np.random.default_rng(rows)
    xs = rng.standard_normal((rows, 2 * cols if strided else cols)).astype(np.float32)
    xs[0, 0] = -0.0  # -0.0 * 1.0 - 0.0 stays -0.0 (then + x[0, 1])
    host = xs[:, ::2] if strided else xs  # a strided view: tack.array copies it
    x = tack.array(host)
    y = tack.zeros((rows, cols))
    _gather(x, y, rows)
    want = np.zeros((rows, cols), np.float32)
    want[:, 0] = host[:, 1] + host[:, 0]
    assert np.array_equal(y.numpy().view(np.uint32), want.view(np.uint32))
