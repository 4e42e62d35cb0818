"""The disk cache: compiled kernels kept between processes (docs/design/005-disk-cache.md).

    key = cache.make_key("cpu", llvm_ir, target, versions)   # BLAKE2b-256, hex
    entry = cache.load("cpu", key)                          # Entry(data, meta) or None
    cache.store("cpu", key, object_code, {"symbols": [...]})  # atomic; False if not written

Engines decide what goes into a key and what the payload is (the CPU engine: the kernel's final
IR by value (`digest_object`), Tack's own code (`package_fingerprint`), the target and compiler
versions → an ELF object; a GPU engine can store PTX/CUBIN the same way under its own kind).
This module only keeps bytes safely:

- where: `TACK_CACHE_DIR`, else `$XDG_CACHE_HOME/tack`, else `~/.cache/tack`; one subdirectory
  per kind, one file per entry (`<kind>/<key>.bin`).
- `TACK_CACHE`: unset/`auto` reads and writes (but only reads inside an MPI job of several
  ranks), `on` reads and writes, `read` only reads, `off` disables the cache. Read at each lookup.
- an entry is a fixed binary header (lengths and a BLAKE2b checksum of the rest), the kind, the
  key, a JSON meta object and the payload, and must name the kind and key it was looked up by: a
  truncated, corrupted or foreign file is ignored (and replaced by the next store). Nothing is
  unpickled.
- writes go to a private temporary file in the same directory, then `os.replace`: readers see
  the old entry or the new one, never a partial one, whatever other processes do.
- a directory owned by another user or writable by group/others (an entry is code that will run)
  is refused with a warning; compiling then proceeds without the cache.
- bounded: over `TACK_CACHE_SIZE` (default 512M) a store deletes the least recently used entries
  down to 3/4 of it. `python -m tack.cache --info | --clear | --prune` inspects or empties it.
"""
from __future__ import annotations

import os
import re
import struct
import sys
import threading
import time
import warnings
from ._version import __version__

try:  # the builtin module: no OpenSSL to load on the first-call path
    from _blake2 import blake2b
except ImportError:  # pragma: no cover
    from hashlib import blake2b

FORMAT = 1  # of the entry file and of make_key's input; bump on any change to either
MAGIC = b"TACKCACH"
# magic, format, lengths of kind, key, meta JSON and payload, BLAKE2b of all that follows
_FIXED = struct.Struct("<8sIHHIQ32s")
SUFFIX = ".bin"
DEFAULT_SIZE = 512 << 20
_KIND = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}\Z")
_KEY = re.compile(r"[0-9a-f]{16,128}\Z")
_OFF = ("off", "0", "false", "no", "none", "disable", "disabled")
_ON = ("on", "1", "true", "yes", "rw", "readwrite", "read-write")
_READ = ("read", "readonly", "read-only", "ro")
_MPI_SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS",
                  "PMIX_SIZE")
_TMP_MAX_AGE = 600.0  # seconds after which a writer's leftover temporary file is removed


class Entry:
    """A verified cache entry: `data` (the payload bytes) and `meta` (the engine's JSON dict,
    parsed on first use: a lookup that needs only the payload never imports json)."""

    __slots__ = ("_meta", "_meta_json", "data", "path")

    def __init__(self, data: bytes, meta_json: bytes, path: str):
        self.data, self.path, self._meta_json, self._meta = data, path, meta_json, None

    @property
    def meta(self) -> dict:
        if self._meta is None:
            import json

            try:
                m = json.loads(self._meta_json)
            except ValueError:
                m = None
            self._meta = m if isinstance(m, dict) else {}
        return self._meta

    def __repr__(self) -> str:
        return f"<tack.cache.Entry {os.path.basename(self.path)} {len(self.data)} bytes>"


# ---- configuration ------------------------------------------------------------------------------
def default_directory() -> str:
    """TACK_CACHE_DIR, else $XDG_CACHE_HOME/tack, else ~/.cache/tack (Windows: LOCALAPPDATA)."""
    d = os.environ.get("TACK_CACHE_DIR", "").strip()
    if d:
        return os.path.abspath(os.path.expanduser(d))
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    if xdg and os.path.isabs(xdg):  # the XDG spec: a relative value is invalid, ignore it
        return os.path.join(xdg, "tack")
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return os.path.join(os.environ["LOCALAPPDATA"], "tack", "Cache")
    return os.path.join(os.path.expanduser("~"), ".cache", "tack")


