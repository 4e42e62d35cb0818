"""Op semantics on the CPU engine: hand-built final KernelIR for every op of ops.py (final IR
only) and every relevant dtype, checked against references computed independently here (Python big
ints for integer ops, NumPy for floats)."""
from __future__ import annotations

import ast
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from tack import dtypes as D
from tack.errors import RenderError, TackRuntimeError
from tack.ir.nodes import Assign, Barrier, For, If, Param, Scratch
from tack.ir.ops import FRONTEND_ONLY, WORKGROUP_OPS, Op
from tack.runtime.cpu.engine import CPUEngine

from tests.runtime import irbuild
from tests.runtime.irbuild import (
    FLOATS,
    INTS,
    C,
    E,
    L,
    T,
    arr,
    edge_ints,
    ints_array,
    kir,
    ld,
    run,
    st,
    wrap,
)

INT_BIN = {
    Op.ADD: lambda a, b, dt: a + b, Op.SUB: lambda a, b, dt: a - b,
    Op.MUL: lambda a, b, dt: a * b, Op.AND_: lambda a, b, dt: a & b,
    Op.OR_: lambda a, b, dt: a | b, Op.XOR: lambda a, b, dt: a ^ b,
    Op.MIN: lambda a, b, dt: min(a, b), Op.MAX: lambda a, b, dt: max(a, b),
    Op.IDIV: lambda a, b, dt: _tdiv(a, b), Op.IREM: lambda a, b, dt: a - b * _tdiv(a, b),
    Op.SHL: lambda a, b, dt: a << (b % dt.bits), Op.SHR: lambda a, b, dt: a >> (b % dt.bits),
}


def _tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


# ---- integer arithmetic -------------------------------------------------------------------------
@pytest.mark.parametrize("dt", INTS, ids=lambda d: d.name)
@pytest.mark.parametrize("op", list(INT_BIN), ids=lambda o: o.name)
def test_int_binary(engine, op, dt):
    a = edge_ints(dt)
    b = list(reversed(edge_ints(dt, seed=1)))
    if op in (Op.IDIV, Op.IREM):  # the IR guarantees: divisor neither 0 nor signed -1
        b = [x if x not in (0, -1) else 7 for x in b]
    if op in (Op.SHL, Op.SHR):  # the IR masks shift counts to [0, bits)
        b = [x % dt.bits for x in b]
    want = [wrap(INT_BIN[op](x, y, dt), dt) for x, y in zip(a, b)]
    xa, xb, out = ints_array(a, dt), ints_array(b, dt), np.zeros(len(a), dt.np)
    body = [st("o", E(op, dt, ld("a", dt), ld("b", dt)))]
    run(engine, kir(f"bin_{op.name}_{dt.name}", [arr("a", dt), arr("b", dt), arr("o", dt, 1)],
                    body), [xa, xb, out])
    assert [int(x) for x in out] == want


@pytest.mark.parametrize("dt", INTS, ids=lambda d: d.name)
@pytest.mark.parametrize("op", [Op.NEG, Op.ABS, Op.INVERT], ids=lambda o: o.name)
def test_int_unary(engine, op, dt):
    ref = {Op.NEG: lambda a: -a, Op.ABS: abs, Op.INVERT: lambda a: ~a}[op]
    a = edge_ints(dt)
    out = np.zeros(len(a), dt.np)
    run(engine, kir(f"un_{op.name}_{dt.name}", [arr("a", dt), arr("o", dt, 1)],
                    [st("o", E(op, dt, ld("a", dt)))]), [ints_array(a, dt), out])
    assert [int(x) for x in out] == [wrap(ref(x), dt) for x in a]


@pytest.mark.parametrize("edt", [D.u8, D.i32, D.u64, D.i64], ids=lambda d: d.name)
@pytest.mark.parametrize("dt", INTS, ids=lambda d: d.name)
def test_ipow(engine, dt, edt):
    base = edge_ints(dt, 20)
    exps = [0, 1, 2, 3, 5, 7, 8, 13, 31, 63, 64, 65, 127, 255]
    if edt.bits > 8:
        exps += [1000, 2**31 - 1] + ([2**40 + 3] if edt.bits == 64 else [])
    pairs = [(b, e) for b in base for e in exps]
    want = [wrap(pow(b % 2**dt.bits, e, 2**dt.bits), dt) for b, e in pairs]
    xa = ints_array([b for b, _ in pairs], dt)
    xe = ints_array([e for _, e in pairs], edt)
    out = np.zeros(len(pairs), dt.np)
    body = [st("o", E(Op.IPOW, dt, ld("a", dt), ld("e", edt)))]
    run(engine, kir(f"ipow_{dt.name}_{edt.name}", [arr("a", dt), arr("e", edt), arr("o", dt, 1)],
                    body), [xa, xe, out])
    assert [int(x) for x in out] == want


