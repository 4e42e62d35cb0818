"""Final `KernelIR` → KernelAbstractions.jl source: one `@kernel` function per specialization.

Only a printer: `OPS` maps each `Op` to a template, `JL_TYPES` is the type map, and a few methods
print statements. What Julia needs structurally is decided as IR rewrites, not `if`s here, listed
once in `REWRITES` (render/julia/rewrites.py). Every construct emitted here is justified in
docs/design/003-julia-rendering.md, whose table gives each one's upstream source; KA's files
(`src/macros.jl`, ...) are named by their path in https://github.com/JuliaGPU/KernelAbstractions.jl
on branch `release-0.9`, the series Tack pins.

Scheme (docs/design/003-julia-rendering.md, "The scheme, on one kernel" and "Barriers"):
* arrays arrive as flat 1-D vectors; the IR's one flat 0-based i64 index gets `+ 1` in the brackets;
* `Op.LAUNCH` is `tk_t = @index(Global, Linear) - 1` (the `@index` alone on the right of a top-level
  assignment, as KA's CPU lowering requires), and the body runs under `if tk_t < tk_n`;
* every literal is typed (`Int32(3)`, `0.5f0`), so nothing promotes to Int64/Float64;
* every local is declared, typed and zeroed at the top: Julia's loops open scopes, Python's don't;
* no `return` (KA 0.9 rejects it) and no `continue` outside a loop (see `lift_parallel_continue`);
* Base functions that throw on some inputs (sqrt, log, sin, `^`, ...) go through NaN-returning
  helpers of julia/src/TackRuntime.jl (`tk_*`), the only non-Base, non-KA names used; so do the
  atomics (`tk_atomic_add!` ..., Atomix underneath);
* scratch arrays are `@private` (local) and `@localmem` (shared) top-level statements, lane ids
  `@index(Local, Linear) - 1`, and a kernel using either is launched with a static workgroup of
  `ir.ops.WORKGROUP` (256) lanes;
* a kernel with barriers has no `tk_t` and no guard: its body is cut into the segments KA's CPU
  backend runs as separate work-item loops, each local is declared in the one segment that uses it
  (the rewrites moved the others into `@private` cells), and KA masks the lanes past `n` itself;
* warp operations are `@localmem` exchanges; a warp kernel's second text, its KI form (`FORMS`,
  render/julia/subgroups.py), spells `tack.shfl_down` by a constant with KA's sub-group function.
"""
from __future__ import annotations

import hashlib
import re

import numpy as np

