"""Call arguments typed in one place: the kinds of argument, as data, and what each call needs of them.

A call's arguments are runtime values; everything below this module sees what is computed here
(numba's `typeof` in spirit). `KINDS` is the table of argument kinds: each row says, as Python
expressions over the argument, how a value of that kind is recognized and what a specialization
depends on of it (its key). Both call paths are made from these rows, so they cannot drift apart:
`key(args)`, the general path's specialization key, is compiled from the rows into one
expression per argument (the way Triton's binder is generated from a kernel's signature,
https://github.com/triton-lang/triton/blob/main/python/triton/runtime/jit.py,
`create_function_from_signature`), and `guard` spells the same rows for the one argument kind
a prebuilt call path (call/fast.py) was built for (numba's dispatcher compares a call's type
fingerprint the same way, https://github.com/numba/numba/blob/main/numba/core/dispatcher.py).
A new kind of argument is one row.

Once the parse is known, `expand` gives the IR parameters' values (device-class objects become
their attributes) and `launch_values` what the engine's launch takes: an array's address when the
engine's capabilities say it takes pointers, else its buffer (checked to be on the device). On a
new specialization, `specs` gives the `ArgSpec`s the type checker works from, and `object_info`
the `ObjInfo` a device-class argument is parsed with: the frontend and the compiler never see a
value.

The rules (docs/language.md, "Kernels and calls"): an array is keyed by dtype and rank (and
read-only memory); a Python int by its value's range (i32 if it fits, else i64, else u64); a
float is f32, or f64 when an f64 array is among the arguments; a bool is an i32; NumPy scalars
follow the same rules by value.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

import numpy as np

from .. import dtypes as dt
from ..arrays import Array
from ..devices import Device, default_device, mismatch, serves
from ..errors import TackTypeError
from ..frontend.inline import Func
from ..frontend.objects import ObjInfo, is_device_class

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


def _keyed_scalar(v):
    """`scalar_key`, TypeError for a value that is not a number (the call then has no key and
    `specs` raises the argument's error)."""
    s = scalar_key(v)
    if s is None:
        raise TypeError(f"no key for {type(v).__name__}")
    return s


@dataclass(frozen=True)
class Kind:
    """One kind of argument, as Python expressions over the argument `{v}`.

    `test` recognizes it (rows are tried in order; the last one takes the rest). `key` is what a
    specialization depends on of it; a TypeError while computing it means the call has no key.
    `launch` is its launch value (`{ptr}`: an array's address or buffer, by the engine's
    capabilities). `warm` are further conditions under which the general path's `launch_values`
    would pass it unchanged and change nothing: a prebuilt path requires them, and an argument
    failing one takes the general path, which checks or updates it. `shared` means a value
    another row recognizes may have the same key (a NumPy scalar, a float of a float row): the
    prebuilt path then asks `arg_key` before giving up. `prebuilt` False: calls with such an
    argument always take the general path (their values are expanded per call)."""

    name: str
    test: str
    key: str
    launch: str = "{v}"
    warm: tuple = ()
    shared: bool = True
    prebuilt: bool = True


KINDS: tuple[Kind, ...] = (
    # tack.Array: dtype, rank and read-only memory (arrays.Array._sig); its device is checked
    # per call (devices.launch_device, `launch_values`); `_unwritten`: tack.empty's mark,
    # cleared by the general path's first launch
    Kind("array", "{v}.__class__ is A", "{v}._sig", "{v}.{ptr}",
         warm=("{v}._device is dev", "not {v}._unwritten"), shared=False),
    Kind("float", "{v}.__class__ is float", "FLOAT"),
    Kind("i32", "{v}.__class__ is int and I32_MIN <= {v} <= I32_MAX", "I32"),
    # a @tack.func: bound at parse time and inlined, so it leaves the launch; keyed by identity
    # (the key holds it alive, so no other object takes its id)
    Kind("func", "isinstance({v}, Func)", "('func', {v})", shared=False),
    Kind("object", "is_device_class({v})", "('object', object_key({v}))", shared=False,
         prebuilt=False),
    # bool, NumPy scalars, ints outside i32: by value (`scalar_key`); anything else has no key
    Kind("scalar", "True", "_keyed_scalar({v})"),
)
# The names the rows' expressions use (the generated call path gets the same ones)
NAMES = {"A": Array, "FLOAT": FLOAT, "I32": I32, "I32_MIN": I32_MIN, "I32_MAX": I32_MAX,
         "is_device_class": is_device_class, "_keyed_scalar": _keyed_scalar, "Func": Func}


def _chain(v: str) -> str:
    """Every row's key as one conditional expression over `v`: the rows in order."""
    out = KINDS[-1].key.format(v=v)
    for kind in reversed(KINDS[:-1]):
        out = f"{kind.key.format(v=v)} if {kind.test.format(v=v)} else {out}"
    return out


def kind_of(v) -> Kind:
    """The row that recognizes `v` (the last one takes what no other does)."""
    return next(k for k in KINDS if _TESTS[k.name](v))


def _compile_rows() -> tuple:
    src = (f"def arg_key(v):\n    return {_chain('v')}\n"
           f"def key(args):\n    try:\n        return tuple([{_chain('a')} for a in args])\n"
           "    except TypeError:\n        return None\n")
    env = dict(NAMES, object_key=lambda v: object_key(v), __name__=__name__)
    tests = {k.name: eval(f"lambda v: {k.test.format(v='v')}", env)
             for k in KINDS}
    exec(compile(src, "<tack argument kinds>", "exec"), env)  # noqa: S102
    return env["arg_key"], env["key"], tests


arg_key, key, _TESTS = _compile_rows()
arg_key.__doc__ = ("What a specialization depends on for one argument (the row of `KINDS` "
                   "that recognizes it); TypeError if it has no key.")
key.__doc__ = "The specialization key of a call's arguments; None if one has no key."


def safe_key(v):
    """`arg_key`, None for a value without one (a prebuilt path compares it to a known key)."""
    try:
        return arg_key(v)
    except (TypeError, ValueError):
        return None


# ---- the device rule ----------------------------------------------------------------------------
def device_and_key(name: str, args) -> tuple:
    """(the device the call runs on, `key(args)`): what its plan is looked up by."""
    return launch_device(name, args), key(args)


def launch_device(name: str, args) -> Device:
    """The device a call of kernel `name` runs on: its array arguments' device, else the
    current one. CPU memory serves every host device (the current one runs it when it is a host
    device). Arguments on two devices raise DeviceMismatchError naming both, before launch."""
    current = default_device()
    own = host = None  # the first array device with its own memory; the first on CPU memory
    for a in args:
        d = getattr(a, "_device", None)
        if not isinstance(d, Device):
            continue
        if d.place == "host":
            host = host or d
        elif own is None:
            own = d
        elif d.place != own.place:
            raise mismatch(name, own, d)
    if own is not None:
        if host is not None and not own.is_host:
            raise mismatch(name, own, host)
        return current if current.place == own.place else own
    if host is not None and not current.is_host:
        raise mismatch(name, host, current, current=True)
    return current


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


def at_parse(v) -> bool:
    """Whether an argument is bound when the kernel is parsed (its parameter leaves the
    launch): a device-class object (expanded by attribute), or a `@tack.func`, inlined where
    the kernel calls the parameter (docs/language.md, "Device functions as arguments")."""
    return isinstance(v, Func) or is_device_class(v)


def objects_key(args) -> tuple:
    """The keys of the arguments bound at parse time, by position: what selects a parse. A
    `@tack.func` is keyed by identity; the parse then holds its inlined body, which is what
    the disk cache's key digests (call/records.py)."""
    return tuple((i, a if isinstance(a, Func) else object_key(a)) for i, a in enumerate(args)
                 if isinstance(a, Func) or is_device_class(a))  # `at_parse`, one call fewer


def object_infos(args, names) -> dict:
    """What the parser binds each parameter given at parse time to, by name: an object's
    `ObjInfo`, or the `@tack.func` itself."""
    return {names[i]: a if isinstance(a, Func) else object_info(a) for i, a in enumerate(args)
            if i < len(names) and (isinstance(a, Func) or is_device_class(a))}


def by_position(name: str, params: ast.arguments, args: tuple, kwargs: dict) -> tuple:
    """A call's arguments in parameter order, those given by keyword (`k(x, out, combine=f)`)
    placed by name; TypeError for a name that is no parameter or one given twice, or a
    parameter left without an argument."""
    names = [a.arg for a in params.args]
    if params.vararg or params.kwarg or params.kwonlyargs or params.posonlyargs:
        return args  # the parse refuses the signature itself (Kernel.check_arity)
    out = list(args) + [_UNSET] * (len(names) - len(args))
    for k, v in kwargs.items():
        i = names.index(k) if k in names else -1
        if i < 0 or out[i] is not _UNSET:
            what = "has no parameter" if i < 0 else "got more than one argument for parameter"
            raise TackTypeError(f"Kernel '{name}' {what} '{k}'")
        out[i] = v
    missing = [n for n, v in zip(names, out) if v is _UNSET]
    if missing:
        raise TackTypeError(f"Kernel '{name}' expects {len(names)} arguments; no argument "
                            f"for {', '.join(repr(n) for n in missing)}")
    return tuple(out)


_UNSET = object()


def selects(paths) -> bool:
    """Whether the IR's parameters are some of the arguments as they are (none, or only
    `@tack.func` arguments, left out), not device-class attributes: a path that can be
    spelled by position."""
    return paths is None or not any(attrs for _, attrs in paths)


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
    from ..frontend.typecheck import ArgSpec  # with the type checker, at the first compile

    return {p: ArgSpec(*t) for p, t in zip(params, spec_parts(name, params, values))}


def spec_parts(name: str, params, values) -> list[tuple]:
    """What `specs` makes its `ArgSpec`s of, as plain tuples (kind, dtype, ndim, shape), one per
    parameter: the disk cache keys a kernel on them before the type checker is loaded
    (call/records.py)."""
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
    if callable(a):
        return (". A function passed to a kernel is a @tack.func device function, inlined "
                "where the kernel calls it: decorate it with @tack.func")
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


# ---- the same rows, spelled for one argument of a prebuilt call path ------------------------
def guard(nm: str, a, k: int, env: dict, pointers: bool) -> tuple[str, str]:
    """(condition, launch value) as Python source over the variable `nm`, for the k-th argument
    of a call path built for a call whose k-th argument was `a`: the condition holds when the
    argument still has the key of `a` and the `warm` conditions of its row. The names it uses go
    into `env` (the rows' names, `dev`: the device, `sk`: `safe_key`, `S{k}`: the key)."""
    kind = kind_of(a)
    env.update(NAMES, sk=safe_key)
    env[f"S{k}"] = arg_key(a)
    same = kind.test.format(v=nm)  # recognized by the same row ...
    if "{v}" in kind.key:  # ... with the same key
        same = f"{same} and {kind.key.format(v=nm)} == S{k}"
    if kind is KINDS[-1]:  # the last row's key is what `arg_key` gives for what it takes
        same = f"sk({nm}) == S{k}"
    elif kind.shared:
        same = f"{same} or sk({nm}) == S{k}"
    conds = [f"({same})"] + [w.format(v=nm) for w in kind.warm]
    return " and ".join(conds), kind.launch.format(v=nm, ptr="_ptr" if pointers else "_buf")


def prebuilt(args) -> bool:
    """Whether a call path may be prebuilt for arguments like these (`Kind.prebuilt`)."""
    return all(kind_of(a).prebuilt for a in args)
