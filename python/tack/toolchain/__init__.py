"""Turning rendered LLVM IR into code that runs: llvmlite host setup and the O3 pipeline
(`llvm_host`), NVPTX and libdevice (`nvptx`), ELF objects parsed (`elf`) and mapped into this
process (`objload`). Layer 4: above the printers and the disk cache, below the engines."""