def _in_mpi_job() -> bool:
    for var in _MPI_SIZE_VARS:
        try:
            if int(os.environ.get(var, "")) > 1:
                return True
        except ValueError:
            pass
    return False


_warned: set = set()
_lock = threading.Lock()


def _warn_once(tag, message: str) -> None:
    with _lock:
        if tag in _warned:
            return
        _warned.add(tag)
    warnings.warn(f"tack.cache: {message}", RuntimeWarning, stacklevel=3)


def mode() -> str:
    """"off", "read" or "readwrite", from TACK_CACHE (see the module docstring)."""
    v = os.environ.get("TACK_CACHE", "").strip().lower()
    if v in _OFF:
        return "off"
    if v in _READ:
        return "read"
    if v in _ON:
        return "readwrite"
    if v not in ("", "auto"):
        _warn_once(("mode", v), f"TACK_CACHE={v!r} is not one of auto, on, read, off; using auto")
    return "read" if _in_mpi_job() else "readwrite"


def max_size() -> int:
    """TACK_CACHE_SIZE in bytes (suffixes K, M, G; default 512M); 0 or less: unbounded."""
    v = os.environ.get("TACK_CACHE_SIZE", "").strip().upper().removesuffix("B")
    if not v:
        return DEFAULT_SIZE
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(v[-1:], 1)
    try:
        return int(float(v[:-1] if scale > 1 else v) * scale)
    except ValueError:
        _warn_once(("size", v), f"TACK_CACHE_SIZE={v!r} is not a size like 512M; using 512M")
        return DEFAULT_SIZE


_checked: dict = {}  # directory -> None (usable) or the reason it is refused


def _insecure(path: str, st) -> str | None:
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        return f"{path} is owned by another user (uid {st.st_uid})"
    if os.name == "posix" and st.st_mode & 0o022:
        return (f"{path} is writable by other users (mode {st.st_mode & 0o777:o}); "
                f"run `chmod go-w {path}` to use it")
    return None


def _check_dir(path: str, create: bool) -> str | None:
    """None if `path` is a directory only this user can write (made with mode 0700 if missing),
    else why not. Remembered per process."""
    reason = _checked.get(path, 0)
    if reason != 0:
        return reason
    try:
        if create:
            os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.stat(path)
        if not os.path.isdir(path):
            reason = f"{path} is not a directory"
        else:
            reason = _insecure(path, st)
    except FileNotFoundError:
        return "missing"  # read-only mode and nothing stored yet: not remembered, not warned
    except OSError as exc:
        reason = f"cannot use {path}: {exc.strerror or exc}"
    _checked[path] = reason
    return reason


def directory(create: bool = True) -> str | None:
    """The cache directory when the cache is on and the directory is safe to use, else None
    (a refused directory gives one warning per process)."""
    if mode() == "off":
        return None
    path = default_directory()
    reason = _check_dir(path, create)
    if reason is None:
        return path
    if reason != "missing":
        _warn_once(("dir", path), f"not using the cache directory: {reason}. Kernels are "
                   "compiled without the disk cache (set TACK_CACHE_DIR to another directory, "
                   "or TACK_CACHE=off to silence this)")
    return None


def enabled() -> bool:
    return directory(create=mode() == "readwrite") is not None


# ---- keys ---------------------------------------------------------------------------------------
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


_FIELDS: dict = {}  # dataclass -> names of its compared fields


def digest_object(obj) -> str:
    """A BLAKE2b-256 hex digest of a tree of IR objects by value: dataclasses (their compared
    fields, so `Loc.source` is skipped), `__slots__` classes, enums, str/bytes/numbers/None,
    lists, tuples, dicts, sets, NumPy dtypes and scalars, each tagged with its class name.
    Anything else raises TypeError (the caller then keys on something else)."""
    h = blake2b(digest_size=32, person=b"tack-cache-obj")
    _walk(h.update, obj)
    return h.hexdigest()


