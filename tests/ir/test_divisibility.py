"""passes/divisibility.py: the powers of two it proves divide an expression, rule by rule, checked
against every value the expression takes (Python integers, two's complement wrapping), and the
locals' facts over a kernel's assignments and loops, cycles included; the aligned groups of
neighbouring accesses that the NVPTX printer's aligned entry looks for."""
import itertools

import pytest
import tack
from tack import dtypes as dt
from tack.compiler import specialize
from tack.ir import nodes as N
from tack.ir.nodes import Expr
from tack.ir.ops import Op
from tack.passes.divisibility import CAP, aligned_access_bytes, divisor, local_divisors

LOC = N.Loc("k.py", 1, 1, 1, 2)
I32, I64 = dt.i32, dt.i64


def c(v, t=I32):
    return Expr(Op.CONST, t, (), v, LOC)


def var(name, t=I32):
    return Expr(Op.VAR, t, (), name, LOC)


def op(o, *args, t=I32):
    return Expr(o, t, tuple(args), None, LOC)


def _wrap(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _value(e: Expr, env: dict) -> int:
    """The value of `e` for the local values `env`, wrapped to its dtype."""
    if e.op is Op.CONST:
        return e.arg
    if e.op is Op.VAR:
        return env[e.arg]
    a = [_value(x, env) for x in e.args]
    f = {Op.ADD: lambda x, y: x + y, Op.SUB: lambda x, y: x - y, Op.MUL: lambda x, y: x * y,
         Op.SHL: lambda x, y: x << y, Op.AND_: lambda x, y: x & y, Op.NEG: lambda x: -x,
         Op.CAST: lambda x: x, Op.MIN: min, Op.MAX: max,
         Op.SELECT: lambda p, x, y: x if p else y}[e.op]
    return _wrap(f(*a), e.dtype.bits)


CASES = [
    (c(40), 8), (c(0), CAP), (c(-24), 8),
    (op(Op.MUL, var("x"), c(40)), 8),
    (op(Op.ADD, op(Op.MUL, var("x"), c(40)), c(16)), 8),
    (op(Op.ADD, op(Op.MUL, var("x"), c(40)), c(4)), 4),
    (op(Op.SUB, op(Op.SHL, var("x"), c(4)), c(48)), 16),
    (op(Op.AND_, var("x"), c(-8)), 8),
    (op(Op.NEG, op(Op.MUL, var("x"), c(12))), 4),
    (op(Op.SELECT, var("p"), op(Op.MUL, var("x"), c(8)), c(24)), 8),
    (op(Op.MIN, c(32), op(Op.MUL, var("x"), c(64))), 32),
    (op(Op.CAST, op(Op.MUL, var("x"), c(1 << 20)), t=I64), 1 << 16),  # capped
    (op(Op.MUL, op(Op.MUL, var("x"), c(1 << 12)), c(1 << 12)), CAP),
    (op(Op.ADD, var("x"), c(8)), 1),
]


@pytest.mark.parametrize("e, want", CASES, ids=[str(i) for i in range(len(CASES))])
def test_each_rule(e, want):
    assert divisor(e, {}) == want
    proven = min(want, CAP)
    for x, p in itertools.product([-(1 << 31), -77, -1, 0, 1, 3, 5, 1 << 30, (1 << 31) - 1],
                                  [0, 1]):
        assert _value(e, {"x": x, "p": p}) % proven == 0 or proven == 1, (x, p)


def test_locals_over_assignments_loops_and_cycles():
    body = [
        N.Assign(LOC, "a", c(0)),
        N.For(LOC, "k", c(0), var("n"), c(1), [
            N.Assign(LOC, "a", op(Op.ADD, var("a"), c(8))),  # a cycle: 0, 8, 16, ... keeps 8
            N.Assign(LOC, "b", op(Op.MUL, var("k"), c(32))),
            N.Assign(LOC, "d", op(Op.ADD, var("a"), var("b"))),
            N.Assign(LOC, "e", op(Op.ADD, var("a"), var("k"))),  # the loop variable: 1
        ]),
        N.Assign(LOC, "b", c(48)),  # another assignment: the smaller fact, 16
    ]
    k = N.KernelIR("k", [], body, {}, LOC)
    assert local_divisors(k) == {"a": 8, "k": 1, "b": 16, "d": 8, "e": 1}


@tack.kernel
def _steps(x, y, n, stride):
    for i in range(n):
        for v in tack.unroll(range(8)):  # a group of 8 neighbours from a multiple of 8
            y[i * 8 + v] = x[i * 8 + v]


@tack.kernel
def _narrow_steps(x, y, n, stride):
    for i in range(n):
        for v in tack.unroll(range(8)):  # from a multiple of 4 only: groups of 4
            y[i * 4 + v] = x[i * 4 + v]


@tack.kernel
def _runtime_stride(x, y, n, stride):
    for i in range(n):
        for v in tack.unroll(range(8)):  # a stride passed in: nothing is known
            y[i * stride + v] = x[i * stride + v]


@tack.kernel
def _no_groups(x, y, n, stride):
    for i in range(n):
        y[i * 8] = x[i * 8]  # aligned, but one element: nothing to merge


@pytest.mark.parametrize("kernel, dtype, want", [
    (_steps, tack.f16, 16), (_steps, tack.f32, 16), (_steps, tack.f64, 16),
    (_narrow_steps, tack.f16, 8), (_narrow_steps, tack.f32, 16),
    (_runtime_stride, tack.f32, 1), (_no_groups, tack.f64, 1)],
    ids=lambda v: getattr(v, "name", str(v)))
def test_aligned_access_bytes(kernel, dtype, want):
    tack.set_default_device("cpu")  # specialization only: nothing runs
    k = specialize(kernel, [tack.zeros(64, dtype), tack.zeros(64, dtype), 4, 8])
    assert aligned_access_bytes(k) == want
