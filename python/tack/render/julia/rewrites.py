"""The IR → IR rewrites the Julia renderer declares (`ka.REWRITES`), applied in order.

Each takes and returns a `KernelIR` and never modifies its input. Names a rewrite introduces start
with `tk_` (a prefix user names never keep, see ka.py's naming) and are listed in
`kir.notes[GENERATED]`, so the printer keeps them as they are.

Kernels with a `Barrier` are shaped for KernelAbstractions' `@synchronize`
(docs/design/003-julia-rendering.md, "Barriers"). KA 0.9's CPU backend (`split` and `emit_cpu` in
https://github.com/JuliaGPU/KernelAbstractions.jl/blob/release-0.9/src/macros.jl) cuts the kernel
body at every statement that contains an `@synchronize` into *segments*, each run as its own loop
over the work-items of a group, while the statement holding the `@synchronize` (an `if`/`while`)
runs once per group, outside those loops. Hence:
* `barrier_loops_to_while`: a `for` holding a barrier becomes a `while` over a counter;
* `uniform_barrier_conditions`: the condition of an `if`/`while` holding a barrier is computed by
  the lanes into its own slot of a shared Bool array `tk_u` (`@localmem`), then `@synchronize()`, and
  the statement reads the slot: one value for the whole group, readable outside the work-item loops
  on the CPU and by inactive lanes on a GPU;
* `barrier_cells`: a local used by two segments (or re-entered by a loop) would be a fresh,
  undefined variable in each CPU work-item loop, so it lives in a one-element `@private` array.
"""
from __future__ import annotations

import dataclasses

from ... import dtypes as dt
from ...errors import RenderError
from ...ir import nodes as N
from ...ir.nodes import Expr, KernelIR
from ...ir.ops import Op
from ...ir.walk import iter_exprs, iter_stmts, map_blocks, map_body, map_stmts, stmt_exprs
from ...passes.warps_shared import warps_through_shared
from .subgroups import warps_to_subgroups

GENERATED = "julia_names"
SLOTS = "tk_u"  # the shared Bool array holding the conditions of barrier statements


def _with(kir: KernelIR, names=(), **kw) -> KernelIR:
    notes = {**kir.notes, GENERATED: kir.notes.get(GENERATED, frozenset()) | set(names)}
    return dataclasses.replace(kir, notes=notes, **kw)


def _fresh(kir: KernelIR, base: str, taken=()) -> str:
    """`base`, or `base_2`, ... when a parameter, local or scratch array already has that name.
    Not `passes.names`: these names are printed as they are in the Julia text, numbered by the
    rewrite (`tk_k1`/`tk_e1` per loop), and kept even where a user local would be renamed."""
    used = {p.name for p in kir.params} | set(kir.locals) | set(kir.scratch) | set(taken)
    name, k = base, 1
    while name in used:
        k += 1
        name = f"{base}_{k}"
    return name


def warps_to_shared(kir: KernelIR) -> KernelIR:
    """Warp operations as `@localmem` exchanges between `@synchronize()`s (passes/warps_shared.py):
    KernelAbstractions 0.9 has no sub-group functions, and 0.10's sub-groups are not 32 lanes
    on every backend; this form is Tack's 32-lane warp on every one, the simulator's bits."""
    return _added(kir, warps_through_shared(kir, _fresh(kir, "tk_w")))


def warps_to_ki(kir: KernelIR) -> KernelIR:
    """The KI form's warp operations (render/julia/subgroups.py): `tack.shfl_down` by a constant
    as KernelAbstractions' sub-group `shfl_down` on the lane's 32-lane segment, every other warp
    operation as in `warps_to_shared`."""
    return _added(kir, warps_to_subgroups(kir, _fresh(kir, "tk_w")))


def _added(kir: KernelIR, out: KernelIR) -> KernelIR:
    """`out`, with the locals and scratch arrays it added to `kir` kept as named."""
    if out is kir:
        return kir
    return _with(out, (set(out.locals) - set(kir.locals)) | (set(out.scratch) - set(kir.scratch)))


def has_barrier(s) -> bool:
    return any(isinstance(x, N.Barrier) for x in iter_stmts([s]))


def uses_barriers(kir: KernelIR) -> bool:
    return any(has_barrier(s) for s in kir.body)


def _fail(node, what: str):
    raise RenderError.at(node.loc, f"the Julia renderer cannot spell {what}")


