"""`REGISTRY`: every builtin of the kernel language, keyed by the name a kernel writes.

The math functions come from `functions.py` with their `Op`; the rest are declared here with
`add_builtin`: conversions and arithmetic builtins whose op is also an operator's (`abs`, `min`,
`pow`, `int`, `tack.f32`, ...), `any`/`all`/`print`/`range`, the vector types, and the device
functions. A device function that is an IR op or statement with a structural lowering of its own
(atomics: `atomicrmw`; `shared`: an addrspace(3) global; `barrier`; `thread_id`) names its op or
its statement here; the renderers keep that lowering in their printers (ir/ops.py documents
each op's meaning).

`resolve(obj)` gives the entry a host object denotes in a kernel (`math.sqrt`, Python's `abs`,
`tack.atomic_add`, `tack.f32`, `tack.vec3`); `by_op(op)` the entry whose op an expression is.
"""
from __future__ import annotations

import builtins as _py
import dataclasses
import math

import numpy as np

from .. import dtypes as dt
from ..ir.ops import WARP, WORKGROUP, Op
from .entry import NUMBER, Builtin, intrinsic, library, template
from .functions import FUNCTIONS
from .host import host_function

REGISTRY: dict[str, Builtin] = {}


def add_builtin(name: str, call: str, doc: str, *, group: str, form: str = "op",
                arity: tuple[int, int] | None = None, namespace: str = "", **fields) -> Builtin:
    """Declare a builtin (the `Builtin` fields by keyword); its key is `namespace + name`."""
    b = Builtin(name, call, doc, group, form, arity, namespace=namespace, **fields)
    key = b.qualified
    if key in REGISTRY:
        raise ValueError(f"builtin {key!r} declared twice")
    REGISTRY[key] = b
    return b


# ---- math functions: functions.py's entries with the Op each declared, and `tack.<name>` -------
HOST_FUNCTIONS = {}  # name → the host function (host.py), an alias of its entry
for _f in FUNCTIONS:
    _fn = host_function(_f) if _f.host else None
    if _fn is not None:
        HOST_FUNCTIONS[_f.name] = _fn
    REGISTRY[_f.qualified] = dataclasses.replace(
        _f, op=Op[_f.name.upper()], aliases=_f.aliases + ((_fn,) if _fn else ()))

# ---- arithmetic builtins whose op is also an operator's; lowered as that op (ir/ops.py) -----------
add_builtin("pow", "pow(x, y)", "x**y (integer power when both are integers)", group="math",
            arity=(2, 2), op=Op.POW, typing="power", domain=NUMBER, numpy=np.power,
            cpu=intrinsic("llvm.pow"), ptx=library("pow"), julia=template("tk_pow({0}, {1})"),
            aliases=(_py.pow, math.pow, np.power))
add_builtin("abs", "abs(x)", "absolute value; integers keep their type (wrapping)",
            group="arithmetic", arity=(1, 1), op=Op.ABS, domain=NUMBER,
            aliases=(_py.abs, math.fabs, np.abs, np.fabs))
add_builtin("min", "min(a, b, ...)", "smallest argument; a NaN loses to a number",
            group="arithmetic", form="minmax", arity=(2, -1), op=Op.MIN, domain=NUMBER,
            aliases=(_py.min, np.minimum))
add_builtin("max", "max(a, b, ...)", "largest argument; a NaN loses to a number",
            group="arithmetic", form="minmax", arity=(2, -1), op=Op.MAX, domain=NUMBER,
            aliases=(_py.max, np.maximum))
add_builtin("len", "len(a)", "extent of an array's first dimension (i64); of a vector or table "
            "constant, its length", group="arithmetic", form="len", arity=(1, 1), op=Op.SHAPE,
            aliases=(_py.len,))

# ---- conversions -----------------------------------------------------------------------------
add_builtin("int", "int(x)", "convert to i32, truncating toward zero", group="conversions",
            form="cast", arity=(1, 1), op=Op.CAST, dtype=dt.i32, aliases=(_py.int,))
add_builtin("float", "float(x)", "convert to f32", group="conversions", form="cast",
            arity=(1, 1), op=Op.CAST, dtype=dt.f32, aliases=(_py.float,))
