"""Engines that run rendered kernels, one package each: `cpu` (native, LLVM MCJIT + a pthread
pool), `cuda`, `julia`, `sim`; `registry` says which exists and where its class lives."""
