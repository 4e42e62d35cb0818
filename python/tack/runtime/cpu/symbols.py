"""The symbols a CPU kernel's object code exports, by name: its entry, its native caller
(call.py), the pointer its Ctrl-C polls read (passes/polls.py), its heap frame's failure
count (passes/frames.py). Known without the renderer: a kernel from the disk cache checks its
record's symbols against these.
"""
from __future__ import annotations

from ...ir.nodes import KernelIR
from . import call as cpu_call


def entry_symbol(kir: KernelIR) -> str:
    """render.llvm.entry_name, without importing the renderer (a cache hit never renders)."""
    return f"tack_{kir.name}"


def symbols_of(entry: str, with_caller: bool, polled: bool, heap: bool) -> list[str]:
    """The symbols a kernel's object code exports: its entry, its native caller (call.py),
    the pointer its Ctrl-C polls read (passes/polls.py), its heap frame's failure count
    (passes/frames.py)."""
    out = [entry] + [cpu_call.caller_symbol(entry)] * with_caller
    if polled:
        out.append(SIGINTS.format(entry))
    if heap:
        out.append(NOMEM.format(entry))
    return out


# passes/polls.sigints_symbol and passes/frames.nomem_symbol, without importing them (a kernel
# from the disk cache needs neither module); tests/runtime checks they agree.
SIGINTS, NOMEM = "tack_sigints_{}", "tack_nomem_{}"


def sigints_of(entry: str, symbols) -> str | None:
    """The polls' pointer among `symbols`, if the kernel has polls."""
    name = SIGINTS.format(entry)
    return name if name in symbols else None


def nomem_of(entry: str, symbols) -> str | None:
    """The heap frame's failure count among `symbols`, if the kernel has a heap frame."""
    name = NOMEM.format(entry)
    return name if name in symbols else None


def words_of(entry: str, symbols) -> list[str]:
    """Those of `symbols` that are 8-byte data words the engine reads or writes, not functions
    (objload checks each is what the engine takes it for)."""
    return [n for n in (sigints_of(entry, symbols), nomem_of(entry, symbols)) if n]
