"""Kernel arguments as a block of 8-byte slots: the layout the CPU and CUDA engines launch with.

One slot per parameter (an array's address, or a scalar in its C type), so a launch is one
`struct.pack_into`. Values the fast pack refuses (a NumPy scalar of another type, an int out of
its type's range, None for an empty array) go through `pack_slow`, which applies C's conversions
(integers wrap modulo 2**bits, floats truncate to ints) or names the argument it cannot take.
"""
from __future__ import annotations

import struct

from ..errors import TackTypeError

SLOT = {"i8": "b7x", "u8": "B7x", "i16": "h6x", "u16": "H6x", "i32": "i4x", "u32": "I4x",
        "i64": "q", "u64": "Q", "f32": "f4x", "f64": "d", "bool": "?7x"}
PACK_ERRORS = (struct.error, OverflowError, TypeError, ValueError)


def layout(params, tail: str = "") -> struct.Struct:
    """The slots of `params`, then `tail` (struct codes of 8-byte slots the engine appends).
    Native mode ("@"): C conversions (f32 overflow gives inf, as in C); every field starts at a
    multiple of 8, so native alignment adds no padding (checked)."""
    s = struct.Struct("@" + "".join("Q" if p.kind == "array" else SLOT[p.dtype.name]
                                    for p in params) + tail)
    assert s.size == 8 * (len(params) + len(tail))
    return s


def convert(p, v):
    """C conversion of one argument: ints wrap modulo 2**bits (floats give ints by truncation)."""
    if p.kind == "array":
        return 0 if v is None else int(v)
    dt = p.dtype
    if dt.is_float:
        return float(v)
    if dt.kind == "b":
        return bool(v)
    v = int(v) & ((1 << dt.bits) - 1)
    return v - (1 << dt.bits) if dt.is_signed and v >> (dt.bits - 1) else v


def pack_slow(name: str, params, pack, buf, args, *tail) -> None:
    """`pack(buf, 0, *args, *tail)` after converting each argument, or TackTypeError naming the
    one that cannot be converted."""
    if len(args) != len(params):
        raise TackTypeError(f"kernel {name!r} takes {len(params)} arguments "
                            f"({', '.join(p.name for p in params)}), got {len(args)}")
    values = []
    for p, v in zip(params, args):
        try:
            values.append(convert(p, v))
        except (TypeError, ValueError, OverflowError) as exc:
            raise TackTypeError(f"kernel {name!r}: argument {p.name!r} "
                                f"({p.kind} {p.dtype.name}) cannot take {v!r}: {exc}") from None
    pack(buf, 0, *values, *tail)