for _t in dt.STORAGE:
    add_builtin(_t.name, f"tack.{_t.name}(x)",
                f"convert to {_t.name} (ir/ops.py, CAST: "
                + ("rounds" if _t.is_float else "wraps; a float truncates toward zero and "
                   "saturates") + ")",
                group="conversions", form="cast", arity=(1, 1), op=Op.CAST, dtype=_t,
                namespace="tack.")
add_builtin("bitcast", "tack.bitcast(x, dtype)", "x's bits read as dtype (a number of the same "
            "width: f32 and u32/i32, f64 and u64/i64, ...); nothing converted",
            group="conversions", form="bitcast", arity=(2, 2), op=Op.BITCAST,
            namespace="tack.")

# ---- masks, selection, output ------------------------------------------------------------------
add_builtin("any", "any(mask)", "whether any component of a bool vector is true", group="vectors", form="mask", arity=(1, 1), op=Op.ANY, aliases=(_py.any,))
add_builtin("all", "all(mask)", "whether every component of a bool vector is true", group="vectors", form="mask", arity=(1, 1), op=Op.ALL, aliases=(_py.all,))
add_builtin("select", "tack.select(mask, a, b)", "per component, a where mask is true, else b "
            "(both evaluated)", group="vectors", arity=(3, 3), op=Op.SELECT, namespace="tack.")
add_builtin("print", "print(a, b, ...)", "one line: the items separated by spaces (a statement; "
            "strings are literals)", group="statements", form="print", op=Op.PRINT,
            aliases=(_py.print,), statement=True)

# ---- vector and matrix values ------------------------------------------------------------------
for _n in (2, 3, 4):
    add_builtin(f"vec{_n}", f"tack.vec{_n}({', '.join('xyzw'[:_n])})",
                f"an f32 vector of {_n} components", group="vectors", form="vector",
                op=Op.VECTOR, namespace="tack.")
for _n in (2, 3, 4):
    add_builtin(f"mat{_n}", f"tack.mat{_n}(...)", f"an f32 {_n}×{_n} matrix, by rows",
                group="vectors", form="vector", op=Op.VECTOR, namespace="tack.")
add_builtin("vector", "tack.vector(n, dtype)(...)", "a vector type made on the host (n <= 4 "
            "components of dtype): called in a kernel, a vector value", group="vectors",
            form="vector", op=Op.VECTOR, namespace="tack.")
add_builtin("matrix", "tack.matrix(n, m, dtype)(...)", "a matrix type made on the host: called "
            "in a kernel, a matrix value by rows", group="vectors", form="vector",
            op=Op.VECTOR, namespace="tack.")
add_builtin("Vector", "tack.Vector([a, b, c])", "a vector value (a list works too)",
            group="vectors", form="matrix", arity=(1, 1), op=Op.VECTOR, namespace="tack.")
add_builtin("Matrix", "tack.Matrix([[a, b], [c, d]]) or tack.Matrix([u, v])",
            "a matrix by rows", group="vectors", form="matrix", arity=(1, 1), op=Op.VECTOR,
            namespace="tack.")
add_builtin("identity", "tack.Matrix.identity(n)", "the n×n identity matrix (a literal n in "
            "1..4)", group="vectors", form="matrix", arity=(1, 1), op=Op.VECTOR,
            namespace="tack.Matrix.")

# ---- loops -------------------------------------------------------------------------------------
add_builtin("range", "for i in range(start, stop, step)", "the parallel loop (outermost) or a "
            "sequential loop", group="loops", form="loop", aliases=(_py.range,))
add_builtin("ndrange", "for i, j in tack.ndrange(a, b)", "the parallel loop over a domain of any "
            "rank (one name per argument); each argument a size or a (start, end) pair; the "
            "last index varies fastest", group="loops", form="loop", namespace="tack.")
add_builtin("unroll", "for j in tack.unroll(range(...), factor)", "a sequential loop inside a "
            "kernel, unrolled `factor` times (1: not unrolled), or fully (no factor) when its "
            "trip count is a compile-time constant", group="loops", form="loop", arity=(1, 2),
            namespace="tack.")

# ---- device functions: scratch memory, workgroups, atomics, checks -------------------------------
for _name, _space, _first, _doc in (
        ("local_array", "local", "dtype", "scratch private to one iteration; compile-time size"),
        ("local_array_like", "local", "array", "local_array with the array's dtype"),
        ("shared", "shared", "dtype", "workgroup memory (GPU engines only); compile-time size"),
        ("shared_like", "shared", "array", "shared with the array's dtype")):
    add_builtin(_name, f"s = tack.{_name}({_first}, size)", _doc, group="device",
                form="scratch", arity=(2, 2), namespace="tack.", space=_space,
                needs="workgroups" if _space == "shared" else "")
