"""Cache keys: an unambiguous hash of an engine's key parts, of IR by value, of Tack's own code.

Engines decide what goes into a key (the CPU engine: the kernel's final IR by value
(`digest_object`), Tack's own code (`package_fingerprint`), the target and compiler versions);
this module only makes the digests canonical: equal inputs give equal keys in every process,
whatever the hash seed, and different inputs never collide by encoding.
"""
from __future__ import annotations

import dataclasses
import enum
import os
import sys

from .._version import __version__
from .entry import FORMAT, blake2b


def make_key(kind: str, *parts) -> str:
    """A 256-bit hex key over the kind, FORMAT, Tack's version and `parts`: str, bytes, int,
    float, bool, None, and lists/tuples and str-keyed dicts of these, in an unambiguous
    length-prefixed encoding (a dict's items sorted by key)."""

    h = blake2b(digest_size=32, person=b"tack-cache-key")
    _feed(h, [kind, FORMAT, __version__, list(parts)])
    return h.hexdigest()


def _feed(h, p) -> None:
    if isinstance(p, str):
        b = p.encode("utf-8", "surrogatepass")
        h.update(b"s%d:" % len(b))
        h.update(b)
    elif isinstance(p, (bytes, bytearray, memoryview)):
        b = bytes(p)
        h.update(b"b%d:" % len(b))
        h.update(b)
    elif p is None or isinstance(p, bool):
        h.update(b"n" if p is None else b"T" if p else b"F")
    elif isinstance(p, int):
        h.update(b"i%d;" % p)
    elif isinstance(p, float):
        h.update(b"f" + repr(p).encode() + b";")
    elif isinstance(p, (list, tuple)):
        h.update(b"l%d:" % len(p))
        for x in p:
            _feed(h, x)
    elif isinstance(p, dict):
        h.update(b"d%d:" % len(p))
        for k in sorted(p):
            if not isinstance(k, str):
                raise TypeError(f"cache key dict with a {type(k).__name__} key")
            _feed(h, k)
            _feed(h, p[k])
    else:
        raise TypeError(f"cache key part of type {type(p).__name__}")


# ---- IR by value --------------------------------------------------------------------------------
_HOW: dict = {}  # class -> how `_walk` digests its instances (`_how`)
# None, bool, int, float, str, bytes: b"<type>=<repr>;" (inline in the loops below: most of a
# tree's objects are leaves, and a call per leaf was half of a digest's time)
_LEAVES = {t: t.__name__.encode() + b"=" for t in (type(None), bool, int, float, str, bytes)}
_ENUM, _BASE, _SEQ, _MAP, _FIELDS, _DTYPE, _SCALAR = range(7)


def digest_object(obj) -> str:
    """A BLAKE2b-256 hex digest of a tree of IR objects by value: dataclasses (their compared
    fields, so `Loc.source` is skipped), `__slots__` classes, enums, str/bytes/numbers/None,
    lists, tuples, dicts, sets, NumPy dtypes and scalars, each tagged with its class name.
    Anything else raises TypeError (the caller then keys on something else)."""
    out: list = []
    _walk(out.append, obj)
    return blake2b(b"".join(out), digest_size=32, person=b"tack-cache-obj").hexdigest()


def _walk(put, o) -> None:
    t = type(o)
    leaf = _LEAVES.get(t)
    if leaf is not None:
        put(leaf + repr(o).encode() + b";")
        return
    if t is list or t is tuple:
        put(b"%s%d[" % (t.__name__.encode(), len(o)))
        for x in o:
            leaf = _LEAVES.get(type(x))
            if leaf is not None:
                put(leaf + repr(x).encode() + b";")
            else:
                _walk(put, x)
        put(b"]")
        return
    how = _HOW.get(t)
    if how is None:
        how = _HOW[t] = _how(o, t)
    kind, name, arg = how
    if kind == _FIELDS:
        put(name + b"(")
        for f, label in arg:
            put(label)
            x = getattr(o, f, None)
            leaf = _LEAVES.get(type(x))
            if leaf is not None:
                put(leaf + repr(x).encode() + b";")
            else:
                _walk(put, x)
        put(b")")
    elif kind == _ENUM:
        put(b"%s.%s;" % (name, o.name.encode()))
    elif kind == _BASE:  # a subclass of a leaf type, e.g. a tack.constant value
        put(b"%s=%s;" % (name, repr(arg(o)).encode()))
        if hasattr(o, "__dict__"):
            _walk(put, dict(vars(o)))
    elif kind == _SEQ:  # a subclass of list or tuple, e.g. a tack.constant table
        put(name + b"=")
        _walk(put, list(o))
        if hasattr(o, "__dict__"):
            _walk(put, dict(vars(o)))
    elif kind == _MAP:
        _walk_mapping(put, o, t, name)
    elif kind == _DTYPE:
        put(b"%s=%s;" % (name, o.str.encode()))
    else:
        put(b"%s=%s:%s;" % (name, o.dtype.str.encode(), repr(o.item()).encode()))


def _how(o, t) -> tuple:
    """(kind, the class's tag, what the kind needs) for instances of `t`, found once per class:
    `_walk` then spends one dict lookup per object on it."""
    name = f"{t.__module__}.{t.__qualname__}".encode()
    if issubclass(t, enum.Enum):
        return _ENUM, name, None
    for base in (bool, int, float, str, bytes):
        if issubclass(t, base):
            return _BASE, name, base
    if issubclass(t, (tuple, list)):
        return _SEQ, name, None
    if t is dict or t is set or t is frozenset:
        return _MAP, name, None
    fields = _fields_of(o, t)
    if fields == "dtype":
        return _DTYPE, name, None
    if fields == "scalar":
        return _SCALAR, name, None
    return _FIELDS, name, tuple((f, f.encode() + b":") for f in fields)