# -- continue of the parallel loop ---------------------------------------------------------------

def _top_continues(body) -> int:
    """How many `Continue`s target the parallel loop (not inside a For/While). Recurses into
    `if` branches only, by hand: a loop's blocks hold that loop's own `continue`s."""
    n = 0
    for s in body:
        if isinstance(s, N.Continue):
            n += 1
        elif isinstance(s, N.If):
            n += _top_continues(s.then) + _top_continues(s.orelse)
    return n


def _nest(body):
    """`if c: ...; continue` + rest → `if c ... else rest end`; None when that shape is not it."""
    for i, s in enumerate(body):
        if isinstance(s, N.Continue):  # what follows an unconditional continue is dead
            return body[:i]
        if not isinstance(s, N.If) or not _top_continues([s]):
            continue
        rest = body[i + 1:]
        for a, b in ((s.then, s.orelse), (s.orelse, s.then)):
            if a and isinstance(a[-1], N.Continue) and _top_continues([s]) == 1:
                other = _nest(b + rest)
                if other is None:
                    return None
                then, orelse = (a[:-1], other) if a is s.then else (other, a[:-1])
                if not then:  # `if c continue end; rest` → `if !c rest end`
                    cond = Expr(Op.NOT, dt.bool_, (s.cond,), None, s.cond.loc)
                    return body[:i] + [N.If(s.loc, cond, orelse, [])]
                return body[:i] + [N.If(s.loc, s.cond, then, orelse)]
        return None
    return body


def lift_parallel_continue(kir: KernelIR) -> KernelIR:
    """`continue` of the parallel loop → structured code, since Julia has no loop there (KA
    0.9's CPU lowering would continue its hidden work-item loop, and on GPUs it is a syntax
    error: docs/design/003-julia-rendering.md, "IR rewrites the renderer declares"). `if c: ...;
    continue` + rest becomes `if c ... else rest end`; anything else is wrapped in a one-trip
    `while true ... break end` whose `break` replaces it. In a kernel with barriers a lane that
    leaves the iteration early would skip them: refused."""
    if not _top_continues(kir.body):
        return kir
    if uses_barriers(kir):
        first = next(s for s in iter_stmts(kir.body) if isinstance(s, N.Continue))
        _fail(first, "a `continue` of the parallel loop in a kernel with barriers (the lane "
                     "would skip the barriers the rest of its workgroup waits in)")
    body = _nest(list(kir.body))
    if body is None:
        def brk(b):  # into `if` branches only: a `continue` inside a loop is that loop's
            return [N.Break(s.loc) if isinstance(s, N.Continue) else
                    dataclasses.replace(s, then=brk(s.then), orelse=brk(s.orelse))
                    if isinstance(s, N.If) else s for s in b]
        true = Expr(Op.CONST, dt.bool_, (), 1, kir.loc)
        body = [N.While(kir.body[0].loc, true, brk(kir.body) + [N.Break(kir.body[-1].loc)])]
    return dataclasses.replace(kir, body=body)


# -- barriers ------------------------------------------------------------------------------------

def _check_exits(loop) -> None:
    """A `break`/`continue` of a loop holding a barrier would leave the CPU's work-item loop
    instead: the loop runs once per group and its body is cut into work-item loops
    (docs/design/003-julia-rendering.md, "Barriers")."""
    def walk(body):  # into `if` branches only: an inner loop's exits stay in that loop
        for s in body:
            if isinstance(s, (N.Break, N.Continue)):
                _fail(s, f"a {type(s).__name__.lower()} of a loop that contains a barrier")
            if isinstance(s, N.If):
                walk(s.then)
                walk(s.orelse)
    walk(loop.body)


