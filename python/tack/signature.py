"""Call arguments typed in one place: the specialization key, the argument specs, the launch values.

A call's arguments are runtime values; everything below this module sees what is computed here
(numba's `typeof` in spirit). Per call, `key(args)` is what the specialization is looked up by;
once the parse is known, `expand` gives the IR parameters' values (device-class objects become
their attributes) and `launch_values` what the engine's launch takes: an array's address when the
engine's capabilities say it takes pointers, else its buffer (checked to be on the device). On a
cache miss, `specs` gives the `ArgSpec`s the type checker works from, and `object_info` the
`ObjInfo` a device-class argument is parsed with: the frontend and the compiler never see a value.

The rules (docs/language.md, "Kernels and calls"): an array is keyed by dtype and rank; a Python
int by its value's range (i32 if it fits, else i64, else u64); a float is f32, or f64 when an f64
array is among the arguments; a bool is an i32; NumPy scalars follow the same rules by value.
`guard` spells the same rules as Python source for tack.dispatch's generated call path.
"""
from __future__ import annotations

import numpy as np

from . import dtypes as dt
from .arrays import Array
from .devices import mismatch, serves
from .errors import TackTypeError
from .frontend.inline import Func
from .frontend.objects import ObjInfo, is_device_class

I32 = dt.i32
FLOAT = "float"  # a float scalar's key before the f32/f64 choice (made by `specs`)
I32_MIN, I32_MAX = -2147483648, 2147483647


def fits_i32(v: int) -> bool:
    return I32_MIN <= v <= I32_MAX


def scalar_key(v):
    """A scalar's key: i32 if it fits, else i64, else u64; a float is FLOAT; None: not a number.
    TypeError for an integer outside [-2**63, 2**64 - 1]."""
    if isinstance(v, (bool, np.bool_)):
        return dt.i32
    if isinstance(v, (int, np.integer)):
        t = dt.int_literal_dtype(int(v))
        if t is None:
            raise TypeError(f"integer argument {int(v)} is outside [-2**63, 2**64 - 1]")
        return t
    if isinstance(v, (float, np.floating)) or (isinstance(v, np.generic)
                                                and dt.is_bfloat16(v.dtype)):
        return FLOAT  # a half scalar too: its value is exact in f32 (docs/language.md)
    return None


def arg_key(v):
    """What a specialization depends on for one argument; TypeError if it has no key (the call
    is then not cached and `specs` raises the argument's error)."""
    if v.__class__ is Array:
        return v._sig
    if v.__class__ is float:
        return FLOAT
    if is_device_class(v):
        return ("object", object_key(v))
    s = scalar_key(v)
    if s is None:
        raise TypeError(f"no key for {type(v).__name__}")
    return s


def safe_key(v):
    """`arg_key`, None for a value without one (tack.dispatch compares it to a known key)."""
    try:
        return arg_key(v)
    except (TypeError, ValueError):
        return None


def key(args) -> tuple | None:
    """The specialization key of a call's arguments; None if one has no key."""
    try:
        return tuple([a._sig if a.__class__ is Array else (
            I32 if a.__class__ is int and I32_MIN <= a <= I32_MAX else arg_key(a))
            for a in args])
    except TypeError:
        return None


# ---- device-class objects -----------------------------------------------------------------------
def _class_constants(cls) -> set[str]:
    names = set()
    for klass in reversed(cls.__mro__):
        for name, v in vars(klass).items():
            if not name.startswith("_") and isinstance(v, (int, float, np.integer, np.floating)):
                names.add(name)
    return names


def _holds_itself(obj, path: tuple, outer: tuple) -> TackTypeError:
    """The error for an object reached again through its own attributes (`p.inner = p`)."""
    start = next(k for k, o in enumerate(outer) if o is obj)
    via = ".".join(path[start:])
    return TackTypeError(
        f"a {type(obj).__name__} object holds itself (through .{via}): device-class objects "
        "passed to a kernel are expanded attribute by attribute, so they must not form a cycle")


def object_key(obj, _path: tuple = (), _outer: tuple = ()) -> tuple:
    """Class identity, constants (type and bit pattern), array dtypes/ranks, scalar types,
    held functions and nested objects: everything a specialization depends on. An object that
    holds itself raises TypeError."""
    cls = type(obj)
    outer = _outer + (obj,)
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
            parts.append((name, scalar_key(v)))
        elif isinstance(v, Func):
            parts.append((name, id(v)))
        elif is_device_class(v):
            if any(o is v for o in outer):
                raise _holds_itself(v, _path + (name,), outer)
            parts.append((name, object_key(v, _path + (name,), outer)))
    return tuple(parts)


def object_info(obj) -> ObjInfo:
    """The spec of a device-class instance the parser works from (attribute roles:
    docs/language.md, "Device classes: `@tack.device_class`")."""
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
        elif isinstance(v, (bool, int, float, np.integer, np.floating)):
            info.scalars.add(name)
            if isinstance(v, (int, np.integer)):  # a bool is an int (keyed as i32)
                info.ints.add(name)
        elif isinstance(v, Func):
            info.funcs[name] = v
        elif is_device_class(v):
            info.objects[name] = object_info(v)
    return info


