"""Device-only functions of the kernel language (`tack.atomic_add`, `tack.shared`, ...): the host
objects a kernel names, one made here for each entry of the builtin registry
(builtins/registry.py) that `Builtin.intrinsic` says needs one, so that declaring the entry is
all a new device function takes. The entry gives its call form, meaning and parsing; the parser
recognises these objects by their `__tack_intrinsic__` name. Called from Python they raise,
naming themselves (`unroll` excepted).

Where each lives follows the entry's namespace: `tack.<name>` is an attribute of this module that
`tack` re-exports (`DEVICE_FUNCTIONS`), `tack.intrinsics.<name>` one of this module only (library
code's), and `tack.<Name>.<name>` an attribute of the object `<Name>` (`tack.Matrix.identity`).
Library code imports them by name (`from tack.intrinsics import thread_id`).
"""
from __future__ import annotations

from .builtins.registry import REGISTRY
from .errors import TackRuntimeError, TackTypeError, TackValueError


def _device_only(b):
    def fn(*args, **kwargs):
        raise TackRuntimeError(f"{b.name}() can only be used inside a @tack.kernel")

    fn.__name__ = fn.__qualname__ = b.name
    fn.__doc__ = f"{b.call}: {b.doc}."
    fn.__tack_intrinsic__ = b.name
    return fn


def unroll(r, factor=None):
    """for j in unroll(range(...), factor): a sequential loop inside a kernel, unrolled `factor`
    times (1: not unrolled), or fully (no factor) when its trip count is a compile-time constant.
    A pure performance hint: results are those of the plain loop.

    Unlike the other device functions it also works from Python, returning `r` unchanged, so
    that a kernel body run as plain Python (tack.testing, a user's own check) still runs."""
    if not isinstance(r, range):
        raise TackTypeError(f"unroll() takes a range, got {type(r).__name__}")
    if factor is not None and (type(factor) is bool or not isinstance(factor, int) or factor < 1):
        raise TackValueError(f"unroll() factor must be an int >= 1, got {factor!r}")
    return r


unroll.__tack_intrinsic__ = "unroll"  # the parser recognises it by this, like the others
_WRITTEN = {"unroll": unroll}  # the host objects written above rather than made from the entry

DEVICE_FUNCTIONS = {}  # name → host object, for each `tack.<name>`: what `tack` exports
ALL = []  # every host object a kernel may call, its entry found by `resolve`
for _b in REGISTRY.values():
    if not _b.intrinsic:
        continue
    _fn = _WRITTEN.get(_b.name) or _device_only(_b)
    _owner = _b.namespace.removeprefix("tack.").rstrip(".")
    if _owner in ("", "intrinsics"):
        globals()[_b.name] = _fn
    else:  # `tack.Matrix.identity`: the owner is declared (and made) before it
        setattr(globals()[_owner], _b.name, _fn)
    if not _owner:
        DEVICE_FUNCTIONS[_b.name] = _fn
    ALL.append(_fn)
ALL = tuple(ALL)
del _b, _fn, _owner, _WRITTEN