def barrier_loops_to_while(kir: KernelIR) -> KernelIR:
    """`for v in range(lo, hi)` holding a barrier → `tk_kJ = lo; tk_eJ = hi; while tk_kJ < tk_eJ:
    v = tk_kJ; body; tk_kJ += 1` (`tk_kJ + 1 <= tk_eJ`, so it never wraps), whose condition then
    goes through `uniform_barrier_conditions` like any other."""
    if not uses_barriers(kir):
        return kir
    locals_, names = dict(kir.locals), []

    def stmt(s, walk):  # top-down: an outer loop's counter is numbered before its inner loops'
        if isinstance(s, (N.For, N.While)) and has_barrier(s):
            _check_exits(s)
        if not (isinstance(s, N.For) and has_barrier(s)):
            return map_blocks(s, walk)
        j = len(names) // 2 + 1
        k = _fresh(kir, f"tk_k{j}", names)
        e, t = _fresh(kir, f"tk_e{j}", names), s.start.dtype
        names.extend((k, e))
        locals_[k] = locals_[e] = t
        kv, ev = (Expr(Op.VAR, t, (), x, s.loc) for x in (k, e))
        one = Expr(Op.CONST, t, (), 1, s.loc)
        step = N.Assign(s.loc, k, Expr(Op.ADD, t, (kv, one), None, s.loc))
        cond = Expr(Op.LT, dt.bool_, (kv, ev), None, s.loc)
        return [N.Assign(s.loc, k, s.start), N.Assign(s.loc, e, s.stop),
                N.While(s.loc, cond, [N.Assign(s.loc, s.var, kv)] + walk(s.body) + [step])]

    body = map_stmts(kir.body, stmt, top_down=True)
    return _with(kir, names, body=body, locals=locals_) if names else kir


def _split_branch(body, loc):
    """A branch of an `if` holding a barrier, in the shape KA's `split` cuts into segments: it
    recurses only into blocks that contain an `@synchronize` and that `MacroTools.unblock` does not
    reduce to one statement, and leaves anything else to run once per group on the CPU (and by
    inactive lanes on a GPU). So a non-empty branch ends in a barrier (harmless: the whole group
    takes the branch) and is never a lone statement."""
    if body and not any(has_barrier(s) for s in body):
        body = body + [N.Barrier(loc)]
    return body + [N.Barrier(loc)] if len(body) == 1 else body


def uniform_barrier_conditions(kir: KernelIR) -> KernelIR:
    """The condition of each `if`/`while` holding a barrier goes through its own slot s of
    `tk_u = @localmem Bool (K,)`: `tk_u[s] = c; @synchronize(); if tk_u[s] ...`, and a `while`
    recomputes it at the end of each iteration. Lanes agree on c (a barrier must be reached by all
    lanes or none), so any writer gives the same value. Each lane reads the slot before the body's
    first barrier, and the next write comes after it: a `while` whose body has no top-level
    barrier gets one at its start, so no lane overwrites the slot while another still reads it."""
    if not uses_barriers(kir):
        return kir
    slots, name = [], _fresh(kir, SLOTS)

    def slot(cond, loc):
        s = len(slots)
        slots.append(loc)
        idx = Expr(Op.CONST, dt.i64, (), s, loc)
        write = [N.Store(loc, name, (idx,), cond, "condition"), N.Barrier(loc)]
        return write, Expr(Op.LOAD, dt.bool_, (idx,), name, loc)

    def stmt(s, walk):  # top-down: a statement's slot is numbered before those of its blocks
        if isinstance(s, N.If) and has_barrier(s):
            write, read = slot(s.cond, s.loc)
            return write + [N.If(s.loc, read, _split_branch(walk(s.then), s.loc),
                                 _split_branch(walk(s.orelse), s.loc))]
        if isinstance(s, N.While) and has_barrier(s):
            write, read = slot(s.cond, s.loc)
            lead = [] if any(isinstance(x, N.Barrier) for x in s.body) else [N.Barrier(s.loc)]
            return write + [N.While(s.loc, read, lead + walk(s.body) + write)]
        return map_blocks(s, walk)

    body = map_stmts(kir.body, stmt, top_down=True)
    if not slots:
        return kir
    scratch = {**kir.scratch, name: N.Scratch(name, dt.bool_, len(slots), "shared")}
    return _with(kir, [name], body=body, scratch=scratch)


# -- which locals outlive a segment ----------------------------------------------------------

def segments(body, in_loop: bool = False):
    """The segments of a barrier kernel, as KA's CPU lowering cuts them: (statements, in_loop),
    where `in_loop` says the segment is re-entered by a `while` that holds a barrier. Recurses by
    hand: only into the blocks of statements holding a barrier, which are cut the same way."""
    current = []
    for s in body:
        if not has_barrier(s):
            current.append(s)
            continue
        if current:
            yield current, in_loop
        current = []
        if isinstance(s, N.If):
            yield from segments(s.then, in_loop)
            yield from segments(s.orelse, in_loop)
        elif isinstance(s, N.While):
            yield from segments(s.body, True)
    if current:
        yield current, in_loop


