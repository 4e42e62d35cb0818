"""Device classes: the marker `@tack.device_class` sets, and the spec the parser works from.

An instance passed to a kernel is a runtime value; `tack.call.signature` turns it into an `ObjInfo`
(and keys the specialization on it), so the frontend sees only the spec. Attribute roles
(docs/language.md, "Device classes: `@tack.device_class`"): a class-level int/float (or an
instance attribute shadowing one) is a compile-time constant; an instance int/float is a runtime
scalar parameter; an instance array is an extra array parameter; an instance attribute holding a
`@tack.func` is that function; another device-class instance is a nested object. Names starting
with `_` and other types are ignored.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import TackTypeError
from ..passes.names import member


def is_device_class(obj) -> bool:
    return getattr(type(obj), "__tack_device_class__", False) is True


def device_class(cls):
    """Decorator: instances of `cls` may be passed to kernels; `@tack.func` methods are inlined."""
    if not isinstance(cls, type):
        raise TackTypeError(f"@tack.device_class decorates a class, got {type(cls).__name__}")
    cls.__tack_device_class__ = True
    return cls


@dataclass
class ObjInfo:
    """What the parser knows of one device-class argument (built by tack.call.signature)."""

    cls: type
    constants: dict = field(default_factory=dict)  # name -> Python value
    arrays: set = field(default_factory=set)
    scalars: set = field(default_factory=set)
    ints: set = field(default_factory=set)  # the instance scalars holding integers (or bools)
    funcs: dict = field(default_factory=dict)  # name -> Func held by the instance
    objects: dict = field(default_factory=dict)  # name -> ObjInfo


def expanded_name(path: tuple) -> str:
    return member(*path)
