"""The typing rules table: each untyped-IR `Op` → the rule that types it.

A rule is a function `(checker, expr) → typed Expr | VecVal`; most are methods of the
TypeChecker's rule mixins (this package's modules, `frontend/vectors.py`). An elementwise op's rule is wrapped by
`vectors.lift`, which types the operands first and applies the rule per component when one of them
is a vector. An op missing here (one only passes produce) is an internal error.

A builtin whose entry names a typing rule (builtins/registry.py: the math functions, `pow`) is
typed by `BUILTIN_RULES[entry.typing]`, and its operands are then checked against the dtypes the
entry takes (`Builtin.domain`).
"""
from __future__ import annotations

from ...builtins.registry import REGISTRY
from ...ir.ops import ATOMIC, COMPARISON, SHUFFLES, VOTES, WARP_REDUCTIONS, Op
from ..vectors import ELEMENTWISE, lift
from ..vectors import VectorRules as Vectors
from .arith import ArithRules as Arith
from .async_copies import AsyncRules as Async
from .logic import LogicRules as Logic
from .mbarriers import MbarrierRules as Mbarriers
from .memory import ArrayAccess as Memory
from .mma import MmaRules as Mma
from .tables import TableRules as Tables
from .values import ValueRules as Values
from .warps import WarpRules as Warps
from .wgmma import WgmmaRules as Wgmma


def _each(ops, rule) -> dict:
    return dict.fromkeys(ops, rule)


# A builtin's typing rule by the name its entry gives (`Builtin.typing`), and by arity where the
# name covers several: "float" is the math functions' (float operands, ints converted).
BUILTIN_RULES = {"float": {1: Arith.math_unary, 2: Arith.math_binary}, "power": Arith.power}


def _builtin_rule(b):
    rule = BUILTIN_RULES[b.typing]
    if isinstance(rule, dict):
        rule = rule[b.arity[0]]

    def typed(checker, e):
        out = rule(checker, e)
        for a in out.args:
            if not b.domain.admits(a.dtype):
                raise checker.type_error(a, f"{b.name}() of {a.dtype.name}: it takes "
                                            f"{b.domain.name} operands")
        return out

    typed.__name__ = f"{b.name}_{rule.__name__}"
    return typed


_SCALAR = {
    Op.TYPED: Values.typed_value,
    Op.CONST: Values.const,
    Op.VAR: Values.var,
    Op.CAST: Values.cast,
    Op.BITCAST: Values.bitcast,
    Op.PRINT: Values.print_,
    Op.THREAD_ID: Values.as_is,
    Op.ASYNC_COPY: Async.async_copy,
    Op.ASYNC_COMMIT: Async.async_commit,
    Op.ASYNC_WAIT: Async.async_wait,
    Op.MBARRIER_INIT: Mbarriers.mbarrier_init,
    Op.MBARRIER_ARRIVE: Mbarriers.mbarrier_arrive,
    Op.MBARRIER_ARRIVE_TX: Mbarriers.mbarrier_arrive_tx,
    Op.MBARRIER_WAIT: Mbarriers.mbarrier_wait,
    Op.ASYNC_BULK_COPY: Mbarriers.async_bulk_copy,
    Op.ASYNC_TENSOR_COPY: Mbarriers.async_tensor_copy,
    Op.LANE_ID: Values.as_is,
    Op.WARP_ID: Values.as_is,
    **_each(SHUFFLES, Warps.shuffle),
    **_each(VOTES, Warps.vote),
    **_each(WARP_REDUCTIONS, Warps.warp_reduction),
    Op.MMA_TILE: Mma.mma_tile,
    Op.MMA: Mma.mma,
    Op.WGMMA_CALL: Wgmma.wgmma_value,
    Op.SHAPE: Memory.shape,
    Op.LOAD: Memory.load,
    Op.TABLE: Tables.table,
    **_each(ATOMIC, Memory.atomic),
    **_each((Op.ADD, Op.SUB, Op.MUL, Op.FLOORDIV, Op.MOD, Op.MIN, Op.MAX), Arith.arith),
    Op.TRUEDIV: Arith.truediv,
    **_each((Op.AND_, Op.OR_, Op.XOR), Arith.bitwise),
    **_each((Op.SHL, Op.SHR), Arith.shift),
    **_each((Op.NEG, Op.ABS), Arith.same_type),
    Op.INVERT: Arith.invert,
    # the math functions and `pow` (also `**`: integer powers and x**2 are its rule's)
    **{b.op: _builtin_rule(b) for b in REGISTRY.values() if b.typing},
    **_each(COMPARISON, Logic.compare),
    **_each((Op.LAND, Op.LOR), Logic.short_circuit),
    Op.NOT: Logic.not_,
    Op.IFEXP: Logic.ifexp,
    Op.VECTOR: Vectors.vector_literal,
    Op.COMPONENT: Vectors.component,
    Op.METHOD: Vectors.method,
    Op.MATMUL: Vectors.matmul,
    **_each((Op.ANY, Op.ALL), Vectors.reduce_mask),
    Op.SELECT: Vectors.select_values,
}

RULES = {op: lift(rule) if op in ELEMENTWISE else rule for op, rule in _SCALAR.items()}
