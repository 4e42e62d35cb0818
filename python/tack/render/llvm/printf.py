"""`print` for the LLVM printers: one line's printf format and arguments, shared by the CPU
renderer (`printf`, emit_printf) and the PTX renderer (CUDA's `vprintf`), so both print the same
text.

The line format (docs/language.md, "print"): the pieces joined by one space, then a newline;
integers in decimal, f32 with 7 and f64 with 16 significant digits (%g style); bools as 0 / 1.
"""
from __future__ import annotations

from llvmlite import ir

I8, I64 = ir.IntType(8), ir.IntType(64)


def format_line(r, e) -> tuple[bytes, list[ir.Value]]:
    """The NUL-terminated format and the arguments of one `Op.PRINT` (`e.arg`: its pieces, None
    where a value goes), each value rendered by renderer `r` and widened to 8 bytes as C's
    varargs would: integers to i64 (%lld / %llu), f32 to double. A literal % is doubled."""
    parts, values, args = [], iter(e.args), []
    for piece in e.arg:
        if piece is not None:
            parts.append(piece.replace("%", "%%"))
            continue
        v = next(values)
        x = r.expr(v)
        if v.dtype.is_float:
            parts.append("%.7g" if v.dtype.bits == 32 else "%.16g")
            args.append(r.b.fpext(x, ir.DoubleType()) if v.dtype.bits == 32 else x)
        else:
            parts.append("%lld" if v.dtype.is_signed else "%llu")
            wide = r.b.sext if v.dtype.is_signed else r.b.zext
            args.append(wide(x, I64) if v.dtype.bits < 64 else x)
    return (" ".join(parts) + "\n").encode() + b"\0", args


def string_constant(module: ir.Module, name: str, data: bytes) -> ir.GlobalVariable:
    """An internal constant i8 array global holding `data`."""
    const = ir.Constant(ir.ArrayType(I8, len(data)), bytearray(data))
    gv = ir.GlobalVariable(module, const.type, name=name)
    gv.global_constant, gv.linkage, gv.initializer = True, "internal", const
    return gv


def emit_printf(r, e) -> ir.Value:
    """The CPU renderer's `Op.PRINT` (`r`: an LLVMRenderer): printf of one line, then fflush, so
    output interleaves sanely with Python's."""
    text, args = format_line(r, e)
    name = f".fmt{len([g for g in r.module.global_values if g.name.startswith('.fmt')])}"
    gv = string_constant(r.module, name, text)
    i8p = I8.as_pointer()
    printf = r.module.globals.get("printf") or ir.Function(
        r.module, ir.FunctionType(ir.IntType(32), [i8p], var_arg=True), name="printf")
    r.b.call(printf, [r.b.bitcast(gv, i8p)] + args)
    fflush = r.declare("fflush", ir.IntType(32), [i8p])
    r.b.call(fflush, [ir.Constant(i8p, None)])
    return ir.Constant(ir.IntType(32), 0)
