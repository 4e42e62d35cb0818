"""Sequential `range` loops → unit-step loops whose variable the body does not assign.

Python evaluates range's arguments once and the body cannot change the iteration; a loop with a
step other than 1, or whose body assigns its variable, gets a hidden counter over the trip count.
The trip count is computed in i64; the counter is u32 when the variable has 32 bits or fewer (its
range holds at most 2^32 - 1 values), so a GPU keeps one register for it, not two (the tiled
n-body's outer loop needed 33 registers with an i64 counter, and 32 give full occupancy).
"""
from __future__ import annotations

from .. import dtypes as dt
from ..ir import nodes as N
from ..ir.ops import Op
from ..ir.walk import iter_stmts, map_stmts
from .build import B
from .names import Names


def normalize_loops(body, locals_: dict) -> list[N.Stmt]:
    """Bottom-up, so an inner loop's hidden names are numbered before its outer loop's."""
    fresh = Names(locals_).fresh
    return map_stmts(body, lambda s: _normalize(s, fresh) if isinstance(s, N.For) else s)


def _assigns(body, name: str) -> bool:
    return any(isinstance(s, (N.Assign, N.For)) and getattr(s, "name", getattr(s, "var", None))
               == name for s in iter_stmts(body))


def _normalize(s: N.For, fresh) -> list[N.Stmt]:
    unit = s.step is None or (s.step.op is Op.CONST and s.step.arg == 1)
    if unit and not _assigns(s.body, s.var):
        return [N.For(s.loc, s.var, s.start, s.stop, None, s.body, unroll=s.unroll)]
    k = B(s.loc)
    t = s.start.dtype
    step = s.step if s.step is not None else k.const(1, t)
    ct = dt.u32 if t.bits <= 32 else dt.i64  # the counter's type
    n, c = fresh(ct, "trips"), fresh(ct, "k")
    pre = []

    def once(e, prefix):  # range() evaluates its arguments once, at loop entry
        e = k.cast(e, dt.i64)
        if e.op is Op.CONST:
            return lambda _: e
        name = fresh(dt.i64, prefix)
        pre.append(N.Assign(s.loc, name, e))
        return lambda _: N.Expr(Op.VAR, dt.i64, (), name, s.loc)

    v0 = once(s.start, "start")
    stop = k.cast(s.stop, dt.i64)
    st = once(step, "step")
    var = lambda f: f(None)
    zero, one = k.const(0, dt.i64), k.const(1, dt.i64)

    def trips(span, stp):  # ceil(max(span, 0) / stp) for stp > 0
        span = k.op(Op.MAX, dt.i64, span, zero)
        return k.bin(Op.IDIV, k.bin(Op.SUB, k.bin(Op.ADD, span, stp), one), stp)

    up = trips(k.bin(Op.SUB, stop, var(v0)), k.sel(k.cmp(Op.GT, var(st), zero), var(st), one))
    down = trips(k.bin(Op.SUB, var(v0), stop),
                 k.sel(k.cmp(Op.LT, var(st), zero), k.op(Op.NEG, dt.i64, var(st)), one))
    count = k.sel(k.cmp(Op.GT, var(st), zero), up,
                  k.sel(k.cmp(Op.LT, var(st), zero), down, zero))
    pre.append(N.Assign(s.loc, n, k.cast(count, ct)))
    counter = k.cast(N.Expr(Op.VAR, ct, (), c, s.loc), dt.i64)
    head = N.Assign(s.loc, s.var, k.cast(k.bin(Op.ADD, var(v0), k.bin(Op.MUL, counter, var(st))),
                                         t))
    trips_var = N.Expr(Op.VAR, ct, (), n, s.loc)
    # The counted loop runs the same iterations in the same order: the unroll hint applies to it.
    return pre + [N.For(s.loc, c, k.const(0, ct), trips_var, None, [head] + s.body,
                        unroll=s.unroll)]
