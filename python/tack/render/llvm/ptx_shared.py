"""Where a CUDA kernel's `tack.shared` arrays live: module globals (static shared memory) while
they fit 48 KiB together, else offsets into the block's dynamic shared memory.

A CUDA kernel may declare at most 48 KiB of shared memory statically; a block gets more (up to
227 KiB on sm_90, 163 KiB on sm_80) only as dynamic shared memory, which the kernel opts into
(`cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)`) and each launch
requests (`cuLaunchKernel`'s `sharedMemBytes`): CUDA C++ Programming Guide, "Shared Memory"
(https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#shared-memory-8-x). So a
kernel whose arrays take more is rendered with one `.extern .shared .align 1024 .b8` array, each
of its arrays at a 1024-byte aligned offset (the wgmma swizzle's atom; every other use needs
less), and runtime/cuda/kernel.py sets the attribute and launches with `dynamic_bytes(kir)`.
Kernels within 48 KiB keep their static arrays, as before."""
from __future__ import annotations

from ...ir.nodes import KernelIR

STATIC_LIMIT = 48 * 1024  # bytes of static shared memory a CUDA kernel may declare
ALIGN = 1024  # each array's offset in dynamic shared memory
NAME = "tack_dynamic_shared"  # the extern array


def _shared(kir: KernelIR) -> list:
    return [sc for sc in kir.scratch.values() if sc.space == "shared"]


def static_bytes(kir: KernelIR) -> int:
    """The shared arrays' bytes as static arrays (without alignment padding)."""
    return sum(max(1, sc.size) * sc.dtype.itemsize for sc in _shared(kir))


def layout(kir: KernelIR) -> tuple[dict[str, int], int] | None:
    """None where the arrays fit static shared memory; else (byte offset of each shared
    array, the bytes of dynamic shared memory a launch requests)."""
    if static_bytes(kir) <= STATIC_LIMIT:
        return None
    offsets, at = {}, 0
    for sc in _shared(kir):
        offsets[sc.name] = at
        at += -(-max(1, sc.size) * sc.dtype.itemsize // ALIGN) * ALIGN
    return offsets, at


def dynamic_bytes(kir: KernelIR) -> int:
    """The dynamic shared memory a launch of `kir` requests: 0 where its arrays are static."""
    found = layout(kir)
    return 0 if found is None else found[1]
