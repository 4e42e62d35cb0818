"""Builtins called wrongly, one row per registry entry (python/tack/builtins/registry.py).

Each builtin with a declared arity is called with one argument too many (or, for those taking
any number from a least, one too few): the parser refuses it at the call, naming the builtin and
its call form. A builtin that is not a value (`print`, the loop iterables, `tack.barrier`, the
scratch declarations) used as one says what it is instead of "call to ...". A math function
called from Python with a wrong count raises Python's TypeError naming it. The rows come from
the registry, so a builtin added there is covered here."""
from __future__ import annotations

from tack.builtins.registry import HOST_FUNCTIONS, REGISTRY

from .case import Case

_KERNEL = ("@tack.kernel\ndef k(x, out):\n    for i in range(x.shape[0]):\n"
           "        out[i] = 0.0 + {call}\n"  # an operand: not an assignment's whole value
           "x = tack.array(np.linspace(0.5, 1.0, 5).astype(np.float32))\n"
           "out = tack.zeros(5, tack.f32)\n")


def _arity(b) -> Case:
    lo, hi = b.arity
    n = hi + 1 if hi >= 0 else lo - 1
    call = f"{b.qualified}({', '.join(['x[i]'] * n)})"
    return Case(f"builtins/arity/{b.qualified}", "k(x, out)", "tack.UnsupportedSyntaxError",
                _KERNEL.format(call=call), position=True,
                mentions=(f"{b.qualified}() with {n} argument(s)", b.call), unchanged=("out",),
                quick=b.name in ("sqrt", "min", "atomic_add"),
                note="a wrong argument count names the builtin and how to call it")


# Builtins that are not values, called where a value is needed, and what the error must say.
_NOT_VALUES = {
    "print": ("print(x[i])", ("print() used as a value", "statement")),
    "range": ("range(3)", ("range() used as a value", "for")),
    "tack.ndrange": ("tack.ndrange(3)", ("ndrange() used as a value", "for")),
    "tack.unroll": ("tack.unroll(range(3))", ("unroll() used as a value", "for")),
    "tack.barrier": ("tack.barrier()", ("barrier() used as a value",)),
    "tack.shared": ("tack.shared(tack.f32, 4)", ("shared() outside an assignment",)),
    "tack.local_array": ("tack.local_array(tack.f32, 4)",
                         ("local_array() outside an assignment",)),
}


def _not_a_value(key: str) -> Case:
    call, mentions = _NOT_VALUES[key]
    return Case(f"builtins/not-a-value/{key}", "k(x, out)", "tack.UnsupportedSyntaxError",
                _KERNEL.format(call=call), position=True, mentions=mentions,
                unchanged=("out",), quick=key == "print",
                note="a builtin in the wrong place says what it is, not 'call to ...'")


def _host_count(name: str) -> Case:
    n = REGISTRY[name].arity[0] + 1
    return Case(f"builtins/host-count/{name}", f"tack.{name}({', '.join(['0.5'] * n)})",
                "TypeError", tack_error=False, mentions=(f"{name}()",),
                note="tack.<math function> from Python checks its argument count")


CASES = ([_arity(b) for b in REGISTRY.values() if b.arity is not None]
         + [_not_a_value(k) for k in _NOT_VALUES]
         + [_host_count(n) for n in HOST_FUNCTIONS])
