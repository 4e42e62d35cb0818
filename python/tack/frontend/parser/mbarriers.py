"""Calls on transaction barriers and bulk copies (ir/ops.py, "Transaction barriers"):
`tack.mbarrier_init(bars[s], count)`, `tack.mbarrier_arrive(bars[s])`,
`tack.mbarrier_arrive_tx(bars[s], nbytes)`, `tack.mbarrier_wait(bars[s], phase)` and
`tack.async_bulk_copy(dst, j, src, i, count, bars[s])` and
`tack.async_tensor_copy(dst, j, src, (row, col), (ROWS, COLS), bars[s], layout)`, each a
statement. A barrier is named as
an element of a `tack.mbarriers(n)` array; the typechecker (frontend/typing/mbarriers.py) checks
that the array is one and types the operands."""
from __future__ import annotations

import ast

from ...ir.nodes import Expr
from ...ir.ops import Op


class MbarrierCalls:
    """The parser's half of the barrier statements (Calls.async_statement hands them here)."""

    def barrier_operand(self, b, node) -> tuple[str, ast.expr]:
        """(the barrier array's IR name, the index node) of `bars[s]`."""
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, (ast.Slice, ast.Tuple)):
            name = self.array_name(node.value)
            if name is not None and name in self.root.scratch_names and (
                    name not in self.root.local_scratch):
                return name, node.slice
        raise self.unsupported(node, f"{b.qualified}() on something that is not one barrier of "
                                     "a tack.mbarriers array",
                               f"declare bars = tack.mbarriers(n) and name one barrier: {b.call}")

    def mbarrier_statement(self, b, node: ast.Call, loc) -> Expr:
        if b.op is Op.ASYNC_BULK_COPY:
            return self.bulk_copy_statement(b, node, loc)
        if b.op is Op.ASYNC_TENSOR_COPY:
            return self.tensor_copy_statement(b, node, loc)
        bar, index = self.barrier_operand(b, node.args[0])
        args = tuple(self.ordered([index, *node.args[1:]]))
        return Expr(b.op, None, args, bar, loc)

    def copy_arrays(self, b, dst, src) -> tuple[str, str]:
        """(shared array, array parameter) of a copy into shared memory."""
        target = self.array_name(dst)
        if target is None or target not in self.root.scratch_names or (
                target in self.root.local_scratch):
            raise self.unsupported(dst, f"{b.name}() into something that is not a shared "
                                        "array", f"copy into a tack.shared array: {b.call}")
        source = self.array_name(src)
        if source is None or source in self.root.scratch_names:
            raise self.unsupported(src, f"{b.name}() from something that is not an array "
                                        "parameter",
                                   "these copies read global memory: an array passed to the "
                                   "kernel")
        return target, source

    def bulk_copy_statement(self, b, node: ast.Call, loc) -> Expr:
        dst, j, src, i, count_node, bar_node = node.args
        target, source = self.copy_arrays(b, dst, src)
        c = self.folded(self.expr(count_node))
        if not (c.op is Op.CONST and type(c.arg) is int):
            raise self.unsupported(count_node, "async_bulk_copy() with a count that is not a "
                                               "compile-time integer",
                                   "write a literal or a tack.constant: the count's bytes must "
                                   "be a multiple of 16, known when the kernel compiles")
        bar, index = self.barrier_operand(b, bar_node)
        elts = i.elts if isinstance(i, ast.Tuple) else [i]
        args = tuple(self.ordered([j, *elts, index]))
        return Expr(Op.ASYNC_BULK_COPY, None, args, (target, source, c.arg, bar), loc)

    def tensor_copy_statement(self, b, node: ast.Call, loc) -> Expr:
        """`tack.async_tensor_copy(dst, j, src, (row, col), (ROWS, COLS), bars[s], layout)`:
        the box's extents compile-time integers and the layout a string literal (the
        typechecker checks them against ir/tma.py's limits)."""
        dst, j, src, at, box, bar_node, layout = node.args
        target, source = self.copy_arrays(b, dst, src)
        if not (isinstance(at, ast.Tuple) and len(at.elts) == 2):
            raise self.unsupported(at, "async_tensor_copy() at something that is not a pair "
                                       "(row, col)", f"name the box's first element: {b.call}")
        if not (isinstance(box, ast.Tuple) and len(box.elts) == 2):
            raise self.unsupported(box, "async_tensor_copy() of a box that is not a pair "
                                        "(ROWS, COLS)", f"give the box's extents: {b.call}")
        extents = []
        for n in box.elts:
            c = self.folded(self.expr(n))
            if not (c.op is Op.CONST and type(c.arg) is int):
                raise self.unsupported(n, "async_tensor_copy() with a box extent that is not "
                                          "a compile-time integer",
                                       "write a literal or a tack.constant: the box is part "
                                       "of the tensor map, made before the launch")
            extents.append(c.arg)
        if not (isinstance(layout, ast.Constant) and isinstance(layout.value, str)):
            raise self.unsupported(layout, "async_tensor_copy() with a layout that is not a "
                                           "string literal",
                                   'write "swizzle128" (the layout tack.wgmma reads) or "none"')
        bar, index = self.barrier_operand(b, bar_node)
        args = tuple(self.ordered([j, *at.elts, index]))
        return Expr(Op.ASYNC_TENSOR_COPY, None, args,
                    (target, source, (*extents, layout.value), bar), loc)