def objects_key(args) -> tuple:
    """The device-class arguments' keys, by position: what selects a parse."""
    return tuple((i, object_key(a)) for i, a in enumerate(args) if is_device_class(a))


def object_infos(args, names) -> dict[str, ObjInfo]:
    """The specs of the device-class arguments, by parameter name."""
    return {names[i]: object_info(a) for i, a in enumerate(args)
            if is_device_class(a) and i < len(names)}


def expand(paths, args) -> list:
    """The IR parameters' values: `paths[k]` = (argument position, attribute path) of
    parameter k when device-class objects are among the arguments (None: the arguments)."""
    if paths is None:
        return list(args)
    out = []
    for i, attrs in paths:
        v = args[i]
        for name in attrs:
            v = getattr(v, name)
        out.append(v)
    return out


# ---- what the compiler and the engine receive ---------------------------------------------------
def specs(name: str, params, values) -> dict:
    """The `ArgSpec`s of the IR parameters `params` from their values (objects expanded)."""
    from .frontend.typecheck import ArgSpec  # with the type checker, at the first compile

    return {p: ArgSpec(*t) for p, t in zip(params, spec_parts(name, params, values))}


def spec_parts(name: str, params, values) -> list[tuple]:
    """What `specs` makes its `ArgSpec`s of, as plain tuples (kind, dtype, ndim, shape), one per
    parameter: the disk cache keys a kernel on them before the type checker is loaded
    (tack.front_cache)."""
    any_f64 = any(isinstance(a, Array) and getattr(a.dtype, "elem", a.dtype) is dt.f64
                  for a in values)
    out = []
    for p, a in zip(params, values):
        if isinstance(a, Array):
            out.append(("array", a.dtype, a.ndim, a.shape))
            continue
        try:
            s = scalar_key(a)
        except TypeError as exc:
            raise TackTypeError(f"Kernel '{name}': parameter '{p}': {exc}") from None
        if s is None:
            raise TackTypeError(f"Kernel '{name}': Unsupported argument type for parameter "
                                f"'{p}': {type(a)}{_wrap_hint(a)}")
        out.append(("scalar", (dt.f64 if any_f64 else dt.f32) if s is FLOAT else s, 0, ()))
    return out


def _wrap_hint(a) -> str:
    """What to write instead of an array Tack does not take directly."""
    module = type(a).__module__.split(".")[0]
    if module == "numpy" and hasattr(a, "shape"):
        return (". A NumPy array goes in through tack.array(x) (a copy on the current device) "
                "or tack.from_dlpack(x) (zero-copy on the CPU); .numpy() brings results back")
    if module in ("torch", "cupy", "jax", "jaxlib") and hasattr(a, "shape"):
        return (f". A {module} array goes in through tack.from_dlpack(x) (zero-copy where the "
                "device is the same) or tack.array(x)")
    if isinstance(a, (list, tuple)):
        return ". Pass arrays as tack.array(...) and scalars as numbers"
    return ""


def launch_value(a: Array, takes_pointers: bool):
    """An array as the engine's launch takes it: its address, or its buffer."""
    return a._ptr if takes_pointers else a._buf


def launch_values(name: str, dev, values, takes_pointers: bool) -> list:
    """The launch values of the IR parameters' values, each array checked to be on `dev`
    (host arrays serve every host device)."""
    out = []
    for a in values:
        if a.__class__ is Array:
            if a._device is not dev and not serves(a._device, dev):
                raise mismatch(name, a._device, dev, current=dev.place == "host")
            a._unwritten = False  # a launch may write it (tack.empty's mark, arrays.py)
            out.append(a._ptr if takes_pointers else a._buf)
        else:
            out.append(a)
    return out


# ---- the same rules, spelled inline for tack.dispatch -------------------------------------------
def guard(nm: str, a, k: int, env: dict) -> list[str]:
    """Conditions, as Python source over the variable `nm`, any of which means an argument no
    longer has the key of `a` (the k-th argument when the call path was built); the names they
    use go into `env` (A: Array, dev: the device, sk: safe_key)."""
    if a.__class__ is Array:
        env[f"S{k}"] = a._sig
        # An array still marked unwritten takes the general path once, which clears the mark.
        return [f"{nm}.__class__ is not A", f"{nm}._device is not dev", f"{nm}._sig != S{k}",
                f"{nm}._unwritten"]
    s = env[f"S{k}"] = I32 if a.__class__ is int and fits_i32(a) else arg_key(a)
    if s is I32:
        return [(f"not ({nm}.__class__ is int and {I32_MIN} <= {nm} <= {I32_MAX}"
                 f" or sk({nm}) == S{k})")]
    if s == FLOAT:
        return [f"{nm}.__class__ is not float and sk({nm}) != S{k}"]
    return [f"sk({nm}) != S{k}"]


def launch_expr(nm: str, a, takes_pointers: bool) -> str:
    """`launch_value` spelled over the variable `nm` (scalars pass as they are)."""
    if a.__class__ is not Array:
        return nm
    return f"{nm}._ptr" if takes_pointers else f"{nm}._buf"
