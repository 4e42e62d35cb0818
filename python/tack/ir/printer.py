"""Readable text of the IR: what `tack.inspect(..., mode="ir")` shows."""
from __future__ import annotations

from .nodes import (
    Assign,
    Barrier,
    Break,
    Continue,
    Expr,
    ExprStmt,
    For,
    If,
    KernelIR,
    Stmt,
    Store,
    While,
)
from .ops import ATOMIC, MBARRIER_OPS, Op

_INFIX = {
    Op.ADD: "+", Op.SUB: "-", Op.MUL: "*", Op.FDIV: "/", Op.IDIV: "idiv", Op.IREM: "irem",
    Op.FREM: "frem", Op.AND_: "&", Op.OR_: "|", Op.XOR: "^", Op.SHL: "<<", Op.SHR: ">>",
    Op.LT: "<", Op.LE: "<=", Op.GT: ">", Op.GE: ">=", Op.EQ: "==", Op.NE: "!=",
    Op.LAND: "and", Op.LOR: "or", Op.FLOORDIV: "//", Op.MOD: "%", Op.TRUEDIV: "/:",
}


def _t(e: Expr) -> str:
    return f":{e.dtype.name}" if e.dtype is not None else ""


def expr_str(e: Expr) -> str:
    op = e.op
    if op is Op.CONST:
        return f"{e.arg!r}{_t(e)}"
    if op in (Op.VAR, Op.PARAM):
        return f"{'%' if op is Op.PARAM else ''}{e.arg}{_t(e)}"
    if op is Op.LAUNCH:
        return "launch_index:i64"
    if op is Op.SHAPE:
        return f"{e.arg[0]}.shape[{e.arg[1]}]"
    if op is Op.LOAD:
        return f"{e.arg}[{', '.join(expr_str(a) for a in e.args)}]{_t(e)}"
    if op in _INFIX and len(e.args) == 2:
        return f"({expr_str(e.args[0])} {_INFIX[op]} {expr_str(e.args[1])}){_t(e)}"
    if op is Op.CAST:
        return f"{e.dtype.name}({expr_str(e.args[0])})"
    if op in ATOMIC:
        idx = ", ".join(expr_str(a) for a in e.args[:-1])
        return f"{op.name.lower()}({e.arg}[{idx}], {expr_str(e.args[-1])}){_t(e)}"
    if op is Op.THREAD_ID:
        return "thread_id:i32"
    if op is Op.ASYNC_COPY:  # async_copy(buf[j] <- x[i], 4): count elements from x into buf
        (dst, src, count), (j, *i) = e.arg, e.args
        return (f"async_copy({dst}[{expr_str(j)}] <- {src}[{', '.join(map(expr_str, i))}], "
                f"{count})")
    if op in (Op.ASYNC_WAIT, Op.WGMMA_WAIT):
        return f"{op.name.lower()}({e.arg})"
    if op is Op.WGMMA:  # wgmma.f16.n64.swizzle128(As[a], Bs[b]; acc.0, ...): in place
        variant, n, layout, a_arr, b_arr = e.arg
        a, b, *acc = (expr_str(x) for x in e.args)
        return f"wgmma.{variant}.n{n}.{layout}({a_arr}[{a}], {b_arr}[{b}]; {', '.join(acc)})"
    if op is Op.ASYNC_BULK_COPY:  # async_bulk_copy(buf[j] <- x[i], 64, bars[s])
        (dst, src, count, bar), (j, *i, b) = e.arg, e.args
        return (f"async_bulk_copy({dst}[{expr_str(j)}] <- {src}[{', '.join(map(expr_str, i))}]"
                f", {count}, {bar}[{expr_str(b)}])")
    if op is Op.ASYNC_TENSOR_COPY:  # async_tensor_copy(buf[j] <- x[r, c; 64x64], swizzle128, ..)
        (dst, src, (rows, cols, layout), bar), (j, r, c, b) = e.arg, e.args
        return (f"async_tensor_copy({dst}[{expr_str(j)}] <- {src}[{expr_str(r)}, "
                f"{expr_str(c)}; {rows}x{cols}], {layout}, {bar}[{expr_str(b)}])")
    if op in MBARRIER_OPS:  # mbarrier_wait(full[s], phase)
        rest = "".join(f", {expr_str(a)}" for a in e.args[1:])
        return f"{op.name.lower()}({e.arg}[{expr_str(e.args[0])}]{rest})"
    if op in (Op.MMA, Op.FRAGMENT):  # mma.m16n8k16.f16.d2(...), mma_load_a(...)
        name = f"mma.{e.arg[0]}.d{e.arg[1]}" if op is Op.MMA else e.arg
        return f"{name}({', '.join(expr_str(a) for a in e.args)}){_t(e)}"
    name = op.name.lower().rstrip("_")
    return f"{name}({', '.join(expr_str(a) for a in e.args)}){_t(e)}"


