"""Bit casts in LLVM IR (`Op.BITCAST`, `tack.bitcast`): a mixin of the LLVM renderer, so that
the CPU and NVPTX renderers share it (render/llvm/printer.py holds the rest)."""
from __future__ import annotations

from llvmlite import ir

from ...ir.nodes import Expr


class BitRendering:
    """The renderer's method for `Op.BITCAST`: an LLVM `bitcast` between types of one width."""

    def bitcast_(self, e: Expr) -> ir.Value:
        return self.b.bitcast(self.expr(e.args[0]), self.ll_type(e.dtype))