def _walk_mapping(put, o, t, name: bytes) -> None:
    """A dict, set or frozenset, its items in an order that does not depend on the hash seed."""
    items = list(o.items()) if t is dict else [(x, None) for x in o]
    if not all(type(k) in (str, int, bool, float, tuple) or k is None for k, _ in items):
        raise TypeError(f"{t.__name__} with {type(items[0][0]).__name__} keys")
    put(b"%s%d{" % (name, len(items)))
    for k, v in sorted(items, key=lambda kv: (type(kv[0]).__name__, repr(kv[0]))):
        _walk(put, k)
        if t is dict:
            _walk(put, v)
    put(b"}")


def _fields_of(o, t):
    """What `_walk` digests of a `t`: its compared dataclass fields, its slots, or a NumPy tag."""
    if dataclasses.is_dataclass(t):
        return tuple(f.name for f in dataclasses.fields(t) if f.compare)
    np = sys.modules.get("numpy")  # a NumPy value can only exist once NumPy is imported
    if np is not None and isinstance(o, np.dtype):
        return "dtype"
    if np is not None and isinstance(o, np.generic):
        return "scalar"
    fields = tuple(a for c in t.__mro__ for a in getattr(c, "__slots__", ())
                   if a not in ("__weakref__", "__dict__"))
    if not fields or hasattr(o, "__dict__"):
        raise TypeError(f"cannot digest a {t.__qualname__}")
    return fields


# ---- Tack's own code ----------------------------------------------------------------------------
_package: list | None = None
_code: list | None = None
_package_digest: str | None = None
DISTRIBUTION = "tack_kernels"  # the installed distribution's name, as its .dist-info spells it
# The package's top layer (tools/architecture.py's LAYERS, which tests/test_architecture.py
# enforces): test harnesses, the Julia bridges and `python -m tack`'s report. Nothing else in the
# package imports them, so no compiled code or record depends on their source, and a checkout's
# code keys skip them.
TOP_LAYER = ("testing", "julia", "__main__")


def package_fingerprint() -> list:
    """What identifies Tack's own code, computed once per process: [the package's path, ...].

    An installed package (its `.dist-info/RECORD` lists `tack/__init__.py`): the RECORD's
    digest, which covers a hash of every file the installer wrote (one read); a reinstall or an
    upgrade rewrites it. Otherwise (a checkout, an editable install, whose RECORD lists no
    module): [path, size, mtime] of every module, one `stat` each (~1.6 ms for 224 modules on
    a small VM), so that an edit in place is seen."""
    global _package
    if _package is None:
        _package = _fingerprint(())
    return _package


def code_fingerprint() -> list:
    """The part of `package_fingerprint` that code keys hold (`package_digest`): the same for
    an installed package; in a checkout, every module but the top layer's (TOP_LAYER)."""
    global _code
    if _code is None:
        _code = _fingerprint(TOP_LAYER)
    return _code


def _fingerprint(skip) -> list:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tack/, not cache/
    record = _installed_record(root)
    return [root, _module_stats(root, skip) if record is None else record]


def _installed_record(root: str) -> str | None:
    """The digest of the RECORD of the distribution installed beside `root`, if it lists
    `tack/__init__.py` (a wheel install); None otherwise."""
    path = os.path.join(os.path.dirname(root), f"{DISTRIBUTION}-{__version__}.dist-info",
                        "RECORD")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:  # not installed from a wheel (a checkout), or unreadable: stat the modules
        return None
    name = os.path.basename(root).encode() + b"/__init__.py,"
    if not (data.startswith(name) or b"\n" + name in data):
        return None  # an editable install: the RECORD names a path hook, not the modules
    h = blake2b(digest_size=32, person=b"tack-cache-rec")
    h.update(data)
    return h.hexdigest()


def _module_stats(root: str, skip=()) -> list:
    """[relative path, size, mtime] of every `.py` file below root but the subpackages and
    top-level modules named in `skip`, sorted by path."""
    out: list = []
    stack = [(root, "")]
    try:
        while stack:
            d, rel = stack.pop()
            with os.scandir(d) as it:
                for e in it:
                    n = e.name
                    if n.endswith(".py"):
                        if rel == "" and n[:-3] in skip:
                            continue
                        st = e.stat()
                        out.append([rel + n, st.st_size, st.st_mtime_ns])
                    elif (n != "__pycache__" and not (rel == "" and n in skip)
                          and e.is_dir(follow_symlinks=False)):
                        stack.append((e.path, rel + n + "/"))
    except OSError:
        pass
    out.sort()
    return out


def package_digest() -> str:
    """`code_fingerprint` as one hex digest (hashed once per process, as one string: each part
    length-prefixed): what keys hold."""
    global _package_digest
    if _package_digest is None:
        root, files = code_fingerprint()  # files: the RECORD's digest, or the modules
        if isinstance(files, str):
            text = f"{root}\0RECORD:{files}"
        else:
            text = "\0".join([root] + [f"{len(p)}:{p}:{n}:{t}" for p, n, t in files])
        h = blake2b(digest_size=32, person=b"tack-cache-pkg")
        h.update(text.encode("utf-8", "surrogatepass"))
        _package_digest = h.hexdigest()
    return _package_digest
