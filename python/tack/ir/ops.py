"""The one op table. Every stage keys on `Op`; nothing matches on strings.

Semantics of each op in the *final* IR that renderers receive (after `passes.pipeline`):

Leaves
  CONST    arg = Python int/float value, already representable in `dtype`.
  VAR      arg = local variable name (declared in `KernelIR.locals`).
  PARAM    arg = scalar parameter name (read-only; see `KernelIR.params`).
  LAUNCH   the launch index t, i64, in [0, n) where n is the launch's trip count.

Arithmetic (operands and result share `dtype` unless stated; integer ops wrap modulo 2^bits)
  NEG ADD SUB MUL            plain; floats IEEE, ints wrapping.
  MULADD(a, b, c)            floats only: a * b + c, fused into one rounding where the hardware
                             has FMA (LLVM fmuladd, Julia muladd). Only `passes.muladd` makes it,
                             so every engine fuses the same operations (docs/language.md).
  FDIV                       float division.
  IDIV IREM                  integer division/remainder truncating toward zero (C `/` `%`,
                             LLVM sdiv/srem or udiv/urem by dtype). The IR guarantees the divisor is
                             neither 0 nor (signed) -1, so no target traps.
  FREM                       float remainder with the dividend's sign (C fmod, LLVM frem, Julia rem).
  POW                        float pow (both operands `dtype`).
  IPOW                       integer power, exponent >= 0 of any integer dtype (args[1]), result the
                             base's dtype, wrapping (by squaring).
  MIN MAX                    integers: exact, by signedness. Floats: a NaN loses to a number
                             (C fmin/fmax, LLVM minnum/maxnum, PTX min/max.f32); of +0 and -0,
                             max gives +0 and min -0 in either order.
  ABS                        ints: wrapping (MIN stays MIN); floats: fabs.
  AND_ OR_ XOR SHL SHR       bitwise on ints; SHR is arithmetic for signed, logical for unsigned.
                             Shift counts are already masked to [0, bits) by the IR.
  INVERT                     bitwise not.
Math (float operand and result, same dtype): one op per math function, declared by its entry in
builtins/functions.py (the name upper-cased; its lowering on every engine is in the entry too)
  SQRT EXP EXP2 LOG LOG2 LOG10 SIN COS TAN ASIN ACOS ATAN SINH COSH TANH FLOOR CEIL TRUNC
  ATAN2 (binary), COPYSIGN (binary)
  ISNAN                      float operand, bool result.
  RSQRT                      1/sqrt(x), only in fastmath kernels (elsewhere lowered to FDIV and
                             SQRT): a target may use its approximate reciprocal square root.
Comparisons (operands share a dtype; result dtype is bool)
  LT LE GT GE EQ NE          floats ordered (NE unordered: NaN != NaN is true).
Logic (bool operands, bool result)
  NOT
  LAND LOR                   short-circuit: args[1] is evaluated only when needed.
Selection
  SELECT(c, a, b)            eager: both arms evaluated; c is bool.
  IFEXP(c, a, b)             lazy: only the selected arm is evaluated (Python's `a if c else b`).
Conversion
  CAST                       to `dtype` from args[0].dtype: int→int truncates or extends by the SOURCE's
                             signedness; int→float rounds to nearest; float→int truncates toward zero
                             and saturates at the target's range, NaN giving 0 (LLVM fpto[su]i.sat);
                             float→float rounds; bool→int gives 0/1; int/float→bool is `!= 0`.
  BITCAST                    to `dtype` from args[0].dtype of the same width, neither bool: the
                             same bits read as the other dtype (LLVM bitcast, Julia reinterpret;
                             NaN payloads and -0.0 kept).
Memory
  LOAD                       arg = array parameter name; args = (flat element index, i64).
                             (Before `passes.linearize`: one index per dimension, any int dtype.)
  SHAPE                      arg = (array name, axis): the extent, i64. Only before `passes.linearize`.
  LOAD and `Store` also address scratch arrays (`KernelIR.scratch`: per-iteration `local` arrays and
  per-workgroup `shared` arrays) by name, with the same one flat i64 index.
  LOAD also reads constant tables (`KernelIR.tables`, read-only, never stored to); in the final IR
  its index is in [0, size) (`passes.tables` maps an index outside to the last entry).
Atomics (arg = global array parameter name; args = (flat i64 index, value); value and result have the
array's dtype; the result is the element's value just before the update; relaxed ordering)
  ATOMIC_ADD ATOMIC_MIN ATOMIC_MAX   integer add wraps; min/max by signedness; float min/max need a
                             compare-and-swap loop on most targets. Before `passes.linearize` args are
                             (*indices, value).
Workgroups (GPU engines only; the CPU engine rejects kernels that use them before rendering)
  THREAD_ID                  i32 lane index in [0, WORKGROUP) within the workgroup (WORKGROUP = 256
                             lanes); launch index t belongs to workgroup t // WORKGROUP at lane
                             t % WORKGROUP.
  The `Barrier` statement synchronizes the lanes of one workgroup (shared and global memory).
Warps (GPU engines only; collectives like `Barrier`: every lane of the workgroup takes part, so
every lane of a warp is active; docs/language.md "Warps")
  A warp is WARP lanes of one workgroup: lane l of the workgroup is lane l % WARP of warp
  l // WARP (WARP = 32 on every engine).
  LANE_ID WARP_ID            i32 leaves: THREAD_ID % WARP and THREAD_ID // WARP.
  SHFL(x, s)                 x of lane s & (WARP-1) of the warp (PTX shfl.sync.idx).
  SHFL_XOR(x, m)             x of lane lane ^ (m & (WARP-1)) (shfl.sync.bfly).
  SHFL_UP(x, d)              x of lane lane - (d & (WARP-1)), or the lane's own x when that is
                             below 0 (shfl.sync.up).
  SHFL_DOWN(x, d)            x of lane lane + (d & (WARP-1)), or its own x past WARP-1
                             (shfl.sync.down). x any scalar dtype; the second operand i32; the
                             result x's dtype (only the low 5 bits of s, m, d count, as in PTX).
  WARP_ANY(p) WARP_ALL(p)    bool: whether p holds on any / every lane of the warp.
  BALLOT(p)                  u32: bit k set where p holds on lane k.
  WARP_SUM WARP_MIN WARP_MAX the warp's reduction of x, every lane getting it; integers and
                             f32/f64 (passes/half.py gives halves the f32 one, rounded once).
                             The order is the xor butterfly, fixed so every engine gives the
                             same bits: for s in 16, 8, 4, 2, 1: x = op(x, SHFL_XOR(x, s)).
                             Integer sums wrap; min/max are MIN/MAX (a NaN loses).
Asynchronous copies (GPU engines only; statements: each the value of an ExprStmt, dtype i32 and
no value; docs/language.md "Asynchronous copies"). Per lane, not collectives: PTX cp.async,
cp.async.commit_group, cp.async.wait_group (https://docs.nvidia.com/cuda/parallel-thread-execution/
#data-movement-and-conversion-instructions-cp-async).
  ASYNC_COPY                 arg = (shared array, global array parameter, count); args = (shared
                             index, source index), flat i64 (before `passes.linearize`: (shared
                             index, *source indices)). Starts copying `count` consecutive
                             elements (count × element size = 4, 8 or 16 bytes, both indices
                             multiples of count) from the global array to the shared one. The
                             source is read when the copy starts; the elements land in shared
                             memory only when an ASYNC_WAIT of the issuing lane covers the copy's
                             group: until then a read sees the old contents. A lane's copies since
                             its last ASYNC_COMMIT form its open group.
  ASYNC_COMMIT               closes the lane's open group (an empty group if it holds no copy).
  ASYNC_WAIT                 arg = n, an int >= 0: waits until at most the n most recently
                             committed groups of the lane are pending; every older group's copies
                             have landed and this lane sees them (another lane after a Barrier).
                             The open group is not waited for.
Transaction barriers and bulk copies (GPU engines only; statements like the asynchronous copies;
docs/language.md "Transaction barriers"; the simulator's model is runtime/sim/mbarriers.py). A
barrier is one element of a `tack.mbarriers(n)` shared declaration (`Scratch.barriers`), named by
arg = the declaration and args[0] = its index (i64): PTX's mbarrier object
(https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier).
A barrier has a current phase (0, 1, 2, ...), an expected arrival count, the arrivals still
pending in this phase and a transaction count of bytes. The phase completes when its pending
arrivals reach 0 and its transaction count is 0; the next begins with the expected count.
  MBARRIER_INIT(i, count)    count (i32, >= 1) arrivals expected per phase; phase 0 begins.
  MBARRIER_ARRIVE(i)         one arrival on the current phase (release: the lane's earlier
                             accesses happen before the phase completes).
  MBARRIER_ARRIVE_TX(i, b)   the transaction count grows by b bytes (i32), then one arrival.
  MBARRIER_WAIT(i, p)        waits until the phase of parity p & 1 has completed (acquire): when
                             the current phase's parity is not p & 1 it returns at once, else
                             when the current phase completes.
  ASYNC_BULK_COPY            arg = (shared array, global array parameter, count, barriers);
                             args = (shared index, source index, barrier index), flat i64
                             (before `passes.linearize`: (shared index, *source indices, barrier
                             index)). Copies count consecutive elements (a multiple of 16 bytes,
                             both addresses 16-byte aligned) from the global array into the
                             shared one; their bytes complete a transaction on the barrier when
                             they land, and the elements are visible to the lanes that wait for
                             the phase that the bytes completed.
  ASYNC_TENSOR_COPY          arg = (shared array, 2-D global array parameter, (rows, cols,
                             layout), barriers); args = (shared index, row, col, barrier index),
                             i64 (the coordinates stay two: passes.linearize leaves them). Copies
                             the box of rows × cols elements at (row, col) of the array, which
                             may lie partly or wholly outside it (those elements are zeros), into
                             the shared one from the shared index on, element (r, c) of the box
                             where `ir.tma.place(layout, ...)` puts it; the whole box's bytes
                             complete a transaction on the barrier when it lands, as for
                             ASYNC_BULK_COPY (PTX's `cp.async.bulk.tensor` through a tensor map,
                             ir/tma.py).

Matrix multiply-accumulate (warp collectives too; ir/mma.py holds the shapes and the fragment
layouts, docs/language.md "Matrix multiply-accumulate" the language)
  FRAGMENT(x[, row, i])      x: one element of a warp-held MMA fragment as its lane loaded it
                             (arg = the loading builtin's name, "mma_load_a", ...). A collective,
                             so that a renderer may load the warp's tile with one instruction.
                             For an f16/bf16 A or B fragment of a shared tile also `row`, the
                             flat i64 index of the tile row this lane gives `ldmatrix`
                             (ir/mma.py `LDMATRIX`), and `i`, the element's position in the
                             fragment (an i32 constant); the value is x's all the same.
  MMA(a..., b..., c...)      f32: element arg[1] of this lane's D = A @ B + C fragment, for the
                             shape arg[0] (an `ir.mma.Variant` name). The operands are every
                             element of the lane's A, B and C fragments in fragment order; the
                             warp's tiles are what its 32 lanes hold. Each product is exact and
                             the products are added to C in k order, each addition an f32
                             rounding (an f32 fused multiply-add chain). TF32 operands are
                             already rounded to TF32 (their low 13 bits zero).

Warpgroup matrix multiply-accumulate (statements, each the value of an ExprStmt, dtype i32;
ir/wgmma.py holds the shapes, layouts and descriptors, docs/language.md "Warpgroup MMA" the
language). Collectives of the 128 lanes of a warpgroup (lanes 0..127 or 128..255 of a group).
  WGMMA(a, b, d...)          arg = (input variant "f16"/"bf16"/"tf32", N, layout, A's shared
                             array, B's shared array). a, b: i32 element indices in those arrays
                             where the A (64×K) and B (N×K) operands start; d...: VARs of the
                             N/2 f32 accumulator locals of this lane, which it updates in place,
                             asynchronously: D = A @ B + D, products exact, added in k order with
                             one f32 rounding each (TF32: each input's low 13 bits dropped). The
                             locals hold D only after a WGMMA_WAIT covers the op's group; until
                             then they may be read only as the accumulator of another WGMMA of
                             the same shape. The shared operands may be read at any moment from
                             the issue to that wait.
  WGMMA_COMMIT               closes the warpgroup's open group of WGMMAs.
  WGMMA_WAIT                 arg = n: waits until at most the n newest committed groups are
                             pending.
Output
  PRINT                      a statement (in an ExprStmt): arg = the pieces of one line, each a str
                             or None for the next value of args (scalars); items are separated by
                             one space and the line ends with a newline, as Python's print.
                             Integers print in decimal, f32 with 7 and f64 with 16 significant
                             digits (%g style). dtype is i32 (no value).
"""
from __future__ import annotations

