"""The CPU kernel's launch record: what a variant taken from the disk cache needs instead of its
KernelIR (docs/design/005-disk-cache.md, "Keyed before the type checker").

A compiled `CPUKernel` launches from its name, its parameters (kind, dtype, rank, baked extents,
written: the slot layout and the messages of `pack_slow`) and its object code; the record holds
those as plain tokens (`tack.cache.records`) and names the code by its `cpu/` cache key:

    name saxpy
    code 3f2a...                      (the key of the object code's entry)
    symbols tack_saxpy tack_call_tack_saxpy
    param a scalar f32 0 0
    param x array f32 1 0 -           (ndim, written, then one token per dimension)
"""
from __future__ import annotations

from ... import dtypes as d
from ...cache import records
from ...ir.nodes import Param

_HEX = frozenset("0123456789abcdef")
_KINDS = ("array", "scalar")


def dumps(name: str, params, code_key: str, symbols) -> bytes | None:
    """The record of a kernel whose code is stored under `code_key`; None if it would not read
    back as these parameters (a dtype the record does not spell): such a kernel is not kept."""
    lines = [("name", name), ("code", code_key), ("symbols", *symbols)]
    try:
        for p in params:
            dims = [None if x is None else int(x) for x in p.shape] if p.kind == "array" else []
            lines.append(("param", p.name, p.kind, p.dtype.name, int(p.ndim), bool(p.written),
                          *dims))
        data = records.dumps(lines)
    except (ValueError, TypeError):
        return None
    got = loads(data)
    return data if got is not None and got[1] == list(params) else None


def loads(data: bytes) -> tuple[str, list, str, list] | None:
    """(name, params, code key, symbols) of a record; None if it is not one this Tack wrote."""
    try:
        return _loads(data)
    except (ValueError, KeyError):
        return None


def _loads(data: bytes) -> tuple[str, list, str, list]:
    lines = records.loads(data)
    if lines is None:
        raise ValueError("not a record")
    f = records.fields(lines)
    (name,), (key,), (symbols,) = f["name"], f["code"], f["symbols"]
    if len(name) != 1 or len(key) != 1 or len(key[0]) != 64 or not set(key[0]) <= _HEX \
            or not symbols:
        raise ValueError("bad name, code key or symbols")
    return name[0], [_param(t) for t in f.get("param", [])], key[0], symbols


def _param(toks: list[str]) -> Param:
    name, kind, dtype, ndim, written, *dims = toks
    if kind not in _KINDS:
        raise ValueError(f"parameter kind {kind!r}")
    t, n = d.by_name(dtype), records.integer(ndim)
    if t not in d.STORAGE or not 0 <= n <= 64:
        raise ValueError(f"parameter dtype {dtype!r} or rank {ndim!r}")
    if kind == "scalar":
        if dims or n:
            raise ValueError("a scalar parameter with dimensions")
        return Param(name, kind, t, 0, (), records.flag(written))
    if len(dims) != n:
        raise ValueError("dimensions do not match the rank")
    shape = tuple(records.optional_integer(x) for x in dims)
    return Param(name, kind, t, n, shape, records.flag(written))