# ---- float arithmetic and math ------------------------------------------------------------------
def float_inputs(dt, n=200, lo=-50.0, hi=50.0, seed=3):
    rng = np.random.default_rng(seed)
    x = rng.uniform(lo, hi, n).astype(dt.np)
    special = np.array([0.0, -0.0, 1.0, -1.0, 0.5, np.inf, -np.inf, np.nan], dt.np)
    return np.concatenate([special, x])


FLOAT_BIN = {Op.ADD: np.add, Op.SUB: np.subtract, Op.MUL: np.multiply, Op.FDIV: np.divide,
             Op.FREM: np.fmod, Op.POW: np.power, Op.ATAN2: np.arctan2,
             Op.COPYSIGN: np.copysign}
EXACT = {Op.ADD, Op.SUB, Op.MUL, Op.FDIV, Op.FREM, Op.COPYSIGN, Op.NEG, Op.ABS, Op.FLOOR,
         Op.CEIL, Op.TRUNC, Op.SQRT}


def close(got, want, dt, op):
    if op in EXACT:
        np.testing.assert_array_equal(got, want)
    else:
        tol = 4e-6 if dt is D.f32 else 1e-13
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("op", list(FLOAT_BIN), ids=lambda o: o.name)
def test_float_binary(engine, op, dt):
    a = float_inputs(dt)
    b = np.roll(float_inputs(dt, seed=4), 3)
    if op is Op.POW:
        a, b = np.abs(a), b / 10
    out = np.zeros(len(a), dt.np)
    run(engine, kir(f"fbin_{op.name}_{dt.name}", [arr("a", dt), arr("b", dt), arr("o", dt, 1)],
                    [st("o", E(op, dt, ld("a", dt), ld("b", dt)))]), [a, b, out])
    with np.errstate(all="ignore"):
        close(out, FLOAT_BIN[op](a, b), dt, op)


FLOAT_UN = {Op.NEG: (np.negative, None), Op.ABS: (np.abs, None), Op.SQRT: (np.sqrt, (0, 100)),
            Op.EXP: (np.exp, (-20, 20)), Op.EXP2: (np.exp2, (-20, 20)),
            Op.LOG: (np.log, (1e-3, 1e3)), Op.LOG2: (np.log2, (1e-3, 1e3)),
            Op.LOG10: (np.log10, (1e-3, 1e3)), Op.SIN: (np.sin, (-10, 10)),
            Op.COS: (np.cos, (-10, 10)), Op.TAN: (np.tan, (-1.5, 1.5)),
            Op.ASIN: (np.arcsin, (-1, 1)), Op.ACOS: (np.arccos, (-1, 1)),
            Op.ATAN: (np.arctan, None), Op.SINH: (np.sinh, (-10, 10)),
            Op.COSH: (np.cosh, (-10, 10)), Op.TANH: (np.tanh, (-10, 10)),
            Op.FLOOR: (np.floor, None), Op.CEIL: (np.ceil, None), Op.TRUNC: (np.trunc, None)}


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("op", list(FLOAT_UN), ids=lambda o: o.name)
def test_float_unary(engine, op, dt):
    ref, rng = FLOAT_UN[op]
    a = float_inputs(dt, lo=rng[0], hi=rng[1]) if rng else float_inputs(dt)
    out = np.zeros(len(a), dt.np)
    run(engine, kir(f"fun_{op.name}_{dt.name}", [arr("a", dt), arr("o", dt, 1)],
                    [st("o", E(op, dt, ld("a", dt)))]), [a, out])
    with np.errstate(all="ignore"):
        close(out, ref(a), dt, op)


def test_fma_contraction_is_the_only_float_liberty(engine):
    # a*b + c may fuse (one rounding) but must not be reassociated: both results are accepted.
    dt = D.f64
    a, b, c = np.array([1 + 2**-30]), np.array([1 - 2**-30]), np.array([-1.0])
    out = np.zeros(1)
    body = [st("o", E(Op.ADD, dt, E(Op.MUL, dt, ld("a", dt), ld("b", dt)), ld("c", dt)))]
    run(engine, kir("fma", [arr("a", dt), arr("b", dt), arr("c", dt), arr("o", dt, 1)], body),
        [a, b, c, out])
    assert out[0] in (a[0] * b[0] + c[0], -(2.0**-60))


