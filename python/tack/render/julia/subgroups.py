"""The KernelAbstractions sub-group form of warp operations, and the choice between it and the
`@localmem` emulation (docs/design/003-julia-rendering.md, "Warps and KI sub-groups").

Every warp kernel has one default text, the emulation of `rewrites.warps_to_shared`, which runs
on KernelAbstractions (KA) 0.9 and 0.10 and on every backend. Its second text, the `KI` form,
differs only in the warp operations that KA's own sub-group interface can spell: it is printed
from the same IR through `ka.FORMS["ki"]`, whose first rewrite is `warps_to_subgroups` instead of
`warps_to_shared`. The Julia engine picks the text at compile time with `choose_form`.

What KA offers: no release of KA has sub-group functions (its newest tag is v0.9.41; `main` is
0.10.0-dev). The sub-group interface of KA's repository
(https://github.com/JuliaGPU/KernelAbstractions.jl/pull/668, `src/intrinsics.jl`, module
`KernelAbstractions.KernelIntrinsics`) holds the id and size queries, `sub_group_barrier`, the
host's `sub_group_size(backend)` and `shfl_down_types(backend)`, and one exchange,
`shfl_down(val, offset)`. Shuffles by lane, up and xor, votes, ballots and reductions are not in
it, and cannot be built from `shfl_down` alone (a lane reads only higher lanes), so they stay the
emulation in both texts. So the KI form writes exactly `tack.shfl_down` by a constant offset:

* Tack's warp is 32 lanes, lane = `thread_id() & 31`; a linear sub-group of 32 or 64 work-items
  holds one or two whole warps (the workgroup of 256 is a multiple of both), so a lane whose
  source `lane + s` is at most 31 reads inside its own warp and sub-group, where KA's `shfl_down`
  and Tack's agree. Every other lane keeps its own value, as ops.py says, through a `SELECT`
  written in the IR: `shfl_down(x, s)` becomes `ifelse(lane + s <= 31, shfl_down(x, s), x)`,
  which is the same value under Tack's semantics (the simulator runs it to the same bits), and
  the printer spells only the inner `shfl_down` as the KI call (through `TackRuntime.tk_shfl_down`,
  so the module path of KA's interface is named in one place).
* The offset must be a constant: KA's docstring does not say that lanes may pass different
  offsets, which backends differ on; a constant is the same on every lane.
* The operand is evaluated by both arms of the `SELECT`, so it must hold no atomic and no other
  warp collective (they would run twice); such a shuffle stays the emulation.
* Every lane of a sub-group must reach `shfl_down` (KA's docstring): Tack launches kernels with
  warp collectives over complete 256-lane groups only, and the workgroup contract
  (capabilities.check_uniform_participation) has proved that every lane reaches each one.
"""
from __future__ import annotations

import dataclasses

from ... import dtypes as dt
from ...ir.nodes import Expr, KernelIR
from ...ir.ops import ATOMIC, WARP, WARP_COLLECTIVES, Op
from ...ir.walk import iter_exprs, iter_stmts, map_body, stmt_exprs
from ...passes.warps_shared import warps_through_shared

EMULATED, KI = "emulated", "ki"
KI_MIN_VERSION = (0, 10)  # KA 0.9 has no sub-group interface
SUB_GROUP_SIZES = (32, 64)  # a linear sub-group of these sizes holds whole 32-lane warps


@dataclasses.dataclass(frozen=True)
class SubGroups:
    """What a backend's sub-groups are, as the Julia engine learns them: `size` is KA's
    `sub_group_size(backend)`, `linear` whether a sub-group is consecutive local ids (the engine's
    table, docs/design/003), `shuffle_types` the Julia type names of `shfl_down_types(backend)`."""
    size: int
    linear: bool
    shuffle_types: frozenset[str]


def choose_form(ka_version: tuple[int, ...], subgroups: SubGroups | None,
                needs: frozenset[str]) -> str:
    """`KI` where the kernel has shuffles of the KI form (`needs`: their Julia element types), KA
    is 0.10 or later, the backend has KA's sub-group functions (`subgroups` is not None), its
    sub-groups are linear and 32 or 64 wide, and it shuffles every type in `needs`; else
    `EMULATED`, the text that runs everywhere (docs/design/003, "Warps and KI sub-groups")."""
    if not needs or tuple(ka_version[:2]) < KI_MIN_VERSION or subgroups is None:
        return EMULATED
    fits = subgroups.linear and subgroups.size in SUB_GROUP_SIZES
    return KI if fits and needs <= subgroups.shuffle_types else EMULATED


def ki_shuffle(e: Expr) -> bool:
    """A warp operation the KI form spells with KA's `shfl_down` (the module docstring)."""
    if e.op is not Op.SHFL_DOWN or e.args[1].op is not Op.CONST:
        return False
    inner = iter_exprs(e.args[0])
    return not any(x.op in ATOMIC or x.op in WARP_COLLECTIVES for x in inner)


def ki_shuffle_types(kir: KernelIR) -> frozenset:
    """The dtypes of the KI form's shuffles in `kir` (empty: both texts are the same)."""
    return frozenset(x.dtype for s in iter_stmts(kir.body) for x in stmt_exprs(s)
                     if ki_shuffle(x))


def _segment(e: Expr) -> Expr:
    """`shfl_down(x, s)` → `ifelse(lane + s <= 31, shfl_down(x, s), x)`, s in [0, 31]."""
    if not ki_shuffle(e):
        return e
    x, loc, i32 = e.args[0], e.loc, dt.i32
    s = int(e.args[1].arg) & (WARP - 1)
    if s == 0:
        return x
    c = Expr(Op.CONST, i32, (), s, loc)
    tid = Expr(Op.THREAD_ID, i32, (), None, loc)
    lane = Expr(Op.AND_, i32, (tid, Expr(Op.CONST, i32, (), WARP - 1, loc)), None, loc)
    inside = Expr(Op.LE, dt.bool_, (Expr(Op.ADD, i32, (lane, c), None, loc),
                                    Expr(Op.CONST, i32, (), WARP - 1, loc)), None, loc)
    return Expr(Op.SELECT, e.dtype, (inside, e.replace(args=(x, c)), x), None, loc)


def warps_to_subgroups(kir: KernelIR, prefix: str) -> KernelIR:
    """The KI form's warp operations: each `ki_shuffle` on its warp's segment of the sub-group,
    every other one through `@localmem` (passes/warps_shared.py), names starting with
    `prefix`."""
    body = map_body(kir.body, _segment)
    seg = kir if body == kir.body else dataclasses.replace(kir, body=body)
    return warps_through_shared(seg, prefix, keep=ki_shuffle)