add_builtin("barrier", "tack.barrier()", "synchronize the lanes of a workgroup (GPU only; a "
            "statement: ir/nodes.py `Barrier`)", group="device", form="statement", arity=(0, 0),
            namespace="tack.", needs="workgroups", statement=True)
add_builtin("thread_id", "tack.thread_id()", f"lane index in [0, {WORKGROUP}), the workgroup "
            "size (GPU only)", group="device", arity=(0, 0), op=Op.THREAD_ID,
            dtype=dt.i32, namespace="tack.", needs="workgroups")
# ---- warps: WARP-lane groups of a workgroup, collectives as a barrier is (ir/ops.py, "Warps") --
add_builtin("lane_id", "tack.lane_id()", f"lane index within the warp, in [0, {WARP}) "
            "(`thread_id() % tack.WARP_SIZE`; GPU only)", group="device", arity=(0, 0),
            op=Op.LANE_ID, dtype=dt.i32, namespace="tack.", needs="workgroups")
add_builtin("warp_id", "tack.warp_id()", f"warp index within the workgroup, in [0, "
            f"{WORKGROUP // WARP}) (`thread_id() // tack.WARP_SIZE`; GPU only)", group="device",
            arity=(0, 0), op=Op.WARP_ID, dtype=dt.i32, namespace="tack.", needs="workgroups")
for _op, _arg, _doc in (
        (Op.SHFL, "lane", "x of lane `lane % 32` of the warp"),
        (Op.SHFL_XOR, "mask", "x of lane `lane_id() ^ (mask % 32)` (a butterfly step)"),
        (Op.SHFL_UP, "delta", "x of lane `lane_id() - delta % 32`; a lane below it keeps its own"),
        (Op.SHFL_DOWN, "delta", "x of lane `lane_id() + delta % 32`; past lane 31, its own")):
    add_builtin(_op.name.lower(), f"tack.{_op.name.lower()}(x, {_arg})", _doc + " (a warp "
                "collective; any scalar dtype)", group="device", arity=(2, 2), op=_op,
                namespace="tack.", needs="workgroups")
for _op, _call, _doc in (
        (Op.WARP_ANY, "warp_any(p)", "whether p holds on any lane of the warp (bool)"),
        (Op.WARP_ALL, "warp_all(p)", "whether p holds on every lane of the warp (bool)"),
        (Op.BALLOT, "ballot(p)", "u32 whose bit k is set where p holds on lane k")):
    add_builtin(_op.name.lower(), f"tack.{_call}", _doc + " (a warp collective)",
                group="device", arity=(1, 1), op=_op, namespace="tack.", needs="workgroups")
for _op, _what in ((Op.WARP_SUM, "sum (integers wrap)"), (Op.WARP_MIN, "minimum"),
                   (Op.WARP_MAX, "maximum")):
    add_builtin(_op.name.lower(), f"tack.{_op.name.lower()}(x)", f"the warp's {_what} of x, "
                "to every lane, in the fixed xor-butterfly order (a warp collective)",
                group="device", arity=(1, 1), op=_op, domain=NUMBER, namespace="tack.",
                needs="workgroups")
# ---- asynchronous copies global → shared, completed by groups (ir/ops.py, "Asynchronous copies") -
add_builtin("async_copy", "tack.async_copy(dst, j, src, i, count)", "start copying src[i] (count "
            "consecutive elements, 1 if omitted; 4, 8 or 16 bytes) into the shared array dst at "
            "j; it lands when a tack.async_wait covers its group (a statement; GPU only)",
            group="device", form="async_copy", arity=(4, 5), op=Op.ASYNC_COPY,
            namespace="tack.", needs="workgroups", statement=True)
add_builtin("async_commit", "tack.async_commit()", "close this lane's group of asynchronous "
            "copies (a statement; GPU only)", group="device", form="async_statement",
            arity=(0, 0), op=Op.ASYNC_COMMIT, dtype=dt.i32, namespace="tack.",
            needs="workgroups", statement=True)
