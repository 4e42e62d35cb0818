"""Device classes: instances passed to kernels, seen by the frontend as a tree of attributes.

Attribute roles (TACK_API.md §1.11): a class-level int/float (or an instance attribute shadowing
one) is a compile-time constant; an instance int/float is a runtime scalar parameter; an instance
array is an extra array parameter; an instance attribute holding a `@tack.func` is that function;
another device-class instance is a nested object. Names starting with `_` and other types are
ignored. `object_key` is exactly what a specialization is keyed on.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import TackTypeError


def is_device_class(obj) -> bool:
    return getattr(type(obj), "__tack_device_class__", False) is True


def device_class(cls):
    """Decorator: instances of `cls` may be passed to kernels; `@tack.func` methods are inlined."""
    if not isinstance(cls, type):
        raise TackTypeError(f"@tack.device_class decorates a class, got {type(cls).__name__}")
    cls.__tack_device_class__ = True
    return cls


def _class_constants(cls) -> set[str]:
    names = set()
    for klass in reversed(cls.__mro__):
        for name, v in vars(klass).items():
            if not name.startswith("_") and isinstance(v, (int, float, np.integer, np.floating)):
                names.add(name)
    return names


@dataclass
class ObjInfo:
    cls: type
    constants: dict = field(default_factory=dict)  # name -> Python value
    arrays: set = field(default_factory=set)
    scalars: set = field(default_factory=set)
    ints: set = field(default_factory=set)  # the instance scalars holding integers (or bools)
    funcs: dict = field(default_factory=dict)  # name -> Func held by the instance
    objects: dict = field(default_factory=dict)  # name -> ObjInfo


def info_of(obj) -> ObjInfo:
    from ..arrays import Array
    from .inline import Func

    cls = type(obj)
    info = ObjInfo(cls)
    consts = _class_constants(cls)
    for name in consts:
        v = getattr(obj, name)
        info.constants[name] = v.item() if isinstance(v, np.generic) else v
    for name, v in vars(obj).items():
        if name.startswith("_") or name in consts:
            continue
        if isinstance(v, Array):
            info.arrays.add(name)
        elif isinstance(v, bool) or isinstance(v, (int, float, np.integer, np.floating)):
            info.scalars.add(name)
            if isinstance(v, (int, np.integer)):  # a bool is an int (keyed as i32)
                info.ints.add(name)
        elif isinstance(v, Func):
            info.funcs[name] = v
        elif is_device_class(v):
            info.objects[name] = info_of(v)
    return info


def object_key(obj) -> tuple:
    """Class identity, constants (type and bit pattern), array dtypes/ranks, scalar types,
    held functions and nested objects: everything a specialization depends on."""
    from ..arrays import Array
    from ..compiler import scalar_sig
    from .inline import Func

    cls = type(obj)
    consts = _class_constants(cls)
    parts = [cls]
    for name in sorted(consts):
        v = getattr(obj, name)
        parts.append((name, type(v), float(v).hex() if isinstance(v, float) else v))
    for name, v in sorted(vars(obj).items()):
        if name.startswith("_") or name in consts:
            continue
        if isinstance(v, Array):
            parts.append((name, v._sig))
        elif isinstance(v, (bool, int, float, np.integer, np.floating)):
            parts.append((name, scalar_sig(v)))
        elif isinstance(v, Func):
            parts.append((name, id(v)))
        elif is_device_class(v):
            parts.append((name, object_key(v)))
    return tuple(parts)


def expanded_name(path: tuple) -> str:
    return "__".join(path)


def fetch(obj, path: tuple):
    for name in path:
        obj = getattr(obj, name)
    return obj
