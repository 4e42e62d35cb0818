"""Registers that cost no occupancy: a second JIT with a register budget, for kernels whose
occupancy registers (or shared memory) limit.

ptxas gives a kernel as few registers as it can schedule in; the GPU allocates them per warp in
units of 8 per thread, and a multiprocessor runs as many 256-thread blocks as its register file
(65,536 on sm_70-sm_90) and shared memory hold, up to its thread limit (2,048: 8 blocks). A kernel
that ptxas gave 33 registers therefore runs 6 blocks per SM, the same as with 40: the 7 registers
in between are already paid for. The tiled n-body (bench/gpu.py) is such a kernel: at 33
registers 28.8 TFLOP/s on the H200, recompiled with `.maxnreg 40` 31.9 (CUDA C: 32.8), the
extra registers letting ptxas keep more shared-memory loads in flight.

So after loading a module, the engine asks the driver how many blocks fit per SM; when that is
below the thread limit, it computes the largest register count that keeps the same number of
blocks and, if that is above what ptxas used, loads the PTX again with `.maxnreg` set to it,
keeping the new module only if the driver reports at least the same blocks per SM. Kernels that
already reach the thread limit (every light elementwise kernel) are loaded once.

One block per SM is the exception: while its lanes wait at a barrier the SM has nothing else to
run. A kernel that ptxas gave more registers than two blocks leave (more than 128 on sm_70-sm_90)
is first loaded again at that cap, and the new module is kept if the driver then fits two or more
blocks and reports no more local memory per thread (no spills). The 128 x 128 matmul tile is such
a kernel: ptxas gives it ~150 registers; at `.maxnreg 128` it ran 41.7 TFLOP/s on the H200,
against 33.3 at one block per SM.
"""
from __future__ import annotations

import re

GRANULE = 8  # registers are allocated per thread in multiples of 8 (per warp: 256)
MAX_PER_THREAD = 255


def register_budget(regs: int, blocks: int, block: int, regs_per_sm: int,
                    threads_per_sm: int) -> int | None:
    """The most registers per thread that keep `blocks` blocks of `block` threads per SM, when
    that is more than `regs` and `blocks` is below the thread limit; else None."""
    if blocks <= 0 or blocks * block >= threads_per_sm:
        return None
    budget = min(MAX_PER_THREAD, regs_per_sm // (blocks * block) // GRANULE * GRANULE)
    return budget if budget > regs else None


def budgets(regs: int, blocks: int, block: int, regs_per_sm: int, threads_per_sm: int):
    """The `.maxnreg` budgets to try, in order, each with whether it must add blocks without
    spilling (the two-block cap) or only keep the blocks (the free registers)."""
    two = regs_per_sm // (2 * block) // GRANULE * GRANULE
    if blocks == 1 and two < regs:
        yield two, True
    free = register_budget(regs, blocks, block, regs_per_sm, threads_per_sm)
    if free is not None:
        yield free, False


_ENTRY_BODY = re.compile(r"(\.entry\s+(\S+)\s*\([^)]*\))\s*\{")


def limit_registers(ptx: str, entry: str, n: int) -> str:
    """`ptx` with the performance directive `.maxnreg n` on the kernel `entry` (PTX ISA:
    between an entry's parameter list and its body)."""
    for m in _ENTRY_BODY.finditer(ptx):
        if m.group(2) == entry:
            return ptx[:m.end(1)] + f"\n.maxnreg {n}\n{{" + ptx[m.end():]
    raise ValueError(f"no .entry {entry} in the PTX")