@pytest.mark.parametrize("dt", [D.f32, D.f64])
def test_muladd_rounds_once_where_the_cpu_has_fma(engine, dt):
    # Op.MULADD (passes/muladd.py) is llvm.fmuladd: one rounding on a CPU with FMA.
    import llvmlite.binding as llvm

    e = 2.0**-12 if dt is D.f32 else 2.0**-30
    a, b, c = (np.array([v], dt.np) for v in (1 + e, 1 - e, -1.0))
    out = np.zeros(1, dt.np)
    body = [st("o", E(Op.MULADD, dt, ld("a", dt), ld("b", dt), ld("c", dt)))]
    run(engine, kir("muladd", [arr("a", dt), arr("b", dt), arr("c", dt), arr("o", dt, 1)], body),
        [a, b, c, out])
    fused = -(e * e)
    assert out[0] in (a[0] * b[0] + c[0], fused)
    if llvm.get_host_cpu_features().get("fma"):
        assert out[0] == fused


# ---- comparisons, logic, selection --------------------------------------------------------------
CMP = {Op.LT: np.less, Op.LE: np.less_equal, Op.GT: np.greater, Op.GE: np.greater_equal,
       Op.EQ: np.equal, Op.NE: np.not_equal}


@pytest.mark.parametrize("dt", INTS + FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("op", list(CMP), ids=lambda o: o.name)
def test_compare(engine, op, dt):
    if dt.is_float:
        a, b = float_inputs(dt, 40), np.roll(float_inputs(dt, 40), 1)
        a[-5:] = b[-5:]  # some equal pairs
    else:
        a = ints_array(edge_ints(dt, 30), dt)
        b = ints_array(edge_ints(dt, 30, seed=9), dt)
        b[::4] = a[::4]
    out = np.zeros(len(a), np.int32)
    cmp = E(op, D.bool_, ld("a", dt), ld("b", dt))
    run(engine, kir(f"cmp_{op.name}_{dt.name}", [arr("a", dt), arr("b", dt), arr("o", D.i32, 1)],
                    [st("o", E(Op.CAST, D.i32, cmp))]), [a, b, out])
    np.testing.assert_array_equal(out, CMP[op](a, b).astype(np.int32))


def test_isnan(engine):
    for dt in FLOATS:
        a = float_inputs(dt, 10)
        out = np.zeros(len(a), np.uint8)
        body = [st("o", E(Op.CAST, D.u8, E(Op.ISNAN, D.bool_, ld("a", dt))))]
        run(engine, kir(f"isnan_{dt.name}", [arr("a", dt), arr("o", D.u8, 1)], body), [a, out])
        np.testing.assert_array_equal(out, np.isnan(a))


def _bools(name):
    return E(Op.NE, D.bool_, ld(name, D.i32), C(0, D.i32))


@pytest.mark.parametrize("op", [Op.LAND, Op.LOR, Op.NOT, Op.AND_, Op.OR_, Op.XOR, Op.EQ, Op.NE],
                         ids=lambda o: o.name)
def test_bool_logic(engine, op):
    a = np.array([0, 0, 1, 1, 5, -3], np.int32)
    b = np.array([0, 2, 0, 7, 0, 1], np.int32)
    args = (_bools("a"),) if op is Op.NOT else (_bools("a"), _bools("b"))
    out = np.zeros(len(a), np.int32)
    body = [st("o", E(Op.CAST, D.i32, E(op, D.bool_, *args)))]
    run(engine, kir(f"logic_{op.name}", [arr("a", D.i32), arr("b", D.i32), arr("o", D.i32, 1)],
                    body), [a, b, out])
    x, y = a != 0, b != 0
    want = {Op.LAND: x & y, Op.LOR: x | y, Op.NOT: ~x, Op.AND_: x & y, Op.OR_: x | y,
            Op.XOR: x ^ y, Op.EQ: x == y, Op.NE: x != y}[op]
    np.testing.assert_array_equal(out, want.astype(np.int32))


@pytest.mark.parametrize("op", [Op.SELECT, Op.IFEXP], ids=lambda o: o.name)
@pytest.mark.parametrize("dt", [D.i8, D.u64, D.f32, D.f64], ids=lambda d: d.name)
def test_select(engine, op, dt):
    c = np.array([0, 1, 1, 0, 3], np.int32)
    a = np.arange(5).astype(dt.np)
    b = (np.arange(5) + 10).astype(dt.np)
    out = np.zeros(5, dt.np)
    body = [st("o", E(op, dt, _bools("c"), ld("a", dt), ld("b", dt)))]
    run(engine, kir(f"sel_{op.name}_{dt.name}", [arr("c", D.i32), arr("a", dt), arr("b", dt),
                                                  arr("o", dt, 1)], body), [c, a, b, out])
    np.testing.assert_array_equal(out, np.where(c != 0, a, b))


def test_lazy_ops_do_not_evaluate_the_other_arm(tmp_path):
    """LAND/LOR/IFEXP guard a load 2**40 elements out of bounds: evaluated, it would crash.
    (O3 could hide an eager rendering by sinking the load; test_llvm.py checks the rendering.)"""
    script = textwrap.dedent(f"""
        import sys; sys.path[:0] = {sys.path!r}
        import numpy as np
        from tack import dtypes as D
        from tack.ir.nodes import Expr, KernelIR, Loc, Param, Store
        from tack.ir.ops import Op
        from tack.runtime.cpu.engine import CPUEngine
        L = Loc("t.py", 1, 1, 1, 2)
        E = lambda op, dt, *a, arg=None: Expr(op, dt, a, arg, L)
        T = E(Op.LAUNCH, D.i64)
        far = E(Op.LOAD, D.i32, E(Op.CONST, D.i64, arg=2**40), arg="a")
        bad = E(Op.NE, D.bool_, far, E(Op.CONST, D.i32, arg=0))
        a0 = E(Op.LOAD, D.i32, E(Op.CONST, D.i64, arg=0), arg="a")  # 0, known only at run time
        zero = E(Op.CONST, D.i32, arg=0)
        f, t = E(Op.NE, D.bool_, a0, zero), E(Op.EQ, D.bool_, a0, zero)
        vals = [E(Op.LAND, D.bool_, f, bad), E(Op.LOR, D.bool_, t, bad),
                E(Op.IFEXP, D.bool_, t, f, bad), E(Op.IFEXP, D.bool_, f, bad, t)]
        body = [Store(L, "o", (E(Op.CONST, D.i64, arg=k),), E(Op.CAST, D.i32, v))
                for k, v in enumerate(vals)]
        P = [Param("a", "array", D.i32, 1), Param("o", "array", D.i32, 1, written=True)]
        a, o = np.zeros(1, np.int32), np.full(4, 9, np.int32)
        CPUEngine(1).compile(KernelIR("lazy", P, body, {{}}, L)).launch(
            [a.ctypes.data, o.ctypes.data], 1)
        print(o.tolist())
    """)
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, check=False)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[0, 1, 0, 1]"


