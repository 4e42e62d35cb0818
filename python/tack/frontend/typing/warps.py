"""Typing rules of the warp builtins (`tack.shfl`, `tack.warp_any`, `tack.warp_sum`, ...):
ir/ops.py, "Warps", gives their meaning."""
from __future__ import annotations

from ... import dtypes as dt
from ...ir.nodes import Expr
from ...ir.ops import Op


class WarpRules:
    def shuffle(self, e: Expr) -> Expr:
        """`tack.shfl(x, lane)` and its xor/up/down forms: x of any scalar dtype (a weak literal
        becomes f32/i32), the lane operand an integer converted to i32; the result is x's."""
        name = e.op.name.lower()
        x = self.settle(self.scalar(self.expr(e.args[0]), e, f"the value of {name}"))
        lane = self.integer(self.expr(e.args[1]), f"the lane operand of {name}")
        return Expr(e.op, x.dtype, (x, self.coerce(self.settle(lane), dt.i32)), None, e.loc)

    def vote(self, e: Expr) -> Expr:
        """`tack.warp_any(p)`, `warp_all(p)`: bool; `tack.ballot(p)`: u32. p is a condition (a
        number is `!= 0`)."""
        p = self.to_bool(self.expr(e.args[0]))
        return Expr(e.op, dt.u32 if e.op is Op.BALLOT else dt.bool_, (p,), None, e.loc)

    def warp_reduction(self, e: Expr) -> Expr:
        """`tack.warp_sum(x)`, `warp_min`, `warp_max`: a number of any dtype, the result its."""
        x = self.expr(e.args[0])
        name = e.op.name.lower()
        x = self.settle(self.scalar(x, e, f"the value of {name}"))
        if x.dtype is dt.bool_:
            raise self.type_error(x, f"{name}() of bool: it takes numbers",
                                  f"count with {name}(tack.i32(p)), or vote with "
                                  "tack.warp_any/warp_all/ballot")
        return Expr(e.op, x.dtype, (x,), None, e.loc)