import enum

from ..builtins.functions import FUNCTIONS

# Lanes per workgroup: THREAD_ID is in [0, WORKGROUP); every engine launches groups of it.
WORKGROUP = 256
# Lanes per warp (`tack.WARP_SIZE`): NVIDIA's warp, and the simulator's lockstep group.
WARP = 32


class Op(enum.Enum):
    _ignore_ = "_fn"  # the loop variable below, not a member

    CONST = enum.auto()
    VAR = enum.auto()
    PARAM = enum.auto()
    LAUNCH = enum.auto()

    NEG = enum.auto()
    ADD = enum.auto()
    SUB = enum.auto()
    MUL = enum.auto()
    MULADD = enum.auto()
    FDIV = enum.auto()
    IDIV = enum.auto()
    IREM = enum.auto()
    FREM = enum.auto()
    POW = enum.auto()
    IPOW = enum.auto()
    MIN = enum.auto()
    MAX = enum.auto()
    ABS = enum.auto()
    AND_ = enum.auto()
    OR_ = enum.auto()
    XOR = enum.auto()
    SHL = enum.auto()
    SHR = enum.auto()
    INVERT = enum.auto()

    # One member per math function of `builtins/functions.py`, its name upper-cased (SQRT, EXP,
    # ..., ATAN2, COPYSIGN, RSQRT): the function's entry declares the op.
    for _fn in FUNCTIONS:
        vars()[_fn.name.upper()] = enum.auto()
    ISNAN = enum.auto()

    LT = enum.auto()
    LE = enum.auto()
    GT = enum.auto()
    GE = enum.auto()
    EQ = enum.auto()
    NE = enum.auto()

    NOT = enum.auto()
    LAND = enum.auto()
    LOR = enum.auto()

    SELECT = enum.auto()
    IFEXP = enum.auto()
    CAST = enum.auto()
    BITCAST = enum.auto()

    LOAD = enum.auto()
    SHAPE = enum.auto()

    ATOMIC_ADD = enum.auto()
    ATOMIC_MIN = enum.auto()
    ATOMIC_MAX = enum.auto()
    THREAD_ID = enum.auto()
    LANE_ID = enum.auto()
    WARP_ID = enum.auto()
    SHFL = enum.auto()
    SHFL_XOR = enum.auto()
    SHFL_UP = enum.auto()
    SHFL_DOWN = enum.auto()
    WARP_ANY = enum.auto()
    WARP_ALL = enum.auto()
    BALLOT = enum.auto()
    WARP_SUM = enum.auto()
    WARP_MIN = enum.auto()
    WARP_MAX = enum.auto()
    ASYNC_COPY = enum.auto()
    ASYNC_COMMIT = enum.auto()
    ASYNC_WAIT = enum.auto()
    MBARRIER_INIT = enum.auto()
    MBARRIER_ARRIVE = enum.auto()
    MBARRIER_ARRIVE_TX = enum.auto()
    MBARRIER_WAIT = enum.auto()
    ASYNC_BULK_COPY = enum.auto()
    ASYNC_TENSOR_COPY = enum.auto()

    FRAGMENT = enum.auto()
    MMA = enum.auto()
    WGMMA = enum.auto()
    WGMMA_COMMIT = enum.auto()
    WGMMA_WAIT = enum.auto()
    PRINT = enum.auto()

    # Frontend-only ops, gone after lowering (`passes.lower_ops`).
    FLOORDIV = enum.auto()  # Python `//` (ints and floats)
    MOD = enum.auto()  # Python `%`
    TRUEDIV = enum.auto()  # Python `/`
    # Vectors and matrices exist only in the untyped IR: the typechecker lowers them to scalars
    # (`frontend/vectors.py`), so no later stage sees them.
    VECTOR = enum.auto()  # [a, b, c], tack.vec3(...), tack.Matrix([[...]]): args = components
    COMPONENT = enum.auto()  # v.x, v[k], m[i, j]: args = (value, *indices) or arg = static index
    METHOD = enum.auto()  # v.dot(w): arg = method name, args = (receiver, *arguments)
    MATMUL = enum.auto()  # a @ b
    ANY = enum.auto()
    ALL = enum.auto()
    TYPED = enum.auto()  # typechecker-internal: arg is an already typed expression
    # A constant-table read (`T[i]`, `T[i, j]`, `T[i][j]`): arg = the `tack.constant`, args = the
    # indices. The typechecker makes it a LOAD of a `KernelIR.tables` entry.
    TABLE = enum.auto()
    # `tack.mma_load_a/_b/_acc`, `tack.mma_zeros`, `tack.mma_store`: arg = (builtin name, array
    # name or None); the typechecker makes fragments of FRAGMENT loads (frontend/typing/mma.py).
    # MMA before typing: args = (a, b, acc) fragments, arg = the precision string or None.
    MMA_TILE = enum.auto()
    # `tack.wgmma_zeros`, `tack.wgmma`, `tack.wgmma_store`, `tack.wgmma_index`, ...: arg = (the
    # builtin's name, its array names, its string literals); frontend/typing/wgmma.py types them.
    WGMMA_CALL = enum.auto()


