"""Ctrl-C during a CPU kernel: a parallel launch stops between chunks, a long sequential loop of
the kernel at its next poll (passes/polls.py), and the call raises KeyboardInterrupt, its outputs
partially written (docs/language.md, "Kernels and calls"; docs/design/002-cpu-engine.md, "Ctrl-C").

A launch runs inside one GIL-releasing native call, so Python's own SIGINT handler only notes
the signal; the call would run to its end. So the pool's code has a native handler
(`tack_on_sigint`, pool_ir.py) that calls the handler it replaced — Python's — and then counts
the signal where the chunk loop and the kernels' polls see it, so the launch stops and the
KeyboardInterrupt comes as usual when the call returns. Each launch compares the count with the
one its launcher read before it began (`baseline`; the C caller of call.py does the same): a
launch that took a later reading as its baseline would absorb a signal that came in between and
run on to its end. It is installed (once, by the pool's first use) only in front of Python's default
handler: a program that set its own SIGINT handler, or ignores SIGINT, keeps exactly that
behaviour, and one that sets a handler later replaces this one. Linux with glibc only (the layout
of `struct sigaction` is read here); elsewhere kernels run to their end, as before.
"""
from __future__ import annotations

import ctypes
import os
import signal
import struct
import sys
import threading

_SA_SIGINFO = 4  # Linux, every architecture glibc supports here
_HANDLER_AT, _FLAGS_AT = 0, 8 + 128  # struct sigaction: handler, sigset_t (1024 bits), flags
_SIGACTION_SIZE = 256  # more than glibc's 152 bytes on x86-64 and AArch64


def _glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (AttributeError, ValueError, OSError):
        return False


def install(on_sigint: int, set_prev) -> bool:
    """Put the native handler at address `on_sigint` in front of Python's default SIGINT
    handler, giving it the old one through `set_prev(address)`. False where it does not apply."""
    if not (sys.platform.startswith("linux") and os.uname().machine in ("x86_64", "aarch64")
            and _glibc()):
        return False
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    sigaction = libc.sigaction
    sigaction.restype = ctypes.c_int
    sigaction.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    old = ctypes.create_string_buffer(_SIGACTION_SIZE)
    if sigaction(signal.SIGINT, None, old) != 0:
        return False
    (handler,) = struct.unpack_from("<Q", old, _HANDLER_AT)
    (flags,) = struct.unpack_from("<i", old, _FLAGS_AT)
    if handler in (0, 1) or flags & _SA_SIGINFO or handler == on_sigint:
        return handler == on_sigint  # SIG_DFL, SIG_IGN, a three-argument handler: leave it
    set_prev(handler)
    new = ctypes.create_string_buffer(old.raw, _SIGACTION_SIZE)  # same mask and flags
    struct.pack_into("<Q", new, _HANDLER_AT, on_sigint)
    return sigaction(signal.SIGINT, new, None) == 0


def interrupted(name: str) -> None:
    """After a launch that a SIGINT stopped: the main thread gets Python's KeyboardInterrupt
    when the native call returns; another launching thread gets its own here."""
    if threading.current_thread() is not threading.main_thread():
        raise KeyboardInterrupt(f"Kernel '{name}' was interrupted; its outputs are partially "
                                "written")


def watch_sigints(nat, pointer_address: int) -> ctypes.c_int64:
    """For a kernel whose loops poll (passes/polls.py): point its code's SIGINT-count pointer (at
    `pointer_address`) at the count in the pool's code `nat` (cpu_pool.native(), whose loading
    installs the handler that counts); the count as a ctypes view."""
    ctypes.c_void_p.from_address(pointer_address).value = nat.sigint_count
    return ctypes.c_int64.from_address(nat.sigint_count)


_check_signals = ctypes.pythonapi.PyErr_CheckSignals  # a PyDLL function: raises what it sets
_check_signals.restype, _check_signals.argtypes = ctypes.c_int, []


def baseline(count: ctypes.c_int64) -> int:
    """The SIGINT count a launch starts from (its entries' `sig0`), read before anything of the
    launch runs and then checked against Python's pending signals: the handler that counts calls
    Python's first (pool_ir.py), so a SIGINT that came before this read raises its
    KeyboardInterrupt here (on the main thread, where Python handles signals), and one that comes
    after it moves the count past the baseline, which stops the launch."""
    s0 = count.value
    _check_signals()
    return s0