add_builtin("async_wait", "tack.async_wait(n)", "wait until at most the n newest committed "
            "groups of this lane are pending (n a literal int >= 0; a statement; GPU only)",
            group="device", form="async_statement", arity=(1, 1), op=Op.ASYNC_WAIT,
            dtype=dt.i32, namespace="tack.", needs="workgroups", statement=True)

# ---- transaction barriers and bulk copies completed on them (ir/ops.py, "Transaction barriers") --
add_builtin("mbarriers", "bars = tack.mbarriers(n)", "n transaction barriers in workgroup memory "
            "(PTX mbarrier objects; compile-time n); bars[s] names one in the calls below",
            group="device", form="scratch", arity=(1, 1), namespace="tack.", space="shared",
            needs="workgroups")
add_builtin("mbarrier_init", "tack.mbarrier_init(bars[s], count)", "make barrier bars[s] expect "
            "count arrivals per phase; phase 0 begins (one lane, then a tack.barrier(); a "
            "statement; GPU only)", group="device", form="mbarrier", arity=(2, 2),
            op=Op.MBARRIER_INIT, namespace="tack.", needs="workgroups", statement=True)
add_builtin("mbarrier_arrive", "tack.mbarrier_arrive(bars[s])", "one arrival on the barrier's "
            "current phase (a statement; GPU only)", group="device", form="mbarrier",
            arity=(1, 1), op=Op.MBARRIER_ARRIVE, namespace="tack.", needs="workgroups", statement=True)
add_builtin("mbarrier_arrive_tx", "tack.mbarrier_arrive_tx(bars[s], nbytes)", "expect nbytes more "
            "bytes of bulk copies on the current phase, then arrive (sm_90; a statement; GPU "
            "only)", group="device", form="mbarrier", arity=(2, 2), op=Op.MBARRIER_ARRIVE_TX,
            namespace="tack.", needs="workgroups", statement=True)
add_builtin("mbarrier_wait", "tack.mbarrier_wait(bars[s], phase)", "wait until the barrier's "
            "phase of parity phase % 2 has completed (its data visible to this lane; a "
            "statement; GPU only)", group="device", form="mbarrier", arity=(2, 2),
            op=Op.MBARRIER_WAIT, namespace="tack.", needs="workgroups", statement=True)
add_builtin("async_bulk_copy", "tack.async_bulk_copy(dst, j, src, i, count, bars[s])", "start "
            "copying count consecutive elements src[i]... (a multiple of 16 bytes) into the "
            "shared array dst at j; their bytes complete a transaction on bars[s] (sm_90; a "
            "statement; GPU only)", group="device", form="bulk_copy", arity=(6, 6),
            op=Op.ASYNC_BULK_COPY, namespace="tack.", needs="workgroups", statement=True)
add_builtin("async_tensor_copy", "tack.async_tensor_copy(dst, j, src, (row, col), (ROWS, COLS), "
            "bars[s], layout)", "start copying the ROWS × COLS box at src[row, col] of a 2-D "
            "array (zeros where it lies outside) into the shared array dst at j, laid out as "
            "layout (\"swizzle128\" or \"none\"); the box's bytes complete a transaction on "
            "bars[s] (TMA, sm_90; a statement; GPU only)", group="device", form="bulk_copy",
            arity=(7, 7), op=Op.ASYNC_TENSOR_COPY, namespace="tack.", needs="workgroups", statement=True)

# ---- matrix multiply-accumulate: warp-held fragments (ir/mma.py; docs/language.md) ------------
_AT = ("x, row, col[, ld]", ("the tile whose top-left element is x[row, col] of a 2-D array, "
                             "or x[row * ld + col] of a 1-D one (a tack.shared tile)"))
_A = ("this lane's part of the warp's 16×16 A tile (16×8 for f32), from an f16, bf16 or f32 "
      "array")
_B = ("this lane's part of the warp's 16×8 B tile (8×8 for f32), from an f16, bf16 or f32 "
      "array")
_ACC = "this lane's part of the warp's 16×8 f32 accumulator tile, from an f32 array"
for _name, _what, _role in (("mma_load_a", _A, "a"), ("mma_load_b", _B, "b"),
                            ("mma_load_acc", _ACC, "acc")):
    add_builtin(_name, f"tack.{_name}({_AT[0]})", f"{_what}: {_AT[1]} (a warp collective)",
                group="device", form="fragment", arity=(3, 4), namespace="tack.",
                needs="workgroups", arrays=(0,), role=_role)
