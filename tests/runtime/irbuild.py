"""Building final KernelIR by hand and running it on the CPU engine: shared by the runtime
tests."""
from __future__ import annotations

import numpy as np
from tack import dtypes as D
from tack.ir.nodes import Expr, KernelIR, Loc, Param, Store
from tack.ir.ops import Op

L = Loc("t.py", 1, 1, 1, 2)
INTS = (D.i8, D.u8, D.i16, D.u16, D.i32, D.u32, D.i64, D.u64)
FLOATS = (D.f32, D.f64)


# ---- building kernels ---------------------------------------------------------------------------
def E(op, dt, *args, arg=None):
    return Expr(op, dt, args, arg, L)


def C(v, dt=D.i64):
    return E(Op.CONST, dt, arg=v)


T = Expr(Op.LAUNCH, D.i64, (), None, L)


def ld(name, dt, idx=T):
    return E(Op.LOAD, dt, idx, arg=name)


def arr(name, dt, written=False):
    return Param(name, "array", dt, 1, (None,), written)


def kir(name, params, body, locals_=None, scratch=()):
    return KernelIR(name, params, body, dict(locals_ or {}), L,
                    scratch={sc.name: sc for sc in scratch})


def st(name, value, idx=T):
    return Store(L, name, (idx,), value)


def run(engine, k, arrays, scalars=(), n=None, parallel=True):
    """Compile and launch; params are arrays first then scalars, in `k.params` order."""
    ck = engine.compile(k)
    if parallel and engine.num_threads > 1:
        ck.set_policy(n_par=2, grain=1)  # force the pool path even for tiny n
    args, it_a, it_s = [], iter(arrays), iter(scalars)
    for p in k.params:
        args.append(next(it_a).ctypes.data if p.kind == "array" else next(it_s))
    ck.launch(args, len(arrays[0]) if n is None else n)
    return ck

# ---- references ---------------------------------------------------------------------------------
def wrap(v: int, dt) -> int:
    v &= (1 << dt.bits) - 1
    return v - (1 << dt.bits) if dt.is_signed and v >> (dt.bits - 1) else v


def edge_ints(dt, n=64, seed=0):
    rng = np.random.default_rng(seed + dt.bits + dt.is_signed)
    edges = [dt.min(), dt.max(), 0, 1, dt.max() - 1, dt.min() + 1] + ([-1, -2] if dt.is_signed
                                                                          else [2, 3])
    rand = [int(x) for x in rng.integers(dt.min(), dt.max(), size=n, endpoint=True,
                                         dtype=dt.np)]
    return edges + rand


def ints_array(values, dt):
    return np.array(values, dtype=object).astype(dt.np)


# two whole kernels, for the launch tests
def saxpy_kir():
    f32 = D.f32
    return kir("saxpy", [Param("a", "scalar", f32), arr("x", f32), arr("y", f32, True)],
               [st("y", E(Op.ADD, f32, E(Op.MUL, f32, E(Op.PARAM, f32, arg="a"), ld("x", f32)),
                          ld("y", f32)))])


def iota_kir():
    return kir("iota", [arr("o", D.i64, True)], [st("o", E(Op.MUL, D.i64, T, C(3)))])
