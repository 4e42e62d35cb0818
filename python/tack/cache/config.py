"""Configuration of the disk cache: where it is, whether it reads and writes, how big it may grow.

Everything is read from the environment at each call (not at import), so a test or a job script
can change TACK_CACHE, TACK_CACHE_DIR or TACK_CACHE_SIZE at any time. A directory is checked once
per process: it must be a directory only this user can write, since an entry is code that runs.
"""
from __future__ import annotations

import os
import stat
import sys
import threading
import warnings

DEFAULT_SIZE = 512 << 20
_OFF = ("off", "0", "false", "no", "none", "disable", "disabled")
_ON = ("on", "1", "true", "yes", "rw", "readwrite", "read-write")
_READ = ("read", "readonly", "read-only", "ro")
_MPI_SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS",
                  "PMIX_SIZE")


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


_warned: set = set()  # tags already warned about in this process
_lock = threading.Lock()


def _warn_once(tag, message: str) -> None:
    with _lock:
        if tag in _warned:
            return
        _warned.add(tag)
    warnings.warn(f"tack.cache: {message}", RuntimeWarning, stacklevel=3)


def mode() -> str:
    """"off", "read" or "readwrite", from TACK_CACHE: unset/`auto` reads and writes (but only reads
    inside an MPI job of several ranks), `on` reads and writes, `read` only reads, `off` disables
    the cache."""
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
    """Why a file or directory with this stat must not be trusted, or None."""
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        return f"{path} is owned by another user (uid {st.st_uid})"
    if os.name == "posix" and st.st_mode & 0o022:
        return (f"{path} is writable by other users (mode {st.st_mode & 0o777:o}); "
                f"run `chmod go-w {path}` to use it")
    return None


def _check_dir(path: str, create: bool, follow: bool = True) -> str | None:
    """None if `path` is a directory only this user can write (made with mode 0700 if missing),
    else why not. Remembered per process. `follow=False` (a kind subdirectory, which Tack makes
    itself) also refuses a symbolic link there."""
    reason = _checked.get(path, 0)
    if reason != 0:
        return reason
    try:
        if create:
            os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.stat(path) if follow else os.lstat(path)
        if not stat.S_ISDIR(st.st_mode):
            reason = f"{path} is not a directory"
        else:
            reason = _insecure(path, st)
    except FileNotFoundError as exc:
        if not create:
            return "missing"  # read-only mode and nothing stored yet: not remembered, not warned
        reason = f"cannot create {path}: {exc.strerror or exc}"  # makedirs found no parent
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
    """Whether the cache would be used now (engines ask before computing a key at all)."""
    return directory(create=mode() == "readwrite") is not None
