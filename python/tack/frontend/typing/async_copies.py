"""Typing rules of the asynchronous copies (`tack.async_copy`, `tack.async_commit`,
`tack.async_wait`): ir/ops.py, "Asynchronous copies", gives their meaning; docs/language.md
shows them in a double-buffered loop."""
from __future__ import annotations

from ... import dtypes as dt
from ...errors import TackValueError
from ...ir.nodes import Expr
from ...ir.ops import Op

# The sizes one cp.async moves (PTX ISA, cp.async: cp-size is 4, 8 or 16 bytes).
COPY_BYTES = (4, 8, 16)


class AsyncRules:
    def async_copy(self, e: Expr) -> Expr:
        """Into a shared array from an array parameter of the same scalar dtype; `count`
        elements of it make 4, 8 or 16 bytes. The result is i32 (a statement: no value)."""
        dst, src, count = e.arg
        sc = self.scratch_array(dst, e)
        if sc.space != "shared":
            raise self.type_error(e, f"async_copy() into the local array '{dst}'",
                                  "asynchronous copies fill tack.shared arrays")
        spec = self._array(src, e)
        if not isinstance(spec.dtype, dt.DType) or spec.dtype is not sc.dtype:
            raise self.type_error(e, f"async_copy() from '{src}' ({spec.dtype!r} elements) into "
                                     f"'{dst}' ({sc.dtype.name} elements): the copy moves bits, "
                                     "so both arrays hold one dtype",
                                  f"declare '{dst}' with tack.shared_like({src}, size)")
        size = count * sc.dtype.itemsize
        if count < 1 or size not in COPY_BYTES:
            fits = ", ".join(str(b // sc.dtype.itemsize) for b in COPY_BYTES
                             if b % sc.dtype.itemsize == 0)
            raise TackValueError.at(
                e.loc, self.message(e.loc, f"async_copy() of {count} {sc.dtype.name} "
                                           f"element(s) moves {size} bytes: one asynchronous copy "
                                           "moves 4, 8 or 16 bytes"),
                f"copy {fits} element(s) of {sc.dtype.name} at once")
        j = self.scratch_index(dst, e.args[:1], e)
        i = self.indices(src, spec, e.args[1:], e)
        return Expr(Op.ASYNC_COPY, dt.i32, j + i, e.arg, e.loc)

    def async_commit(self, e: Expr) -> Expr:
        return Expr(Op.ASYNC_COMMIT, dt.i32, (), None, e.loc)

    def async_wait(self, e: Expr) -> Expr:
        """`n` is a compile-time integer >= 0 (cp.async.wait_group takes an immediate)."""
        n = self.expr(e.args[0])
        if isinstance(n, Expr) and n.op is Op.CONST and type(n.arg) is int and n.arg < 0:
            raise TackValueError.at(
                e.loc, self.message(e.loc, f"async_wait({n.arg}): n counts the groups left "
                                           "pending, 0 or more"),
                "tack.async_wait(0) waits for every committed group")
        if not (isinstance(n, Expr) and n.op is Op.CONST and type(n.arg) is int):
            raise self.type_error(e, "async_wait(n) needs n, the number of groups left "
                                     "pending, as an integer known when the kernel compiles",
                                  "write a literal: tack.async_wait(1) in a double-buffered "
                                  "loop, tack.async_wait(0) for every group")
        return Expr(Op.ASYNC_WAIT, dt.i32, (), n.arg, e.loc)