def _walk(put, o) -> None:
    t = type(o)
    if o is None or t is bool or t is int or t is float or t is str or t is bytes:
        put(b"%s=%s;" % (t.__name__.encode(), repr(o).encode()))
        return
    if t is list or t is tuple:
        put(b"%s%d[" % (t.__name__.encode(), len(o)))
        for x in o:
            _walk(put, x)
        put(b"]")
        return
    name = f"{t.__module__}.{t.__qualname__}".encode()
    import enum

    if isinstance(o, enum.Enum):
        put(b"%s.%s;" % (name, o.name.encode()))
        return
    for base in (bool, int, float, str, bytes):  # subclasses, e.g. tack.constant values
        if isinstance(o, base):
            put(b"%s=%s;" % (name, repr(base(o)).encode()))
            if hasattr(o, "__dict__"):
                _walk(put, dict(vars(o)))
            return
    if t is dict or t is set or t is frozenset:
        items = list(o.items()) if t is dict else [(x, None) for x in o]
        if not all(type(k) in (str, int, bool, float, tuple) or k is None for k, _ in items):
            raise TypeError(f"{t.__name__} with {type(items[0][0]).__name__} keys")
        put(b"%s%d{" % (name, len(items)))
        for k, v in sorted(items, key=lambda kv: (type(kv[0]).__name__, repr(kv[0]))):
            _walk(put, k)
            if t is dict:
                _walk(put, v)
        put(b"}")
        return
    fields = _FIELDS.get(t)
    if fields is None:
        import dataclasses

        if dataclasses.is_dataclass(t):
            fields = tuple(f.name for f in dataclasses.fields(t) if f.compare)
        elif (np := sys.modules.get("numpy")) is not None and isinstance(o, np.dtype):
            fields = "dtype"
        elif np is not None and isinstance(o, np.generic):
            fields = "scalar"
        else:
            fields = tuple(a for c in t.__mro__ for a in getattr(c, "__slots__", ())
                           if a not in ("__weakref__", "__dict__"))
            if not fields or hasattr(o, "__dict__"):
                raise TypeError(f"cannot digest a {t.__qualname__}")
        _FIELDS[t] = fields
    if fields == "dtype":
        put(b"%s=%s;" % (name, o.str.encode()))
    elif fields == "scalar":
        put(b"%s=%s:%s;" % (name, o.dtype.str.encode(), repr(o.item()).encode()))
    else:
        put(name + b"(")
        for f in fields:
            put(f.encode() + b":")
            _walk(put, getattr(o, f, None))
        put(b")")


def package_fingerprint() -> list:
    """(path, size, mtime) of every module of the tack package: part of code keys, so that any
    change to Tack's own code (a renderer, the pipeline) can never reuse stale code. Computed
    once per process (~0.3 ms)."""
    global _package
    if _package is None:
        root = os.path.dirname(os.path.abspath(__file__))
        out: list = []

        def walk(d):
            for e in sorted(os.scandir(d), key=lambda e: e.name):
                if e.is_dir(follow_symlinks=False):
                    if e.name != "__pycache__":
                        walk(e.path)
                elif e.name.endswith(".py"):
                    st = e.stat()
                    out.append([os.path.relpath(e.path, root), st.st_size, st.st_mtime_ns])

        try:
            walk(root)
        except OSError:
            pass
        _package = [root, out]
    return _package


_package: list | None = None


# ---- entries ------------------------------------------------------------------------------------
def _path(root: str, kind: str, key: str) -> str:
    if not _KIND.match(kind):
        raise ValueError(f"bad cache kind {kind!r}")
    if not _KEY.match(key):
        raise ValueError(f"bad cache key {key!r}")
    return os.path.join(root, kind, key + SUFFIX)


def encode(kind: str, key: str, data: bytes, meta: dict | None = None) -> bytes:
    """The bytes of an entry file: the fixed header, kind, key, meta (JSON), payload."""
    import json

    head = (kind.encode() + key.encode() +
            json.dumps({"created": time.time(), **(meta or {})}, sort_keys=True).encode())
    fixed = [MAGIC, FORMAT, len(kind), len(key), len(head) - len(kind) - len(key), len(data)]
    return _FIXED.pack(*fixed, _digest(fixed[1:], head, data)) + head + data