add_builtin("mma_load_bt", f"tack.mma_load_bt({_AT[0]})", "this lane's part of the warp's 16×8 "
            "B tile read transposed from an f16 or bf16 array: B[k, n] is x[row + n, col + k] "
            "of a 2-D array or x[(row + n) * ld + col + k] of a 1-D one, as B = K^T of a "
            "row-major K (a warp collective)", group="device", form="fragment", arity=(3, 4),
            namespace="tack.", needs="workgroups", arrays=(0,), role="b")
add_builtin("mma_zeros", "tack.mma_zeros()", "a 16×8 f32 accumulator fragment of zeros",
            group="device", form="fragment", arity=(0, 0), namespace="tack.", needs="workgroups")
for _name, _what in (("mma_rows", "row (0..15)"), ("mma_cols", "column (0..7)")):
    add_builtin(_name, f"tack.{_name}()", "an accumulator-shaped i32 fragment: each element of "
                f"the 16×8 tile holds its {_what}", group="device", form="fragment",
                arity=(0, 0), namespace="tack.", needs="workgroups")
for _name, _what in (("mma_row_max", "maximum"), ("mma_row_sum", "sum")):
    add_builtin(_name, f"tack.{_name}(acc)", f"the f32 accumulator whose every element is the "
                f"{_what} of its row of acc's 16×8 tile (the quad's xor butterfly; a warp "
                "collective)", group="device", form="fragment", arity=(1, 1), namespace="tack.",
                needs="workgroups")
add_builtin("mma_to_a", "tack.mma_to_a(lo, hi)", "the f16 or bf16 A fragment of the 16×16 tile "
            "whose columns 0..7 are the accumulator-shaped fragment lo and 8..15 hi, both of "
            "that dtype (no data moves between lanes)", group="device", form="fragment",
            arity=(2, 2), namespace="tack.", needs="workgroups")
add_builtin("mma_store", f"tack.mma_store(acc, {_AT[0]})", "store the warp's 16×8 accumulator "
            f"tile at {_AT[1]} (a statement)", group="device", form="fragment", arity=(4, 5),
            namespace="tack.", needs="workgroups", arrays=(1,), statement=True)
add_builtin("mma", 'tack.mma(a, b, acc[, "tf32"])', "the accumulator A @ B + acc of the warp's "
            "fragments (tensor cores: m16n8k16 for f16/bf16, m16n8k8 for f32, which must say "
            '"tf32": its inputs are rounded to TF32); products exact, added in k order with one '
            "f32 rounding each (a warp collective)", group="device", form="mma", arity=(3, 4),
            op=Op.MMA, namespace="tack.", needs="workgroups")
# ---- warpgroup MMA: 128 lanes, shared operands, asynchronous (ir/wgmma.py; docs/language.md) --
add_builtin("wgmma_zeros", "tack.wgmma_zeros(n)", "a warpgroup accumulator of the 64×n f32 tile "
            "D, zeros (n a compile-time multiple of 8, 8..256; n/2 f32 per lane)",
            group="device", form="wgmma", arity=(1, 1), namespace="tack.", needs="workgroups")
add_builtin("wgmma", 'tack.wgmma(acc, As, a, Bs, b, layout[, "tf32"])', "start D = A @ B + D "
            "on the warpgroup's accumulator acc, in place: A the 64×K tile of the shared array "
            "As starting at element a, B the n×K tile (B transposed) of Bs at b, both staged in "
            'layout "swizzle128" or "interleave" (tack.wgmma_index); K = 16 for f16/bf16, 8 for '
            'f32, which must say "tf32". acc holds D after a tack.wgmma_wait covers it (a '
            "warpgroup collective statement; sm_90a)", group="device", form="wgmma",
            arity=(6, 7), namespace="tack.", needs="workgroups", arrays=(1, 3), strings=(5, 6),
            statement=True)
add_builtin("wgmma_commit", "tack.wgmma_commit()", "close the warpgroup's group of tack.wgmma "
            "operations (a statement)", group="device", form="wgmma", arity=(0, 0),
            namespace="tack.", needs="workgroups", statement=True)
add_builtin("wgmma_wait", "tack.wgmma_wait(n)", "wait until at most the n newest committed "
            "tack.wgmma groups are pending (n a literal int >= 0; a statement)", group="device",
            form="wgmma", arity=(1, 1), namespace="tack.", needs="workgroups", statement=True)
