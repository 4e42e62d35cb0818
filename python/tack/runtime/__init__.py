"""Engines that run rendered kernels: `cpu` (native, LLVM MCJIT + a pthread pool)."""
