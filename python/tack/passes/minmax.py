"""Float min/max reductions carried in integer keys, so that LLVM's loop vectorizer takes them.

A loop `m = max(m, x[j])` over f32 or f64 is a compare and a select per element (the CPU
printer's `minmax`: a NaN loses, and +0.0 beats -0.0), which LLVM's loop vectorizer does not
recognize as a reduction: the loop runs one element at a time, each trip waiting on the last.
Its intrinsics that it would recognize cannot stand in: `llvm.maxnum` leaves the zero tie open
and aborts llvmlite 0.50's LLVM in some reductions, `llvm.maximumnum`'s reduction ends in
`llvm.vector.reduce.fmax`, which leaves the tie open again (docs/performance.md).

Every float maps to an integer key with the floats' order: its bits, with the magnitude bits
flipped where the sign bit is set (IEEE 754's totalOrder, where -0.0 lies below +0.0). Such a
key orders the floats exactly as MIN/MAX do, NaNs aside; a NaN's key is the integer type's
lowest value for a MAX (and highest for a MIN), so it loses to every number. An integer
`smax`/`smin` reduction is one LLVM vectorizes, and since the CPU's float MIN/MAX are
commutative and associative on every engine (render/llvm/printer.py, `zero_tie`), any order of the elements
gives the bits of the scalar loop. So a loop whose body's only use of a float local `m` is
`m = max(m, e)` (or `max(e, m)`, `min`) becomes

    m.key = key(m)
    for ...:                                # the same trip, the same statements
        m.x = e
        m.key = max(m.key, key(m.x))        # an integer max
    m = m if m.key == NAN_KEY else value(m.key)

where `value` inverts `key` (the same flip). When every element is a NaN, `m` keeps its own
value, as the scalar fold `max(m, NaN) = m` does (of `max(e, m)` it would keep the last NaN
element: which NaN comes out is not specified, docs/language.md). The CPU printer declares
this rewrite (render/llvm/printer.py, `keyed_reductions`): it matters where loops vectorize.
"""
from __future__ import annotations

import dataclasses

from ..dtypes import DType, bool_, f32, f64, i32, i64
from ..ir import nodes as N
from ..ir.nodes import Expr, KernelIR
from ..ir.ops import Op
from ..ir.walk import blocks, iter_exprs, iter_stmts, map_stmts, stmt_roots
from .names import Names

_KEY = {f32: i32, f64: i64}


def keyed_minmax_reductions(k: KernelIR) -> KernelIR:
    """`k` with each float min/max reduction of a `for` loop carried in integer keys (above); `k`
    itself when it has none. `k` is not changed."""
    if not any(isinstance(s, N.For) and _reductions(s, k.locals) for s in iter_stmts(k.body)):
        return k
    locals_ = dict(k.locals)
    names = Names(locals_)
    body = map_stmts(k.body, lambda s: _rewrite(s, locals_, names))
    return dataclasses.replace(k, body=body, locals=locals_)


def _reductions(s: N.For, locals_: dict) -> dict[str, N.Assign]:
    """The float locals `m` of loop `s` whose only use in its body is one `m = max(m, e)` or
    `min` outside any loop nested in it, each with that statement."""
    found: dict[str, N.Assign] = {}
    for a in _own_assigns(s.body):
        t = locals_.get(a.name)
        v = a.value
        if t in _KEY and a.name != s.var and v.op in (Op.MIN, Op.MAX) and v.dtype is t \
                and _accumulates(v, a.name):
            found[a.name] = a
    if found:
        uses = _uses(s.body)
        found = {n: a for n, a in found.items() if uses.get(n) == 2}  # the assign, its read
    return found


def _own_assigns(body: list[N.Stmt]):
    """The assignments of `body`, in its `if`s too, not in loops nested in it."""
    for s in body:
        if isinstance(s, N.Assign):
            yield s
        elif isinstance(s, N.If):
            for b in blocks(s):
                yield from _own_assigns(b)


