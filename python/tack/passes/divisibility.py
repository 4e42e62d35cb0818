"""Which powers of two provably divide integer expressions of a kernel: what a renderer needs to
know that an address is aligned (render/llvm/ptx_ldmatrix.py: `ldmatrix` needs 16-byte
aligned row addresses, docs/language.md "Matrix multiply-accumulate"; render/llvm/ptx.py's
aligned entry looks for groups of neighbouring accesses that start at such an offset,
`aligned_access_bytes`, docs/design/004-cuda-engine.md "The aligned entry").

The facts hold for every value an expression can take, in every execution:
- a constant c: the largest power of two dividing it (0: every one, capped at `CAP`);
- a + b, a - b, select(c, a, b), min, max: the smaller of the two facts; a * b: their product;
  a << c (constant c): the fact times 2^c; a & c: the larger of a's fact and c's lowest set bit;
  a cast between integer types: its operand's (two's complement wrapping and truncation keep
  the low bits, and 2^k divides x exactly when x's k low bits are zero, for k below the width);
- a local: the smallest fact over every assignment to it anywhere in the kernel, a loop
  variable the smaller of its start's and step's (1 for the final IR's unit-step loops), by a
  flow-insensitive fixed point that starts from `CAP` and only lowers facts (so cycles such as
  `x = x + 8` after `x = 0` keep 8);
- anything else (parameters, lane ids, loads, divisions): 1.
"""
from __future__ import annotations

from ..ir import nodes as N
from ..ir.nodes import Expr, KernelIR
from ..ir.ops import Op
from ..ir.walk import iter_stmts, stmt_exprs

CAP = 1 << 16  # facts above this are not needed by anyone and are kept at it


def _low(c: int) -> int:
    """The largest power of two dividing `c` (CAP for 0)."""
    return min(c & -c, CAP) if c else CAP


def divisor(e: Expr, env: dict[str, int]) -> int:
    """The power of two that provably divides integer expression `e` (1 if nothing is known),
    given the facts `env` of the kernel's locals."""
    if e.dtype is None or not e.dtype.is_int:
        return 1
    op = e.op
    if op is Op.CONST:
        return _low(int(e.arg))
    if op is Op.VAR:
        return env.get(e.arg, 1)
    if op in (Op.ADD, Op.SUB, Op.MIN, Op.MAX):
        return min(divisor(e.args[0], env), divisor(e.args[1], env))
    if op is Op.SELECT:
        return min(divisor(e.args[1], env), divisor(e.args[2], env))
    if op is Op.MUL:
        return min(divisor(e.args[0], env) * divisor(e.args[1], env), CAP)
    if op is Op.NEG:
        return divisor(e.args[0], env)
    if op is Op.SHL and e.args[1].op is Op.CONST and 0 <= int(e.args[1].arg) < 63:
        return min(divisor(e.args[0], env) << int(e.args[1].arg), CAP)
    if op is Op.AND_:
        a, b = (divisor(x, env) for x in e.args)
        return max(a, b)
    if op is Op.CAST and e.args[0].dtype is not None and e.args[0].dtype.is_int:
        return min(divisor(e.args[0], env), _low(1 << (e.dtype.bits - 1)))
    return 1


def local_divisors(k: KernelIR) -> dict[str, int]:
    """The fact of every integer local of `k` (see the module's docstring)."""
    defs: dict[str, list] = {}
    for st in iter_stmts(k.body):
        if isinstance(st, N.Assign):
            defs.setdefault(st.name, []).append(st.value)
        elif isinstance(st, N.For):
            defs.setdefault(st.var, []).extend(
                [st.start, st.step if st.step is not None else Expr(Op.CONST, st.start.dtype, (),
                                                                      1, st.loc)])
    env = {name: CAP for name in defs}
    changed = True
    while changed:
        changed = False
        for name, values in defs.items():
            fact = min(divisor(v, env) for v in values)
            if fact < env[name]:
                env[name] = fact
                changed = True
    return env


def _is_const(e: Expr | None, value: int | None = None) -> bool:
    return e is not None and e.op is Op.CONST and (value is None or int(e.arg) == value)


def _strip(e: Expr) -> Expr:
    while e.op is Op.CAST and e.args[0].dtype is not None and e.args[0].dtype.is_int:
        e = e.args[0]
    return e


def _group(index: Expr, env: dict[str, int], unrolled: dict[str, int], once: dict) -> int:
    """How many elements from an access's index on are provably one aligned group: for
    `a + v`, v the variable of a fully unrolled loop over range(0, u) (its u copies access u
    consecutive elements), min(divisor(a), u); 1 for any other index. A local assigned once
    (`once`: a common subexpression, an inlined function's parameter) stands for its value."""
    e = _strip(index)
    for _ in range(8):
        if e.op is not Op.VAR or e.arg not in once:
            break
        e = _strip(once[e.arg])
    if e.op is Op.ADD:
        for a, v in (e.args, e.args[::-1]):
            v = _strip(v)
            if v.op is Op.VAR and v.arg in unrolled:
                return min(divisor(a, env), unrolled[v.arg])
    return 1


def aligned_access_bytes(k: KernelIR, cap: int = 16) -> int:
    """The widest group of neighbouring elements, in bytes (at most `cap`), that some access
    to an array parameter of `k` reads or writes at an offset from the array's start that is
    a multiple of the group's size (`_group`): what a vector access could take once the array
    itself is that aligned (render/llvm/ptx.py's aligned entry). 1 when no group of two or more
    elements is known. A performance decision only: whether an access is merged, and how, is
    LLVM's own proof on the IR it is given, so a group found here that LLVM cannot prove costs
    code size, never a result."""
    env = local_divisors(k)
    defs: dict[str, list] = {}
    for st in iter_stmts(k.body):
        if isinstance(st, N.Assign):
            defs.setdefault(st.name, []).append(st.value)
    once = {name: values[0] for name, values in defs.items() if len(values) == 1}
    unrolled = {st.var: int(st.stop.arg) for st in iter_stmts(k.body)
                if isinstance(st, N.For) and st.unroll == "full" and _is_const(st.start, 0)
                and _is_const(st.stop) and (st.step is None or _is_const(st.step, 1))}
    size = {p.name: p.dtype.bits // 8 for p in k.params if p.kind == "array"}
    accesses = [(st.array, st.indices[0]) for st in iter_stmts(k.body)
                if isinstance(st, N.Store) and st.array in size]
    accesses += [(e.arg, e.args[0]) for st in iter_stmts(k.body) for e in stmt_exprs(st)
                 if e.op is Op.LOAD and e.arg in size]
    groups = [(_group(index, env, unrolled, once), size[name]) for name, index in accesses]
    return min(max([g * b for g, b in groups if g > 1], default=1), cap)