# ---- casts --------------------------------------------------------------------------------------
ALL = INTS + FLOATS + (D.bool_,)


def cast_inputs(src, dst):
    """Source values whose conversion the contract defines (float → int only when in range)."""
    if src is D.bool_:
        return [False, True, True, False]
    if src.is_int:
        return edge_ints(src, 30)
    vals = [0.0, -0.0, 0.5, -0.5, 1.75, -1.75, 100.25, -100.9, 3e5 + 0.5, 1e-30, 1e30,
            math.inf, -math.inf, math.nan, 2.0**40 + 0.5, 2.0**63, -(2.0**63)]
    if dst.is_int:  # float → int: only values representable after truncation toward zero
        vals = [v for v in vals if math.isfinite(v) and dst.min() <= math.trunc(v) <= dst.max()]
    return [float(np.array(v).astype(src.np)) for v in vals]


def cast_ref(v, src, dst):
    if dst is D.bool_:
        return bool(v)
    if dst.is_int:
        return wrap(math.trunc(v) if src.is_float else int(v), dst)
    if src is D.bool_:
        return float(v)
    return np.array([v], src.np).astype(dst.np)[0]  # NumPy's own conversion


@pytest.mark.parametrize("dst", ALL, ids=lambda d: d.name)
@pytest.mark.parametrize("src", ALL, ids=lambda d: d.name)
def test_cast(engine, src, dst):
    vals = cast_inputs(src, dst)
    if not vals:
        pytest.skip("no representable inputs")
    sdt = D.u8 if src is D.bool_ else src  # bools travel as u8 arrays
    odt = D.u8 if dst is D.bool_ else dst
    src_val = ld("a", sdt)
    if src is D.bool_:
        src_val = E(Op.NE, D.bool_, src_val, C(0, D.u8))
    val = E(Op.CAST, dst, src_val)
    if dst is D.bool_:
        val = E(Op.CAST, D.u8, val)
    xa = np.array(vals, dtype=object).astype(sdt.np)
    out = np.zeros(len(vals), odt.np)
    run(engine, kir(f"cast_{src.name}_{dst.name}", [arr("a", sdt), arr("o", odt, 1)],
                    [st("o", val)]), [xa, out])
    want = [cast_ref(v, src, dst) for v in vals]
    if dst.is_float:
        np.testing.assert_array_equal(out, np.array(want, dst.np))
    else:
        assert [int(x) for x in out] == [int(w) for w in want]



