"""Storage: lookup, atomic write, and keeping the directory bounded and free of leftovers.

One subdirectory per kind, one file per entry (`<kind>/<key>.bin`). A write goes to a private
temporary file in the same directory, then `os.replace`: readers see the old entry or the new one,
never a partial one, whatever other processes do, so no lock is needed. A damaged or foreign entry
is ignored by `load` and replaced by the next `store`. Over TACK_CACHE_SIZE a store deletes the
least recently used entries down to 3/4 of it.
"""
from __future__ import annotations

import os
import stat
import time

from .config import _check_dir, _insecure, _warn_once, default_directory, directory, max_size, mode
from .entry import HEADER_SIZE, SUFFIX, Entry, claimed_size, decode, encode

_HEX = frozenset("0123456789abcdef")
_KIND_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")


def _is_kind(name: str) -> bool:
    """`[a-z0-9][a-z0-9_-]{0,31}`, spelled without `re` (its compiler would cost a cached
    first call more than the lookup itself)."""
    return 0 < len(name) <= 32 and name[0] not in "_-" and set(name) <= _KIND_CHARS


def _is_key(key: str) -> bool:
    """`[0-9a-f]{16,128}`."""
    return 16 <= len(key) <= 128 and set(key) <= _HEX
_TMP_MAX_AGE = 600.0  # seconds after which a writer's leftover temporary file is removed

_stats = {"hits": 0, "misses": 0, "rejected": 0, "stores": 0, "store_errors": 0}
_written = {"bytes": 0, "stores": 0}  # since the last prune: a store prunes every limit/16 bytes


def stats() -> dict:
    """This process's counts: hits, misses, rejected (present but unusable), stores, errors."""
    return dict(_stats)


def _path(root: str, kind: str, key: str) -> str:
    if not _is_kind(kind):
        raise ValueError(f"bad cache kind {kind!r}")
    if not _is_key(key):
        raise ValueError(f"bad cache key {key!r}")
    return os.path.join(root, kind, key + SUFFIX)


# ---- lookup -------------------------------------------------------------------------------------
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) |
               getattr(os, "O_BINARY", 0))  # O_NONBLOCK: opening a FIFO there must not block


def load(kind: str, key: str) -> Entry | None:
    """The entry stored under (kind, key), verified; None if absent, unusable or the cache off.
    The kind subdirectory is checked like the root (owner, mode; a symbolic link is refused),
    the file opened without following links or blocking and checked (a regular file of this
    user, not group/world-writable) before anything is read, and its fixed header read first:
    a size other than the one it claims is refused without reading the body."""
    root = directory(create=False)
    if root is None:
        return None
    path = _path(root, kind, key)
    reason = _check_dir(os.path.dirname(path), create=False, follow=False)
    if reason is not None:
        if reason != "missing":
            _warn_once(("dir", os.path.dirname(path)), f"not reading from "
                       f"{os.path.dirname(path)}: {reason}")
        _stats["misses" if reason == "missing" else "rejected"] += 1
        return None
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        _stats["misses"] += 1
        return None
    try:
        st = os.fstat(fd)
        blob = None
        if stat.S_ISREG(st.st_mode) and _insecure(path, st) is None:
            blob = _read_checked(fd, st.st_size)
    except OSError:
        blob = None
    finally:
        os.close(fd)
    got = None if blob is None else decode(kind, key, blob)
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


def _read_checked(fd: int, size: int) -> bytes | None:
    """The whole file if its header claims exactly the size fstat gave, else None (having read
    only the header)."""
    head = _read_all(fd, min(size, HEADER_SIZE), exact=True)
    if claimed_size(head) != size:
        return None
    rest = _read_all(fd, size - len(head), exact=False)
    return head + rest if len(head) + len(rest) == size else None


def _read_all(fd: int, size: int, exact: bool) -> bytes:
    """Up to `size` bytes (`exact`), or `size` + 1 (a growing file then reads too long: not
    intact)."""
    chunks, want = [], size if exact else size + 1
    while want > 0:
        b = os.read(fd, want)
        if not b:
            break
        chunks.append(b)
        want -= len(b)
    return b"".join(chunks)


# ---- atomic write -------------------------------------------------------------------------------
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
    reason = _check_dir(sub, create=True, follow=False)
    if reason is not None:
        _warn_once(("dir", sub), f"not writing to {sub}: {reason}")
        return False
    try:
        _write_replace(path, f".tmp-{key[:16]}-{os.getpid()}-{os.urandom(6).hex()}", blob)
    except OSError as exc:
        _stats["store_errors"] += 1
        _warn_once(("write", root), f"cannot write to {root}: {exc.strerror or exc}; kernels "
                   "still run, without being kept on disk")
        return False
    _stats["stores"] += 1
    _written["bytes"] += len(blob)
    _written["stores"] += 1
    limit = max_size()
    if limit > 0 and (_written["stores"] == 1 or _written["bytes"] > limit // 16):
        _written["bytes"] = 0
        prune(limit)
    return True


def _write_replace(path: str, tmp_name: str, blob: bytes) -> None:
    """Write `blob` to a new private file `tmp_name` beside `path`, then move it onto `path`;
    the temporary file is removed whatever interrupts that."""
    tmp = os.path.join(os.path.dirname(path), tmp_name)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    moved = False
    try:
        try:
            view = memoryview(blob)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(tmp, path)
        moved = True
    finally:
        if not moved:
            _unlink(tmp)


# ---- maintenance --------------------------------------------------------------------------------
def _entries(root: str, strays: bool = False):
    """(path, size, mtime, kind) of every entry file and leftover temporary file under root;
    `strays`: also whatever else has such a name and is not a regular file (a FIFO, a socket, a
    symbolic link, a device node: a lookup refuses them, `clear` removes them)."""
    try:
        kinds = [d for d in os.scandir(root) if _is_kind(d.name) and
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
            if stat.S_ISREG(st.st_mode) or strays and not stat.S_ISDIR(st.st_mode):
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
    Only Tack's own names are touched, whatever else the directory holds; anything at such a
    name that is not a regular file (a FIFO, a link) is removed too (never followed)."""
    root = directory(create=False)
    if root is None:
        return 0
    return sum(_unlink(path) for path, _, _, _ in list(_entries(root, strays=True)))


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