add_builtin("wgmma_store", "tack.wgmma_store(acc, x, row, col[, ld])", "store the warpgroup's "
            f"64×n accumulator tile at {_AT[1]}, converted to x's dtype (a statement)",
            group="device", form="wgmma", arity=(4, 5), namespace="tack.", needs="workgroups",
            arrays=(1,), statement=True)
add_builtin("wgmma_index", "tack.wgmma_index(x, row, k, layout)", "i32: where element (row, k) "
            "of a tile staged for tack.wgmma sits, in elements of x's dtype from the tile's "
            'start (layout "swizzle128" or "interleave"; rows of 128 bytes)', group="device",
            form="wgmma", arity=(4, 4), namespace="tack.", arrays=(0,), strings=(3,))
for _op, _what in ((Op.ATOMIC_ADD, "add"), (Op.ATOMIC_MIN, "minimum"),
                   (Op.ATOMIC_MAX, "maximum")):
    _name = _op.name.lower()
    add_builtin(_name, f"tack.{_name}(array, index, value)",
                f"{_what} atomically; returns the old value", group="device", form="atomic",
                arity=(3, 3), op=_op, domain=NUMBER, namespace="tack.")
add_builtin("expect_dtype", "expect_dtype(x, dtype, what)", "x, or a TypeError naming `what` "
            "when x's dtype differs (library code checks its inputs with it: `from "
            "tack.intrinsics import expect_dtype`)", group="device", form="expect_dtype",
            arity=(3, 3), op=Op.TYPED, namespace="tack.intrinsics.")


# ---- lookups -----------------------------------------------------------------------------------
# Bare names a kernel may call without an import (`sqrt`, `min`, `range`, `print`).
BARE: dict[str, Builtin] = {b.name: b for b in REGISTRY.values() if not b.namespace}
_BY_ALIAS: dict[int, Builtin] = {id(a): b for b in REGISTRY.values() for a in b.aliases}
# The device functions by their objects' `__tack_intrinsic__` name (intrinsics.py).
_BY_INTRINSIC: dict[str, Builtin] = {b.name: b for b in REGISTRY.values() if b.intrinsic}
_BY_DTYPE: dict[dt.DType, Builtin] = {b.dtype: b for b in REGISTRY.values()
                                      if b.form == "cast" and b.namespace}
_BY_OP: dict[Op, Builtin] = {b.op: b for b in REGISTRY.values()
                             if b.op is not None and b.form in ("op", "minmax")}


def resolve(obj) -> Builtin | None:
    """The builtin a host object stands for in a kernel, if any: a registered alias (by
    identity: `math.sqrt`, `np.sqrt`, Python's `abs`), a device function (`tack.atomic_add`,
    by its `__tack_intrinsic__` name), a dtype (`tack.f32`: a cast) or a vector type."""
    name = getattr(obj, "__tack_intrinsic__", None)
    if isinstance(name, str):
        return _BY_INTRINSIC.get(name)
    if isinstance(obj, dt.DType):
        return _BY_DTYPE.get(obj)
    if isinstance(obj, dt.VecType):
        kind = "mat" if obj.is_matrix else "vec"
        square = not obj.is_matrix or obj.shape[0] == obj.shape[1]
        if obj.elem is dt.f32 and square and f"tack.{kind}{obj.shape[0]}" in REGISTRY:
            return REGISTRY[f"tack.{kind}{obj.shape[0]}"]
        return REGISTRY["tack.matrix" if obj.is_matrix else "tack.vector"]
    return _BY_ALIAS.get(id(obj))


def by_op(op: Op) -> Builtin | None:
    """The builtin whose call an expression of `op` is, for the ops an "op" or "minmax" form
    builds (the math functions, `pow`, `abs`, `min`/`max`, `select`, `thread_id`): renderers
    and the simulator read its lowering."""
    return _BY_OP.get(op)


def functions() -> list[Builtin]:
    """The math functions (functions.py), with their ops, in declaration order."""
    return [REGISTRY[f.qualified] for f in FUNCTIONS]


def lowered(engine: str) -> dict[Op, Builtin]:
    """Op → entry for every entry with a lowering on `engine` ("cpu", "ptx", "julia", or
    "numpy" for the simulator)."""
    return {b.op: b for b in _BY_OP.values() if getattr(b, engine) is not None}