def test_var_and_param(engine):
    """A local set from a scalar parameter, read back through VAR."""
    body = [Assign(L, "v", E(Op.ADD, D.i16, E(Op.PARAM, D.i16, arg="s"), C(1, D.i16))),
            st("o", E(Op.VAR, D.i16, arg="v"))]
    out = np.zeros(3, np.int16)
    run(engine, kir("var_param", [Param("s", "scalar", D.i16), arr("o", D.i16, True)], body,
                    {"v": D.i16}), [out], scalars=[32767])
    assert out.tolist() == [-32768] * 3


def test_missing_op_raises_render_error(engine):
    bad = kir("bad", [arr("a", D.f32), arr("o", D.f32, True)],
              [st("o", E(Op.CAST, D.f32, E(Op.SQRT, D.i32, C(4, D.i32))))])
    with pytest.raises(RenderError, match=r"t.py:1:1: .*SQRT on i32"):
        engine.compile(bad)


# ---- atomics, scratch arrays, workgroups --------------------------------------------------------
@pytest.mark.parametrize("dt", INTS + FLOATS, ids=lambda d: d.name)
def test_atomic_add_claims_distinct_slots(engine, dt):
    """slot = atomic_add(count, 0, 1); seen[slot] = t + 1: every launch index gets its own slot."""
    n = 120 if dt.bits == 8 else 3000
    old = E(Op.ATOMIC_ADD, dt, C(0), C(1, dt), arg="count")
    body = [Assign(L, "slot", E(Op.CAST, D.i64, old)),
            st("seen", E(Op.ADD, D.i64, T, C(1)), E(Op.VAR, D.i64, arg="slot"))]
    count, seen = np.zeros(1, dt.np), np.zeros(n, np.int64)
    run(engine, kir(f"atomic_add_{dt.name}", [arr("count", dt, True), arr("seen", D.i64, True)],
                    body, {"slot": D.i64}), [count, seen], n=n)
    assert count[0] == n and sorted(seen.tolist()) == list(range(1, n + 1))


