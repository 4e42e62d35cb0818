"""The LLVM renderers: LLVM IR for the CPU engine (printer, entry, polls, half, support, bits) and
PTX through LLVM's NVPTX backend (ptx, with its warp, MMA and async-copy asm in ptx_warps and
ptx_async), with the print format they share."""