def _digest(lengths, head, data) -> bytes:
    h = blake2b(digest_size=32, person=b"tack-cache-ent")
    h.update(struct.pack("<IHHIQ", *lengths))
    h.update(head)
    h.update(data)
    return h.digest()


def decode(kind: str, key: str, blob: bytes) -> tuple[bytes, bytes] | None:
    """(payload, meta JSON bytes) if `blob` is an intact entry of this kind and key, else None."""
    n = _FIXED.size
    if len(blob) < n:
        return None
    magic, fmt, klen, keylen, mlen, dlen, digest = _FIXED.unpack_from(blob)
    if magic != MAGIC or fmt != FORMAT or n + klen + keylen + mlen + dlen != len(blob):
        return None
    mv = memoryview(blob)
    end = n + klen + keylen + mlen
    if _digest((fmt, klen, keylen, mlen, dlen), mv[n:end], mv[end:]) != digest:
        return None
    if mv[n:n + klen] != kind.encode() or mv[n + klen:n + klen + keylen] != key.encode():
        return None
    return bytes(mv[end:]), bytes(mv[n + klen + keylen:end])


_stats = {"hits": 0, "misses": 0, "rejected": 0, "stores": 0, "store_errors": 0}


def stats() -> dict:
    """This process's counts: hits, misses, rejected (present but unusable), stores, errors."""
    return dict(_stats)


def load(kind: str, key: str) -> Entry | None:
    """The entry stored under (kind, key), verified; None if absent, unusable or the cache off."""
    root = directory(create=False)
    if root is None:
        return None
    path = _path(root, kind, key)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) |
                     getattr(os, "O_BINARY", 0))
    except OSError:
        _stats["misses"] += 1
        return None
    try:
        st = os.fstat(fd)
        import stat as _st

        if not _st.S_ISREG(st.st_mode) or _insecure(path, st) is not None:
            _stats["rejected"] += 1
            return None
        blob = _read_all(fd, st.st_size)
    except OSError:
        _stats["rejected"] += 1
        return None
    finally:
        os.close(fd)
    got = decode(kind, key, blob)
    if got is None:
        _stats["rejected"] += 1
        return None
    _stats["hits"] += 1
    if time.time() - st.st_mtime > 3600 and mode() == "readwrite":
        try:  # least-recently-used order for pruning: a hit renews the entry (hourly at most)
            os.utime(path)
        except OSError:
            pass
    return Entry(got[0], got[1], path)


def _read_all(fd: int, size: int) -> bytes:
    chunks, want = [], size + 1  # one byte more than stat said: a growing file is not intact
    while want > 0:
        b = os.read(fd, want)
        if not b:
            break
        chunks.append(b)
        want -= len(b)
    return b"".join(chunks)


_written = {"bytes": 0, "stores": 0}