def local_refs(stmts) -> set[str]:
    """The locals the statements (nested ones included) read, assign or loop over."""
    names = set()
    for s in iter_stmts(stmts):
        names |= {x.arg for x in stmt_exprs(s) if x.op is Op.VAR}
        if isinstance(s, N.Assign):
            names.add(s.name)
        if isinstance(s, N.For):
            names.add(s.var)
    return names


def _assigned_first(stmts, name: str) -> tuple[bool, bool]:
    """(safe, assigned): no path through `stmts` reads `name` before assigning it, and every
    path assigns it. A segment a loop re-enters needs no cell for a `safe` local. Recurses by
    hand into `if` branches, whose paths it joins; a loop may run zero times (not `safe`)."""
    assigned = False
    for s in stmts:
        if assigned:
            break
        if name not in local_refs([s]):
            continue
        if isinstance(s, N.Assign) and s.name == name:
            safe, done = name not in local_refs([N.ExprStmt(s.loc, s.value)]), True
        elif isinstance(s, N.If) and name not in {x.arg for x in iter_exprs(s.cond)
                                                  if x.op is Op.VAR}:
            (st, at), (se, ae) = _assigned_first(s.then, name), _assigned_first(s.orelse, name)
            safe, done = st and se, at and ae
        elif isinstance(s, N.For) and s.var == name:  # Tack: never read after its loop
            safe, done = True, False
        else:
            safe, done = False, False
        if not safe:
            return False, False
        assigned = done
    return True, assigned


def declared(kir: KernelIR) -> dict:
    """`kir.locals` and any `for` variable the typechecker did not list, with their dtypes."""
    loops = {s.var: s.start.dtype for s in iter_stmts(kir.body) if isinstance(s, N.For)}
    return {**kir.locals, **{n: t for n, t in loops.items() if n not in kir.locals}}


def cell_locals(kir: KernelIR) -> set[str]:
    """Locals that must survive from one segment to another: used by two segments, or by a
    segment that a loop re-enters unless that segment assigns them before any use."""
    seen: dict[str, int] = {}
    cells = set()
    for stmts, in_loop in segments(kir.body):
        for name in local_refs(stmts):
            seen[name] = seen.get(name, 0) + 1
            if seen[name] > 1 or (in_loop and not _assigned_first(stmts, name)[0]):
                cells.add(name)
    return cells & set(declared(kir))


def barrier_cells(kir: KernelIR) -> KernelIR:
    """Each local of `cell_locals` becomes a one-element local scratch array (rendered as
    `v = @private T (1,)`, indexed `v[1]`), zeroed first like every other local. A `for` over such
    a local loops over a fresh plain local `tk_fJ` and stores it into the cell."""
    if not uses_barriers(kir):
        return kir
    cells = cell_locals(kir)
    if not cells:
        return kir
    types = declared(kir)
    locals_ = {n: t for n, t in types.items() if n not in cells}
    names = []

    def zero_idx(loc):
        return (Expr(Op.CONST, dt.i64, (), 0, loc),)

    def load(e):
        if e.op is Op.VAR and e.arg in cells:
            return Expr(Op.LOAD, e.dtype, zero_idx(e.loc), e.arg, e.loc)
        return e

    def stmt(s, walk):  # top-down: an outer loop's `tk_fJ` is numbered before its inner loops'
        if isinstance(s, N.Assign) and s.name in cells:
            return N.Store(s.loc, s.name, zero_idx(s.loc), s.value, s.name)
        if isinstance(s, N.For) and s.var in cells:
            fresh = _fresh(kir, f"tk_f{len(names) + 1}", names)
            names.append(fresh)
            locals_[fresh] = types[s.var]
            copy = N.Store(s.loc, s.var, zero_idx(s.loc),
                           Expr(Op.VAR, types[s.var], (), fresh, s.loc), s.var)
            return dataclasses.replace(s, var=fresh, body=[copy] + walk(s.body))
        return map_blocks(s, walk)

    order = [n for n in types if n in cells]
    zeros = [N.Store(kir.loc, n, zero_idx(kir.loc), Expr(Op.CONST, types[n], (), 0, kir.loc),
                     n) for n in order]
    scratch = {**kir.scratch, **{n: N.Scratch(n, types[n], 1, "local") for n in order}}
    body = map_stmts(map_body(kir.body, load), stmt, top_down=True)
    return _with(kir, names, body=zeros + body, locals=locals_, scratch=scratch)