def _accumulates(v: Expr, name: str) -> bool:
    """Whether MIN/MAX `v` is of VAR `name` and an operand that does not read it."""
    a, b = v.args
    for acc, other in ((a, b), (b, a)):
        if acc.op is Op.VAR and acc.arg == name:
            return not any(x.op is Op.VAR and x.arg == name for x in iter_exprs(other))
    return False


def _uses(body: list[N.Stmt]) -> dict[str, int]:
    """Per local: its assignments (a `for` variable included) and reads in `body`."""
    n: dict[str, int] = {}
    for s in iter_stmts(body):
        name = s.name if isinstance(s, N.Assign) else s.var if isinstance(s, N.For) else None
        if name is not None:
            n[name] = n.get(name, 0) + 1
        for root in stmt_roots(s):
            for x in iter_exprs(root):
                if x.op is Op.VAR:
                    n[x.arg] = n.get(x.arg, 0) + 1
    return n


def _rewrite(s: N.Stmt, locals_: dict, names: Names):
    """`s` (its blocks already rewritten) with its reductions in keys, if it is such a loop."""
    if not isinstance(s, N.For):
        return s
    found = _reductions(s, locals_)
    if not found:
        return s
    before, after, swap = [], [], {}
    for name, a in found.items():
        t, loc = locals_[name], a.loc
        kt = _KEY[t]
        key, x = names.fresh(kt, f"{name}.key"), names.fresh(t, f"{name}.x")
        op = a.value.op
        before.append(N.Assign(loc, key, _key(_var(name, t, loc), op, kt, loc)))
        other = next(e for e in a.value.args if not (e.op is Op.VAR and e.arg == name))
        swap[id(a)] = [N.Assign(loc, x, other), N.Assign(loc, key, Expr(
            op, kt, (_var(key, kt, loc), _key(_var(x, t, loc), op, kt, loc)), loc=loc))]
        nan = Expr(Op.EQ, bool_, (_var(key, kt, loc), _nan_key(op, kt, loc)), loc=loc)
        back = Expr(Op.BITCAST, t, (_flip(_var(key, kt, loc), kt, loc),), loc=loc)
        after.append(N.Assign(loc, name, Expr(Op.SELECT, t, (nan, _var(name, t, loc), back),
                                              loc=loc)))
    body = map_stmts(s.body, lambda st: swap.get(id(st), st))
    return [*before, dataclasses.replace(s, body=body), *after]


def _var(name: str, t: DType, loc) -> Expr:
    return Expr(Op.VAR, t, (), name, loc)


def _const(v: int, t: DType, loc) -> Expr:
    return Expr(Op.CONST, t, (), v, loc)


def _nan_key(op: Op, kt: DType, loc) -> Expr:
    """A NaN's key: below every number's for MAX, above for MIN (each the key of a NaN)."""
    top = (1 << (kt.bits - 1)) - 1
    return _const(-top - 1 if op is Op.MAX else top, kt, loc)


def _flip(b: Expr, kt: DType, loc) -> Expr:
    """b with its magnitude bits flipped where its sign bit is set: float bits to key and back."""
    sign = Expr(Op.SHR, kt, (b, _const(kt.bits - 1, kt, loc)), loc=loc)
    mask = Expr(Op.AND_, kt, (sign, _const((1 << (kt.bits - 1)) - 1, kt, loc)), loc=loc)
    return Expr(Op.XOR, kt, (b, mask), loc=loc)


def _key(x: Expr, op: Op, kt: DType, loc) -> Expr:
    """The integer key of float VAR `x` for reduction `op` (MIN or MAX)."""
    bits = _flip(Expr(Op.BITCAST, kt, (x,), loc=loc), kt, loc)
    return Expr(Op.SELECT, kt, (Expr(Op.ISNAN, bool_, (x,), loc=loc), _nan_key(op, kt, loc),
                                bits), loc=loc)