def store(kind: str, key: str, data: bytes, meta: dict | None = None) -> bool:
    """Write the entry atomically (temporary file + os.replace). Never raises for I/O problems:
    returns False (with one warning per process) if the cache cannot be written."""
    if mode() != "readwrite":
        return False
    root = directory(create=True)
    if root is None:
        return False
    path = _path(root, kind, key)
    sub = os.path.dirname(path)
    blob = encode(kind, key, data, meta)
    tmp = None
    try:
        reason = _check_dir(sub, create=True)
        if reason is not None:
            _warn_once(("dir", sub), f"not writing to {sub}: {reason}")
            return False
        tmp = os.path.join(sub, f".tmp-{key[:16]}-{os.getpid()}-{os.urandom(6).hex()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                     0o600)
        try:
            view = memoryview(blob)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        _stats["store_errors"] += 1
        _warn_once(("write", root), f"cannot write to {root}: {exc.strerror or exc}; kernels "
                   "still run, without being kept on disk")
        return False
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    _stats["stores"] += 1
    _written["bytes"] += len(blob)
    _written["stores"] += 1
    limit = max_size()
    if limit > 0 and (_written["stores"] == 1 or _written["bytes"] > limit // 16):
        _written["bytes"] = 0
        prune(limit)
    return True


# ---- maintenance --------------------------------------------------------------------------------
def _entries(root: str):
    """(path, size, mtime, kind) of every entry file and leftover temporary file under root."""
    try:
        kinds = [d for d in os.scandir(root) if _KIND.match(d.name) and
                 d.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for d in kinds:
        try:
            files = list(os.scandir(d.path))
        except OSError:
            continue
        for f in files:
            if not (f.name.endswith(SUFFIX) or f.name.startswith(".tmp-")):
                continue
            try:
                st = f.stat(follow_symlinks=False)
            except OSError:
                continue
            if f.is_file(follow_symlinks=False):
                yield f.path, st.st_size, st.st_mtime, d.name


def prune(limit: int | None = None) -> int:
    """Delete the least recently used entries until the cache is under 3/4 of `limit` (default
    TACK_CACHE_SIZE) if it is over `limit`, and leftover temporary files; returns files removed."""
    root = directory(create=False)
    if root is None or mode() != "readwrite":
        return 0
    limit = max_size() if limit is None else limit
    now, removed, live = time.time(), 0, []
    for path, size, mtime, _ in _entries(root):
        if os.path.basename(path).startswith(".tmp-"):
            if now - mtime > _TMP_MAX_AGE:
                removed += _unlink(path)
        else:
            live.append((mtime, size, path))
    total = sum(s for _, s, _ in live)
    if limit > 0 and total > limit:
        live.sort()
        for _, size, path in live:
            if total <= limit * 3 // 4:
                break
            removed += _unlink(path)
            total -= size
    return removed


def _unlink(path: str) -> int:
    try:
        os.unlink(path)
        return 1
    except OSError:
        return 0


def clear() -> int:
    """Delete every entry (and temporary file) in the cache directory; returns files removed.
    Only Tack's own files are touched, whatever else the directory holds."""
    root = directory(create=False)
    if root is None:
        return 0
    return sum(_unlink(path) for path, _, _, _ in list(_entries(root)))


def info() -> dict:
    """The cache's configuration and contents: directory, mode, state, size limit, per kind the
    number of entries and bytes."""
    path, m = default_directory(), mode()
    out = {"directory": path, "mode": m, "max_size": max_size(), "kinds": {}}
    reason = None if m == "off" else _check_dir(path, create=False)
    out["state"] = ("disabled (TACK_CACHE=off)" if m == "off" else "empty (not created yet)"
                    if reason == "missing" else "ok" if reason is None else f"refused: {reason}")
    if m != "off" and reason is None:
        for p, size, _, kind in _entries(path):
            if p.endswith(SUFFIX):
                k = out["kinds"].setdefault(kind, {"entries": 0, "bytes": 0})
                k["entries"] += 1
                k["bytes"] += size
    out["entries"] = sum(k["entries"] for k in out["kinds"].values())
    out["bytes"] = sum(k["bytes"] for k in out["kinds"].values())
    return out


def _main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m tack.cache",
                                 description="Tack's disk cache of compiled kernels.")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--info", action="store_true", help="where the cache is and what it holds "
                   "(the default)")
    g.add_argument("--clear", action="store_true", help="delete every cached kernel")
    g.add_argument("--prune", action="store_true", help="shrink to the size limit now")
    g.add_argument("--path", action="store_true", help="print the cache directory")
    a = ap.parse_args(argv)
    if a.path:
        print(default_directory())
        return 0
    if a.clear or a.prune:
        if mode() == "off":
            print("the cache is off (TACK_CACHE=off); nothing done")
            return 0
        if a.clear:
            print(f"removed {clear()} files from {default_directory()}")
        else:
            print(f"removed {prune()} files from {default_directory()}")
        return 0
    i = info()
    print(f"directory: {i['directory']}\nmode:      {i['mode']}  (TACK_CACHE)\n"
          f"state:     {i['state']}\nlimit:     "
          f"{_human(i['max_size']) if i['max_size'] > 0 else 'unbounded'}  (TACK_CACHE_SIZE)\n"
          f"entries:   {i['entries']}, {_human(i['bytes'])}")
    for kind, k in sorted(i["kinds"].items()):
        print(f"  {kind}: {k['entries']} entries, {_human(k['bytes'])}")
    return 0


def _human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


if __name__ == "__main__":
    sys.exit(_main())