@pytest.mark.parametrize("dt", INTS + FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("op", [Op.ATOMIC_MIN, Op.ATOMIC_MAX], ids=lambda o: o.name)
def test_atomic_min_max(engine, op, dt):
    if dt.is_float:  # portable for finite non-zero values only
        vals = np.random.default_rng(5).uniform(-1e3, 1e3, 2000).astype(dt.np)
        start = 7.5
    else:
        vals = ints_array(edge_ints(dt, 2000), dt)
        start = dt.min() // 2 + dt.max() // 2
    cell, olds = np.array([start], dt.np), np.zeros(len(vals), dt.np)
    body = [st("olds", E(op, dt, C(0), ld("v", dt), arg="cell"))]
    run(engine, kir(f"{op.name}_{dt.name}", [arr("cell", dt, True), arr("v", dt),
                                               arr("olds", dt, True)], body), [cell, vals, olds],
        n=len(vals))
    pick = min if op is Op.ATOMIC_MIN else max
    final = pick(pick(vals.tolist()), start)
    assert cell[0] == final
    assert all(pick(o, final) == final for o in olds.tolist())  # old values only move one way
    assert start in olds.tolist()  # exactly one launch index saw the initial value first


def test_local_scratch_array(engine):
    """A per-iteration f64[8]: filled with t*k, read back in reverse."""
    f64, i64 = D.f64, D.i64
    k = E(Op.VAR, i64, arg="k")
    body = [For(L, "k", C(0), C(8), None,
                [st("buf", E(Op.MUL, f64, E(Op.CAST, f64, T), E(Op.CAST, f64, k)), k)]),
            Assign(L, "s", C(0.0, f64)),
            For(L, "k", C(0), C(8), None,
                [Assign(L, "s", E(Op.ADD, f64, E(Op.VAR, f64, arg="s"),
                                  E(Op.MUL, f64, ld("buf", f64, E(Op.SUB, i64, C(7), k)),
                                    E(Op.CAST, f64, k))))]),
            st("o", E(Op.VAR, f64, arg="s"))]
    out = np.zeros(1000)
    run(engine, kir("scratch", [arr("o", f64, True)], body, {"k": i64, "s": f64},
                    [Scratch("buf", f64, 8, "local")]), [out])
    want = [sum(t * (7 - j) * j for j in range(8)) for t in range(1000)]
    assert out.tolist() == want


@pytest.mark.parametrize("what", ["shared", "barrier", "thread_id"])
def test_workgroup_kernels_are_rejected_before_rendering(engine, what):
    scratch, body = [], [st("o", C(1, D.i32))]
    if what == "shared":
        scratch = [Scratch("sh", D.i32, 256, "shared")]
    elif what == "barrier":
        body.append(Barrier(L))
    else:  # even in an index, and unreachable
        body = [If(L, C(False, D.bool_), [st("o", C(1, D.i32), E(Op.CAST, D.i64,
                                                                 E(Op.THREAD_ID, D.i32)))], [])]
    k = kir("wg", [arr("o", D.i32, True)], body, scratch=scratch)
    with pytest.raises(TackRuntimeError, match=rf"Kernel 'wg' failed on CPUBackend: CPU backend "
                                               rf"does not support workgroup execution required "
                                               rf"by {what}; use tack.local_array"):
        engine.compile(k)


def test_rsqrt_op():
    """RSQRT (fastmath kernels only): 1/sqrt to within the approximation LLVM may pick."""
    x = np.array([4.0, 2.0, 0.25, 1e-3, 3e5], np.float32)
    out = np.zeros_like(x)
    k = kir("rs", [arr("x", D.f32), arr("o", D.f32, True)],
            [st("o", E(Op.RSQRT, D.f32, ld("x", D.f32)))])
    k.notes["fastmath"] = True
    run(CPUEngine(num_threads=1), k, [x, out])
    np.testing.assert_allclose(out, 1 / np.sqrt(x.astype(np.float64)), rtol=1e-5)


def test_print_op(capfd):
    """PRINT: pieces and values of every kind, one line per launch index, flushed at once."""
    from tack.ir.nodes import ExprStmt

    eng = CPUEngine(num_threads=1)
    val = E(Op.PRINT, D.i32, ld("a", D.f32), E(Op.CAST, D.u8, C(-1, D.i32)),
            E(Op.CAST, D.f64, C(0.5, D.f32)), arg=("x", None, "100%", None, None))
    k = kir("prints", [arr("a", D.f32)], [ExprStmt(L, val)])
    run(eng, k, [np.array([1.5, -3.0], np.float32)])
    assert capfd.readouterr().out == "x 1.5 100% 255 0.5\nx -3 100% 255 0.5\n"


def test_bitcast_op():
    """BITCAST: the bits unchanged both ways, NaN payloads, -0.0 and subnormals included."""
    bits = np.array([0x7FC00001, 0xFFA00000, 0x80000000, 1, 0x3F800000], np.uint32)
    x, out, back = bits.view(np.float32), np.zeros(5, np.uint32), np.zeros(5, np.float32)
    k = kir("bc", [arr("x", D.f32), arr("o", D.u32, True), arr("b", D.f32, True)],
            [st("o", E(Op.BITCAST, D.u32, ld("x", D.f32))),
             st("b", E(Op.BITCAST, D.f32, E(Op.BITCAST, D.i32, ld("x", D.f32))))])
    run(CPUEngine(num_threads=1), k, [x, out, back])
    np.testing.assert_array_equal(out, bits)
    np.testing.assert_array_equal(back.view(np.uint32), bits)


def test_every_final_op_is_tested():
    """Every op of the final IR is one that a test of tests/runtime builds (the workgroup ops
    are GPU-only: the CPU engine rejects them, tested above). Read from the tests' source, so
    it holds whichever tests run in this process."""
    built = set()
    for path in [*Path(__file__).parent.glob("test_*.py"), Path(irbuild.__file__)]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and getattr(node.value, "id", None) == "Op":
                built.add(node.attr)
    want = {op.name for op in set(Op) - FRONTEND_ONLY - WORKGROUP_OPS}
    assert want - built == set()

