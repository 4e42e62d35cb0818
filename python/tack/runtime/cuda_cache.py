"""The CUDA engine's use of the disk cache (`tack.cache`, kind "cuda"): PTX per specialization.
Kept apart from runtime/cuda.py so it imports without the CUDA driver bindings."""
from __future__ import annotations

import llvmlite

from .. import cache
from ..ir.nodes import KernelIR
from ..toolchain.nvptx import PTXModule, compile_ptx


def cached_ptx(kir: KernelIR, arch: str):
    """The kernel's PTX from the disk cache (tack.cache, kind "cuda"), or compiled and stored.
    Keyed like the CPU engine's entries: the KernelIR by value, Tack's modules, the target."""
    if not cache.enabled():
        return compile_ptx(kir, arch)
    try:
        key = cache.make_key("cuda", cache.package_fingerprint(), arch, llvmlite.__version__,
                             cache.digest_object(kir))
    except (TypeError, RecursionError):  # something the key cannot digest: no caching
        return compile_ptx(kir, arch)
    hit = cache.load("cuda", key)
    if hit is not None:
        m = hit.meta
        if {"name", "per_thread", "libdevice"} <= set(m):
            note = "; loaded from the disk cache (compile with TACK_CACHE=off to see it)"
            return PTXModule(m["name"], note, note, hit.data.decode(), arch, m["libdevice"],
                             m["per_thread"])
    built = compile_ptx(kir, arch)
    cache.store("cuda", key, built.ptx.encode(), {"name": built.name, "libdevice": built.libdevice,
                                                 "per_thread": built.per_thread})
    return built