LEAVES = frozenset({Op.CONST, Op.VAR, Op.PARAM, Op.LAUNCH, Op.SHAPE, Op.THREAD_ID, Op.LANE_ID,
                    Op.WARP_ID})
# The math functions by arity (builtins/functions.py); POW, also `**`, is an arithmetic op.
MATH_UNARY = frozenset(Op[f.name.upper()] for f in FUNCTIONS if f.arity == (1, 1))
MATH_BINARY = frozenset(Op[f.name.upper()] for f in FUNCTIONS if f.arity == (2, 2))
UNARY = frozenset({Op.NEG, Op.ABS, Op.INVERT, Op.NOT, Op.ISNAN}) | MATH_UNARY
ARITH_BINARY = frozenset({
    Op.ADD, Op.SUB, Op.MUL, Op.FDIV, Op.IDIV, Op.IREM, Op.FREM, Op.POW, Op.IPOW, Op.MIN, Op.MAX,
    Op.AND_, Op.OR_, Op.XOR, Op.SHL, Op.SHR,
}) | MATH_BINARY
COMPARISON = frozenset({Op.LT, Op.LE, Op.GT, Op.GE, Op.EQ, Op.NE})
LOGICAL = frozenset({Op.NOT, Op.LAND, Op.LOR})
LAZY = frozenset({Op.LAND, Op.LOR, Op.IFEXP})
MEMORY = frozenset({Op.LOAD})
ATOMIC = frozenset({Op.ATOMIC_ADD, Op.ATOMIC_MIN, Op.ATOMIC_MAX})
SHUFFLES = frozenset({Op.SHFL, Op.SHFL_XOR, Op.SHFL_UP, Op.SHFL_DOWN})
VOTES = frozenset({Op.WARP_ANY, Op.WARP_ALL, Op.BALLOT})
WARP_REDUCTIONS = frozenset({Op.WARP_SUM, Op.WARP_MIN, Op.WARP_MAX})
# Ops every lane of a warp must execute together (collectives, as a Barrier is).
MMA_OPS = frozenset({Op.FRAGMENT, Op.MMA})
# The warpgroup MMA's statements: collectives of a warpgroup (ExprStmt values).
WGMMA_OPS = frozenset({Op.WGMMA, Op.WGMMA_COMMIT, Op.WGMMA_WAIT})
WARP_COLLECTIVES = SHUFFLES | VOTES | WARP_REDUCTIONS | MMA_OPS | WGMMA_OPS
WARP_OPS = WARP_COLLECTIVES | {Op.LANE_ID, Op.WARP_ID}
# Asynchronous copies into shared memory and their completion (statements).
ASYNC_OPS = frozenset({Op.ASYNC_COPY, Op.ASYNC_COMMIT, Op.ASYNC_WAIT})
# Transaction barriers and the bulk copies that complete on them (statements).
# The copies that complete on a barrier, arg = (shared array, source, what, barriers): arg[3] is
# the barrier array, args[0] the shared index and args[-1] the barrier index.
BARRIER_COPIES = frozenset({Op.ASYNC_BULK_COPY, Op.ASYNC_TENSOR_COPY})
MBARRIER_OPS = frozenset({Op.MBARRIER_INIT, Op.MBARRIER_ARRIVE, Op.MBARRIER_ARRIVE_TX,
                          Op.MBARRIER_WAIT}) | BARRIER_COPIES
# Ops that need a workgroup launch (GPU engines)
WORKGROUP_OPS = frozenset({Op.THREAD_ID}) | WARP_OPS | ASYNC_OPS | MBARRIER_OPS
FRONTEND_ONLY = frozenset({Op.FLOORDIV, Op.MOD, Op.TRUEDIV, Op.SHAPE, Op.VECTOR, Op.COMPONENT,
                           Op.METHOD, Op.MATMUL, Op.ANY, Op.ALL, Op.TYPED, Op.TABLE,
                           Op.MMA_TILE, Op.WGMMA_CALL})


def public_name(e) -> str:
    """The name a kernel calls a warp or workgroup operation by (`tack.<name>`): a fragment
    element is named by the builtin that loaded it."""
    return e.arg if e.op is Op.FRAGMENT else e.op.name.lower()
