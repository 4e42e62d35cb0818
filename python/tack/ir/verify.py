"""IR invariants checked between passes: a failure is a bug in Tack, reported with its location."""
from __future__ import annotations

from ..errors import IRVerificationError
from . import nodes as N
from .nodes import Expr, KernelIR
from .ops import ATOMIC, BARRIER_COPIES, COMPARISON, FRONTEND_ONLY, MBARRIER_OPS, Op
from .walk import iter_stmts, stmt_exprs


def _fail(e, msg: str):
    raise IRVerificationError(f"{e.loc}: internal IR error: {msg}", loc=e.loc)


def verify(k: KernelIR, final: bool = True) -> None:
    globals_ = {p.name for p in k.params if p.kind == "array"} | {
        s.name for s in k.scratch.values() if s.space == "shared"}  # atomic targets
    arrays = globals_ | set(k.scratch)
    readable = arrays | set(k.tables)  # constant tables: loads only
    scalars = {p.name for p in k.params if p.kind == "scalar"}

    def check(x: Expr):
        if x.dtype is None or x.dtype.name == "weak_float":
            _fail(x, f"{x.op.name} has no concrete dtype")
        if final and x.op in FRONTEND_ONLY:
            _fail(x, f"{x.op.name} survived lowering")
        if x.op is Op.VAR and x.arg not in k.locals:
            _fail(x, f"undeclared local {x.arg}")
        if x.op is Op.PARAM and x.arg not in scalars:
            _fail(x, f"unknown scalar parameter {x.arg}")
        if x.op is Op.LOAD and (x.arg not in readable or (final and len(x.args) != 1)):
            _fail(x, f"bad load of {x.arg}")
        if x.op in ATOMIC and (x.arg not in globals_ or (final and len(x.args) != 2)
                               or x.args[-1].dtype is not x.dtype):
            _fail(x, f"bad atomic on {x.arg}")
        if x.op is Op.ASYNC_COPY and (x.arg[0] not in k.scratch or x.arg[1] not in arrays
                                      or (final and len(x.args) != 2)):
            _fail(x, f"bad asynchronous copy {x.arg}")
        if x.op is Op.WGMMA and (any(k.scratch.get(t) is None or k.scratch[t].space != "shared"
                                     for t in x.arg[3:5])
                                 or len(x.args) != 2 + x.arg[1] // 2
                                 or any(a.op is not Op.VAR for a in x.args[2:])):
            _fail(x, f"bad warpgroup MMA {x.arg}")  # tiles in shared memory, N/2 locals
        if x.op in MBARRIER_OPS:
            copy = x.op in BARRIER_COPIES
            bar = x.arg[3] if copy else x.arg
            nargs = 3 if x.op is Op.ASYNC_BULK_COPY else 4
            if bar not in k.scratch or not k.scratch[bar].barriers or (
                    copy and (x.arg[0] not in k.scratch or x.arg[1] not in arrays
                              or (final and len(x.args) != nargs))):
                _fail(x, f"bad {x.op.name.lower()} {x.arg}")
        if x.op in COMPARISON and x.args[0].dtype is not x.args[1].dtype:
            _fail(x, f"{x.op.name} of {x.args[0].dtype} and {x.args[1].dtype}")

    for s in iter_stmts(k.body):
        for x in stmt_exprs(s):
            check(x)
        if isinstance(s, N.Store) and s.array not in arrays:
            _fail(s, f"store to unknown array {s.array}")
        if isinstance(s, N.Assign) and s.value.dtype is not k.locals.get(s.name):
            _fail(s, f"{s.name} declared {k.locals.get(s.name)} but assigned {s.value.dtype}")
        if final and isinstance(s, N.For) and s.step is not None:
            _fail(s, "For with a step survived loop normalization")
        if isinstance(s, N.For) and not (s.unroll is None or s.unroll == "full" or (
                type(s.unroll) is int and s.unroll >= 1)):
            _fail(s, f"For with unroll hint {s.unroll!r} (None, an int >= 1 or 'full')")
