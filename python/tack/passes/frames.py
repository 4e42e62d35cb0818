"""Which local arrays of a CPU kernel live in a heap frame rather than on the stack of the thread
that runs the iteration (render/llvm/entry.py emits the frame; docs/language.md, "Scratch
storage").

A thread's stack is small and its size is not Tack's to choose: the calling Python thread has
what `ulimit -s` or `threading.stack_size` gave it, the pool's workers what pthreads gives by
default, and a stack array larger than what is left runs off its end (SIGSEGV). So local arrays
are laid out smallest first on the stack while they fit STACK_BYTES together (they stay
candidates for registers), and the rest share one heap frame. Known without LLVM, so that the
engine knows a kernel from the disk cache has a frame.
"""
from __future__ import annotations

from ..ir.nodes import KernelIR

STACK_BYTES = 16 << 10  # local arrays beyond this, together, go to the heap frame
ALIGN = 64  # each heap array starts on its own cache line


def nomem_symbol(entry: str) -> str:
    """The count of failed frame allocations that the object code of a kernel with a heap frame
    exports (under its entry's name)."""
    return f"tack_nomem_{entry}"


def heap_layout(kir: KernelIR) -> tuple[dict[str, int], int]:
    """(local array name -> byte offset in the heap frame, frame size): empty, 0 when every
    local array fits on the stack."""
    local = sorted((sc for sc in kir.scratch.values() if sc.space == "local"),
                   key=lambda sc: (sc.size * sc.dtype.itemsize, sc.name))
    offsets, stack, size = {}, 0, 0
    for sc in local:
        nbytes = sc.size * sc.dtype.itemsize
        if not offsets and stack + nbytes <= STACK_BYTES:
            stack += nbytes
            continue
        offsets[sc.name] = size
        size += (nbytes + ALIGN - 1) // ALIGN * ALIGN
    return offsets, size