from ... import dtypes as dt
from ...builtins.registry import lowered
from ...errors import RenderError
from ...ir.nodes import (
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
from ...ir.ops import ASYNC_OPS, ATOMIC, WORKGROUP, Op
from ...ir.walk import iter_stmts, stmt_exprs
from .rewrites import (
    GENERATED,
    barrier_cells,
    barrier_loops_to_while,
    declared,
    lift_parallel_continue,
    local_refs,
    segments,
    uniform_barrier_conditions,
    uses_barriers,
    warps_to_ki,
    warps_to_shared,
)
from .subgroups import EMULATED, KI

JL_TYPES = {dt.i8: "Int8", dt.u8: "UInt8", dt.i16: "Int16", dt.u16: "UInt16", dt.i32: "Int32",
            dt.u32: "UInt32", dt.i64: "Int64", dt.u64: "UInt64", dt.f32: "Float32",
            dt.f64: "Float64", dt.bool_: "Bool", dt.f16: "Float16",
            dt.bf16: "TkBFloat16"}  # TackRuntime's: BFloat16s.BFloat16, Core.BFloat16 from 1.11

# Every compound expression is parenthesized, so Julia's precedence never matters; statements
# drop the outermost pair. `{0}`... are the rendered operands.
OPS = {
    Op.NEG: "(-{0})", Op.ADD: "({0} + {1})", Op.SUB: "({0} - {1})", Op.MUL: "({0} * {1})",
    # `fma`, not `muladd`: `muladd` only marks its product and sum contractible, and Julia's
    # LLVM may then fuse the sum with a neighbouring product (`muladd(a, b, c * d)`); `fma`
    # rounds once, as the CPU engine's llvm.fma, the simulator and CUDA's fma.rn do
    Op.MULADD: "fma({0}, {1}, {2})",
    Op.FDIV: "({0} / {1})", Op.IDIV: "div({0}, {1})", Op.IREM: "rem({0}, {1})",
    Op.FREM: "rem({0}, {1})", Op.IPOW: "tk_ipow({0}, {1})",
    Op.MIN: "min({0}, {1})", Op.MAX: "max({0}, {1})", Op.ABS: "abs({0})",
    Op.AND_: "({0} & {1})", Op.OR_: "({0} | {1})", Op.XOR: "xor({0}, {1})",
    Op.SHL: "({0} << {1})", Op.INVERT: "(~{0})",
    # the math functions and `pow`: their registry entries' Julia templates
    **{op: b.julia.name for op, b in lowered("julia").items()}, Op.ISNAN: "isnan({0})",
    Op.LT: "({0} < {1})", Op.LE: "({0} <= {1})", Op.GT: "({0} > {1})", Op.GE: "({0} >= {1})",
    Op.EQ: "({0} == {1})", Op.NE: "({0} != {1})",
    Op.NOT: "(!{0})", Op.LAND: "({0} && {1})", Op.LOR: "({0} || {1})",
    Op.SELECT: "ifelse({0}, {1}, {2})", Op.IFEXP: "({0} ? {1} : {2})",
    # only in the KI form, on the lane's own warp segment (render/julia/subgroups.py):
    # KernelAbstractions' sub-group `shfl_down`, through TackRuntime
    Op.SHFL_DOWN: "tk_shfl_down({0}, {1})",
}
# Templates that depend on the operand's kind: `>>` is arithmetic, `>>>` logical (Base int.jl).
OPS_BY_KIND = {(Op.SHR, "i"): "({0} >> {1})", (Op.SHR, "u"): "({0} >>> {1})",
               # Base's min/max propagate NaN; the IR's float MIN/MAX let the number win.
               (Op.MIN, "f"): "tk_minnum({0}, {1})", (Op.MAX, "f"): "tk_maxnum({0}, {1})"}

# The dtype kinds each op may see (checked on the first operand): a wrong kind is an IR bug that
# would otherwise print valid-looking but wrong Julia (e.g. a float MIN that should be lowered).
# A builtin's op may see the dtypes of its entry's Julia lowering (`DTYPES`).
_INT, _FLOAT = "iu", "f"
KINDS = {**{op: "iuf" for op in (Op.MIN, Op.MAX)},
         **{op: _INT for op in (Op.IDIV, Op.IREM, Op.IPOW, Op.SHL, Op.SHR,
                                 Op.INVERT)},
         **{op: _FLOAT for op in (Op.FDIV, Op.FREM, Op.ISNAN, Op.MULADD)},
         **{op: "iuf" for op in (Op.NEG, Op.ADD, Op.SUB, Op.MUL, Op.ABS)},
         **{op: "iub" for op in (Op.AND_, Op.OR_, Op.XOR)},
         **{op: "b" for op in (Op.NOT, Op.LAND, Op.LOR)}}
DTYPES = {op: b.julia.dtypes for op, b in lowered("julia").items()}

# Names a user's variable must not take: Julia keywords, KA's hidden names (src/macros.jl), and
# every identifier the templates above and the printer below emit.
JULIA_KEYWORDS = frozenset((
    "baremodule", "begin", "break", "catch", "const", "continue", "do", "else", "elseif", "end",
    "export", "false", "finally", "for", "function", "global", "if", "import", "let", "local",
    "macro", "module", "quote", "return", "struct", "true", "try", "using", "while", "abstract",
    "mutable", "primitive", "type", "outer", "where", "in", "isa"))
_EMITTED = frozenset(re.findall(r"[A-Za-z_]\w*", " ".join(OPS.values()) + " ".join(
    OPS_BY_KIND.values()))) | set(JL_TYPES.values()) | {
    "unsafe_trunc", "reinterpret", "iszero", "zero", "typemin", "AbstractVector", "Inf32",
    "NaN32", "Inf64", "NaN64", "KernelAbstractions", "TackRuntime", "Atomix", "__ctx__", "__active_lane__", "Val"}
RESERVED = JULIA_KEYWORDS | _EMITTED
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_BASENAME = re.compile(r"[/\\]")  # `# file.py:LINE` names the file, not its directory


def _typ(t) -> str:
    try:
        return JL_TYPES[t]
    except KeyError:
        raise RenderError(f"no Julia type for dtype {t!r}") from None


REWRITES = (warps_to_shared, lift_parallel_continue, barrier_loops_to_while,
            uniform_barrier_conditions, barrier_cells)
# The texts of a kernel: the default runs on KA 0.9 and 0.10 and every backend; the KI form
# differs only in the warp operations KA's sub-group interface spells (render/julia/subgroups.py,
# which also holds `choose_form`, the Julia engine's choice between them).
FORMS = {EMULATED: REWRITES, KI: (warps_to_ki,) + REWRITES[1:]}
LANE = "((tk_li % Int32) - Int32(1))"  # THREAD_ID: `%` wraps whatever integer type KA gives
ATOMICS = {Op.ATOMIC_ADD: "tk_atomic_add!", Op.ATOMIC_MIN: "tk_atomic_min!",
           Op.ATOMIC_MAX: "tk_atomic_max!"}
SCRATCH = {"local": "@private", "shared": "@localmem"}


def workgroup_size(kir: KernelIR) -> int | None:
    """The static workgroup size a kernel must be launched with: `WORKGROUP` when it uses shared
    arrays (`@localmem`, sized per group at compile time), lane ids or barriers (whose kernels'
    local arrays are `@private` too), else None (KA picks; local arrays of a kernel without
    barriers are per work-item, `TackRuntime.tk_private`)."""
    shared = any(sc.space == "shared" for sc in kir.scratch.values())
    uses = shared or uses_barriers(kir) or uses_lane_ids(kir)
    return WORKGROUP if uses else None


def uses_lane_ids(kir: KernelIR) -> bool:
    return any(x.op is Op.THREAD_ID for s in iter_stmts(kir.body) for x in stmt_exprs(s))


# -- literals --------------------------------------------------------------------------------

def _half_lit(v: float, t) -> str:
    """A half literal: f16 as `Float16(x)` of its exact value (`NaN16`, `Inf16`), bf16 as its bits
    reinterpreted (Julia has no bfloat16 literal)."""
    if t is dt.bf16:
        return f"reinterpret(TkBFloat16, UInt16(0x{int(np.array(v, t.np).view(np.uint16)):04x}))"
    if np.isnan(v):
        return "NaN16"
    if np.isinf(v):
        return ("-" if v < 0 else "") + "Inf16"
    return f"Float16({float(v)!r})"  # the half value exactly: converted without rounding


def _float_lit(v: float, t) -> str:
    """A typed float literal. f32: Julia's own Float32 syntax (`0.1f0`), so no Float64 constant
    exists even before constant folding; the shortest decimal is checked to survive a
    decimal→Float64→Float32 double rounding, else the exact double goes via `Float32(...)`."""
    if t.is_half:
        return _half_lit(v, t)
    if np.isnan(v):
        return "NaN32" if t is dt.f32 else "NaN64"
    if np.isinf(v):
        return ("-" if v < 0 else "") + ("Inf32" if t is dt.f32 else "Inf64")
    if t is dt.f64:
        return f"Float64({float(v)!r})"
    f = np.float32(v)
    s = np.format_float_scientific(f, unique=True)
    mant, exp = s.split("e")
    exp_i = int(exp)
    if -5 <= exp_i < 7:  # positional for ordinary magnitudes, like Julia prints them
        mant, exp_i = np.format_float_positional(f, unique=True), 0
    mant = mant + "0" if mant.endswith(".") else mant
    if np.float32(float(f"{mant}e{exp_i}")) != f:  # pragma: no cover - no known case
        return f"Float32({float(f)!r})"
    return f"{mant}f{exp_i}"


def _const(e: Expr) -> str:
    t, v = e.dtype, e.arg
    if t.kind == "b":
        return "true" if v else "false"
    if t.is_float:
        s = _float_lit(float(v), t)
        return f"({s})" if s.startswith("-") else s  # never `--x` or `-2f0 ^ y` surprises
    v = int(v)
    if t.is_signed and v == t.min():
        return f"typemin({_typ(t)})"  # its magnitude is not an Int64 literal
    if v > dt.i64.max():
        return f"{_typ(t)}(0x{v:016x})"  # 16 hex digits: a UInt64 literal
    return f"{_typ(t)}({v})"


def _cast(e: Expr, x: str) -> str:
    """CAST per ops.py: int→int by the source's signedness (`%` wraps, Base int.jl), float→int
    `tk_fptoi` (saturating, NaN to 0; no InexactError), →bool `!= 0`, the rest a converting
    constructor."""
    src, dst = e.args[0].dtype, e.dtype
    if src is dst:
        return x
    if dst.kind == "b":
        return f"(!iszero({_strip(x)}))"
    if src.is_int and dst.is_int:
        return f"({x} % {_typ(dst)})"
    if src.is_float and dst.is_int:
        return f"tk_fptoi({_typ(dst)}, {_strip(x)})"
    if dst is dt.bf16 or src is dt.bf16:  # f32 ↔ bf16 only (passes/half.py): TackRuntime's
        return f"{'tk_bf16' if dst is dt.bf16 else 'tk_f32'}({_strip(x)})"
    return f"{_typ(dst)}({_strip(x)})"


def _strip(s: str) -> str:
    """Drop one enclosing pair of parentheses if it encloses the whole string."""
    if not (s.startswith("(") and s.endswith(")")):
        return s
    depth = 0
    for i, c in enumerate(s):
        depth += (c == "(") - (c == ")")
        if depth == 0 and i < len(s) - 1:
            return s
    return s[1:-1]


# -- the printer -----------------------------------------------------------------------------

def _julia_name(n: str) -> str:
    """A Julia identifier for an IR name: a user's as written where Julia takes it; Tack's
    generated names (passes/names.py: they hold a `.`) as `tk_v_` and the name with `_` for
    `.` (the printer makes the spellings distinct, appending `_`)."""
    if _IDENT.match(n) and n.strip("_") and n not in RESERVED and not n.startswith("tk_"):
        return n
    spelled = re.sub(r"[^A-Za-z0-9_]", lambda m: "_" if m.group() == "." else
                     f"u{ord(m.group()):x}", n)
    return "tk_v_" + spelled.lstrip("_")


class _Printer:
    def __init__(self, kir: KernelIR):
        self.kir = kir
        self.types = declared(kir)  # every local, loop variables the typechecker left out too
        self.barriers = uses_barriers(kir)
        keep = kir.notes.get(GENERATED, frozenset())
        self.names: dict[str, str] = {}
        taken = set()
        for n in [p.name for p in kir.params] + list(self.types) + list(kir.scratch):
            j = n if n in keep else _julia_name(n)
            while j in taken:
                j += "_"
            taken.add(j)
            self.names[n] = j
        for tb in kir.tables.values():  # `tk_` names: no user name can take them
            self.names[tb.name] = _table_name(tb)
        # Without barriers `tk_t` is a local of the one work-item loop; with them it would not
        # survive a segment, so the launch index is spelled where it is used.
        self.launch = "(Int64(tk_gi) - Int64(1))" if self.barriers else "tk_t"
        self.decls = {id(stmts[0]): [n for n in self.types if n in local_refs(stmts)]
                      for stmts, _ in segments(kir.body)} if self.barriers else {}
        self.lines: list[str] = []
        self.loops = 0  # depth of enclosing For/While: `break`/`continue` need one

    def where(self, loc) -> str:
        return f"  # {_BASENAME.split(loc.file)[-1]}:{loc.line}"

    def emit(self, depth: int, text: str, loc=None) -> None:
        self.lines.append("    " * depth + text + (self.where(loc) if loc else ""))

    # expressions
    def expr(self, e: Expr) -> str:
        op = e.op
        if op is Op.CONST:
            return _const(e)
        if op in (Op.VAR, Op.PARAM):
            return self.names[e.arg]
        if op is Op.LAUNCH:
            return self.launch
        if op is Op.THREAD_ID:
            return LANE
        if op is Op.LOAD:
            return f"{self.names[e.arg]}[{self.index(e.args)}]"
        args = [self.expr(a) for a in e.args]
        if op in ATOMIC:  # the old value, like ops.py's atomics (TackRuntime, Atomix)
            return f"{ATOMICS[op]}({self.names[e.arg]}, {self.index(e.args[:1])}, " \
                   f"{_strip(args[1])})"
        if op is Op.CAST:
            return _cast(e, args[0])
        if op is Op.BITCAST:  # the same bits, another type of one width (Base reinterpret)
            return f"reinterpret({_typ(e.dtype)}, {_strip(args[0])})"
        kind = e.args[0].dtype.kind if e.args else e.dtype.kind
        if op in KINDS and kind not in KINDS[op] or op in DTYPES and (
                e.args[0].dtype not in DTYPES[op]):
            self.fail(e, f"{op.name} on {e.args[0].dtype.name} operands")
        tpl = OPS_BY_KIND.get((op, kind)) or OPS.get(op)
        if tpl is None:
            self.fail(e, f"{op.name}")
        if tpl[0].isalpha():  # a call: its arguments are delimited already
            args = [_strip(a) for a in args]
        return tpl.format(*args)

    def index(self, idx) -> str:
        """The 1-based Julia index of the IR's one flat 0-based i64 index (a constant is folded:
        an `Int64` literal is exactly the index type)."""
        if len(idx) != 1 or idx[0].dtype is not dt.i64:
            self.fail(idx[0], "an access without one flat i64 index (run passes.linearize)")
        if idx[0].op is Op.CONST and 0 <= int(idx[0].arg) < dt.i64.max():
            return str(int(idx[0].arg) + 1)
        return f"{self.expr(idx[0])} + 1"

    def fail(self, e, what: str):
        t = getattr(e, "dtype", None)
        raise RenderError.at(e.loc, f"the Julia renderer cannot spell {what}"
                             + (f" (dtype {t.name})" if t is not None else ""))

    # statements: each kind prints its own blocks (`block`, `loop`) one level under its header
    def block(self, body: list[Stmt], depth: int) -> None:
        for s in body:
            for n in self.decls.get(id(s), ()):  # a segment starts: its locals (barrier kernels)
                self.declare(n, depth, s.loc)
            getattr(self, "stmt_" + type(s).__name__)(s, depth)

    def declare(self, n: str, depth: int, loc) -> None:
        t = _typ(self.types[n])
        zero = f"zero({t})" if self.types[n] is not dt.bf16 else _half_lit(0.0, dt.bf16)
        self.emit(depth, f"local {self.names[n]}::{t} = {zero}", loc)  # (no zero for TkBFloat16)

    def stmt_Assign(self, s: Assign, d: int) -> None:
        self.emit(d, f"{self.names[s.name]} = {_strip(self.expr(s.value))}", s.loc)

    def stmt_Store(self, s: Store, d: int) -> None:
        sc = self.kir.scratch.get(s.array)
        if s.value.dtype is not (sc.dtype if sc else self.kir.param(s.array).dtype):
            self.fail(s.value, f"a store of {s.value.dtype.name} into {s.array}")
        self.emit(d, f"{self.names[s.array]}[{self.index(s.indices)}] = "
                     f"{_strip(self.expr(s.value))}", s.loc)

    def stmt_If(self, s: If, d: int, word: str = "if") -> None:
        self.emit(d, f"{word} {_strip(self.expr(s.cond))}", s.loc)
        self.block(s.then, d + 1)
        if len(s.orelse) == 1 and isinstance(s.orelse[0], If) and not self.decls.get(
                id(s.orelse[0])):
            return self.stmt_If(s.orelse[0], d, "elseif")
        if s.orelse:
            self.emit(d, "else")
            self.block(s.orelse, d + 1)
        self.emit(d, "end")

    def stmt_While(self, s: While, d: int) -> None:
        self.emit(d, f"while {_strip(self.expr(s.cond))}", s.loc)
        self.loop(s.body, d + 1)
        self.emit(d, "end")

    def loop(self, body, d: int) -> None:
        self.loops += 1
        self.block(body, d)
        self.loops -= 1

    def stmt_For(self, s: For, d: int) -> None:
        """`for v in range(lo, hi)`: `for outer` keeps Python's scoping (v is the declared local
        and holds its last value afterwards); the range is evaluated once, like Python's. `hi - 1`
        would wrap for hi = typemin, so a non-constant `hi` is guarded by `lo < hi`."""
        if s.step is not None:
            self.fail(s.start, "a For with a step (run passes.loops)")
        lo, hi, t = self.expr(s.start), self.expr(s.stop), s.stop.dtype
        if s.stop.op is Op.CONST:
            last = _const(Expr(Op.CONST, t, (), int(s.stop.arg) - 1, s.loc)) \
                if int(s.stop.arg) > t.min() else None
            if last is None:  # range(lo, typemin) is empty
                return
            self.emit(d, f"{_unroll(s)}for outer {self.names[s.var]} in {lo}:{last}", s.loc)
            self.loop(s.body, d + 1)
            return self.emit(d, "end")
        self.emit(d, f"if {lo} < {hi}", s.loc)
        self.emit(d + 1, f"{_unroll(s)}for outer {self.names[s.var]} in {lo}:({hi} - {_typ(t)}(1))",
                  s.loc)
        self.loop(s.body, d + 2)
        self.emit(d + 1, "end")
        self.emit(d, "end")

    def stmt_Break(self, s: Break, d: int) -> None:
        if not self.loops:
            self.fail(s, "a break outside a loop (Tack rejects breaking the parallel loop)")
        self.emit(d, "break", s.loc)

    def stmt_Continue(self, s: Continue, d: int) -> None:
        if not self.loops:  # pragma: no cover - lift_parallel_continue removed them all
            self.fail(s, "a continue outside a loop")
        self.emit(d, "continue", s.loc)

    def stmt_ExprStmt(self, s: ExprStmt, d: int) -> None:
        if s.value.op is Op.PRINT:  # KA's @print (src/KernelAbstractions.jl): items, " ", "\n"
            vals = iter(s.value.args)
            items = [_julia_str(p.replace("%", "%%")) if p is not None
                     else self.print_value(next(vals)) for p in s.value.arg]
            spaced = [x for k, item in enumerate(items) for x in ((item,) if k == 0
                                                                    else ('" "', item))]
            self.emit(d, f"@print({', '.join(spaced + [_julia_str(chr(10))])})", s.loc)
            return
        if s.value.op in ASYNC_OPS:
            return self.async_stmt(s.value, d)
        self.emit(d, _strip(self.expr(s.value)), s.loc)

    def async_stmt(self, e: Expr, d: int) -> None:
        """Asynchronous copies run synchronously (docs/julia.md, "Asynchronous copies"): each
        element is copied by the statement itself, so the copy is complete on its lane when the
        statement ends and the commits and waits have nothing left to do. They are no-ops, not
        barriers: the protocol (checked by tack.check) already puts a barrier between a wait
        and any other lane's read, and that barrier is rendered as `@synchronize()`."""
        if e.op is not Op.ASYNC_COPY:
            what = "async_commit()" if e.op is Op.ASYNC_COMMIT else f"async_wait({e.arg})"
            self.emit(d, f"nothing  # tack.{what}: the copies above are already done", e.loc)
            return
        (dst, src, count), (j, i) = e.arg, e.args
        if count == 1:
            to, frm = self.index((j,)), self.index((i,))
            self.emit(d, f"{self.names[dst]}[{to}] = {self.names[src]}[{frm}]  # "
                         "tack.async_copy, synchronous here", e.loc)
            return
        # `tk_c`: no user name is spelled so (`_julia_name` renames a `tk_` prefix)
        self.emit(d, f"for tk_c in Int64(0):Int64({count - 1})  # tack.async_copy, synchronous "
                     "here", e.loc)
        at = [f"tk_c + {self.index((x,))}" if x.op is Op.CONST  # the 1-based `+ 1` last
              else f"{self.expr(x)} + tk_c + 1" for x in (j, i)]
        self.emit(d + 1, f"{self.names[dst]}[{at[0]}] = {self.names[src]}[{at[1]}]", e.loc)
        self.emit(d, "end", e.loc)

    def print_value(self, v: Expr) -> str:
        """One value of `@print`, at a width printf takes (`_PRINTF_WIDE`)."""
        text = _strip(self.expr(v))
        wide = _PRINTF_WIDE.get(v.dtype)
        return f"{wide}({text})" if wide else text

    def stmt_Barrier(self, s: Barrier, d: int) -> None:
        self.emit(d, "@synchronize()", s.loc)

    # the kernel
    def kernel(self) -> list[str]:
        k = self.kir
        args = [f"{self.names[p.name]}::AbstractVector{{{_typ(p.dtype)}}}" if p.kind == "array"
                else f"{self.names[p.name]}::{_typ(p.dtype)}" for p in k.params]
        args.append("tk_n::Int64")
        sig = ", ".join(f"{p.name}: {p.dtype.name}" + (
            "[" + ", ".join("?" if x is None else str(x) for x in p.shape) + "]"
            if p.kind == "array" else "") for p in k.params)
        self.emit(0, f"# Tack kernel `{k.name}`, specialization ({sig})")
        for tb in k.tables.values():  # docs/design/003-julia-rendering.md, "constant table"
            items = ", ".join(_const(Expr(Op.CONST, tb.dtype, (), v, tb.loc)) for v in tb.values)
            self.emit(0, f"const {self.names[tb.name]} = ({items},)", tb.loc or k.loc)
        self.emit(0, f"@kernel function @NAME@({', '.join(args)})", k.loc)
        self.emit(1, "tk_gi = @index(Global, Linear)", k.loc)
        if uses_lane_ids(k):
            self.emit(1, "tk_li = @index(Local, Linear)", k.loc)
        for sc in k.scratch.values():  # top-level: KA's `split` hoists only those (src/macros.jl)
            if sc.space == "local" and not self.barriers:  # per work-item (TackRuntime.jl)
                self.emit(1, f"{self.names[sc.name]} = TackRuntime.tk_private("
                             f"{_typ(sc.dtype)}, Val({sc.size}))", k.loc)
                continue
            self.emit(1, f"{self.names[sc.name]} = {SCRATCH[sc.space]} {_typ(sc.dtype)} "
                         f"({sc.size},)", k.loc)
        if self.barriers:  # KA masks the lanes past the ndrange (`__validindex`, src/macros.jl)
            self.block(k.body, 1)
        else:
            self.emit(1, "tk_t = Int64(tk_gi) - Int64(1)", k.loc)
            for n in self.types:
                self.declare(n, 1, k.loc)
            self.emit(1, "if tk_t < tk_n", k.loc)
            self.block(k.body, 2)
            self.emit(1, "end")
        self.emit(0, "end")
        if workgroup_size(k):
            self.emit(0, f"TackRuntime.tk_workgroupsize(::typeof(@NAME@)) = {workgroup_size(k)}",
                      k.loc)
        return self.lines


def _table_name(tb) -> str:
    """A constant table's global: named by its contents, so evaluating an equal definition
    again (another specialization reading the same table) rebinds a `const` to an equal value,
    which Julia allows."""
    digest = hashlib.sha1(f"{tb.dtype.name}{tb.shape}{tb.values}".encode()).hexdigest()[:8]
    return f"tk_tab_{re.sub(r'[^A-Za-z0-9_]', '_', tb.name)}_{digest}"


def _unroll(s: For) -> str:
    """KA's `@unroll` before a loop with a `tack.unroll` hint (docs/design/003: it appends the
    `llvm.loop.unroll.count`/`.full` loopinfo to the loop's body). Qualified: `Extras` exports
    `@unroll` but KernelAbstractions does not re-export it."""
    if s.unroll is None:
        return ""
    count = "" if s.unroll == "full" else f"{s.unroll} "
    return f"KernelAbstractions.Extras.@unroll {count}"


def kernel_name(kir: KernelIR, text: str) -> str:
    """Stable and unique per specialization: the kernel's name and a hash of its Julia text
    (`@kernel` defines a name's constructors only `if !@isdefined(name)`, KA's src/macros.jl)."""
    base = re.sub(r"\W", "_", kir.name)
    return f"tk_{base}_{hashlib.sha1(text.encode()).hexdigest()[:8]}"


def render_julia(kir: KernelIR, form: str = EMULATED) -> str:
    """The KernelAbstractions.jl source of one specialization, in one of its `FORMS` (the KI
    form needs KA 0.10's sub-group functions: `subgroups.choose_form`). It expects `using
    KernelAbstractions` and `using .TackRuntime` (julia/src/TackRuntime.jl) in scope; launch it
    as `k(backend)(arrays..., scalars..., n; ndrange = n)` with 1-D arrays, or with
    `k(backend, 256)` (`ir.ops.WORKGROUP`) when it defines `TackRuntime.tk_workgroupsize`
    (`workgroup_size`);
    `TackRuntime.launch!` does either."""
    for rewrite in FORMS[form]:
        kir = rewrite(kir)
    text = "\n".join(_Printer(kir).kernel()) + "\n"
    return text.replace("@NAME@", kernel_name(kir, text))


# KA 0.10's `@print` is printf on every backend: literals go into the format string as they are
# (so a literal `%` is written `%%`) and each value takes the specifier of its type, where Int8 is
# `Cchar` (`%c`: printed as a character) and UInt8 has none (dropped with an error log);
# `_print` in https://github.com/JuliaGPU/OpenCL.jl/blob/master/lib/intrinsics/src/printf.jl
# (SPIRVIntrinsics, POCL's device library), as CUDA.jl's `@cuprint`. So narrow values are widened
# as C's varargs would (Bool too, which `_print` converts itself). Half values never get here:
# passes/half.py widens every half operand to f32 first (`Float32(h)`, `tk_f32(b)`).
_PRINTF_WIDE = {dt.i8: "Int32", dt.u8: "UInt32", dt.bool_: "Int32"}


def _julia_str(text: str) -> str:
    """A Julia string literal (no interpolation: `$` is escaped)."""
    esc = text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
    return '"' + esc.replace("\n", "\\n") + '"'