def _line(s: Stmt) -> str:
    return f"  # {s.loc.file.rsplit('/', 1)[-1]}:{s.loc.line}"


def stmts_str(body: list[Stmt], indent: int = 1) -> list[str]:
    """The lines of `body`. Recurses by hand, not through `ir.walk`: each block is printed under
    its own header (`if`/`else:`/`while`/`for`) one level deeper."""
    pad = "    " * indent
    out: list[str] = []
    for s in body:
        if isinstance(s, Assign):
            out.append(f"{pad}{s.name} = {expr_str(s.value)}{_line(s)}")
        elif isinstance(s, Store):
            idx = ", ".join(expr_str(i) for i in s.indices)
            out.append(f"{pad}{s.array}[{idx}] = {expr_str(s.value)}{_line(s)}")
        elif isinstance(s, If):
            out.append(f"{pad}if {expr_str(s.cond)}:{_line(s)}")
            out += stmts_str(s.then, indent + 1) or [pad + "    pass"]
            if s.orelse:
                out.append(f"{pad}else:")
                out += stmts_str(s.orelse, indent + 1)
        elif isinstance(s, While):
            out.append(f"{pad}while {expr_str(s.cond)}:{_line(s)}")
            out += stmts_str(s.body, indent + 1) or [pad + "    pass"]
        elif isinstance(s, For):
            step = "" if s.step is None else f", {expr_str(s.step)}"
            rng = f"range({expr_str(s.start)}, {expr_str(s.stop)}{step})"
            if s.unroll is not None:  # the hint as written: tack.unroll(range(...), 8 | "full")
                rng = f"unroll({rng}, {s.unroll!r})"
            out.append(f"{pad}for {s.var} in {rng}:{_line(s)}")
            out += stmts_str(s.body, indent + 1) or [pad + "    pass"]
        elif isinstance(s, Break):
            out.append(f"{pad}break{_line(s)}")
        elif isinstance(s, Continue):
            out.append(f"{pad}continue{_line(s)}")
        elif isinstance(s, Barrier):
            out.append(f"{pad}barrier(){_line(s)}")
        elif isinstance(s, ExprStmt):
            out.append(f"{pad}{expr_str(s.value)}{_line(s)}")
        else:  # pragma: no cover - a new statement class must be added here
            out.append(f"{pad}<{type(s).__name__}>")
    return out


def kernel_str(k: KernelIR) -> str:
    params = []
    for p in k.params:
        if p.kind == "array":
            dims = ", ".join("?" if d is None else str(d) for d in p.shape)
            params.append(f"{p.name}: {p.dtype.name}[{dims}]")
        else:
            params.append(f"{p.name}: {p.dtype.name}")
    lines = [f"kernel {k.name}({', '.join(params)}):  # {k.loc.file}:{k.loc.line}"]
    if k.locals:
        lines.append("    locals " + ", ".join(f"{n}: {t.name}" for n, t in k.locals.items()))
    for sc in k.scratch.values():
        if sc.barriers:  # tack.mbarriers(n): barrier objects, not data
            lines.append(f"    mbarriers {sc.name}[{sc.size}]")
            continue
        lines.append(f"    {sc.space} {sc.name}: {sc.dtype.name}[{sc.size}]")
    for tb in k.tables.values():
        dims = ", ".join(map(str, tb.shape))
        lines.append(f"    table {tb.name}: {tb.dtype.name}[{dims}] = {_table_text(tb.values)}")
    lines.append("    for launch_index in range(n):  # parallel")
    lines += stmts_str(k.body, 2)
    return "\n".join(lines) + "\n"


def _table_text(values: tuple) -> str:
    """A table's values, cut after 8 entries: the IR listing names the table, it need not
    reprint a 4096-entry lookup table."""
    head = ", ".join(repr(v) for v in values[:8])
    return f"({head}{', ...' if len(values) > 8 else ''})"
