"""The CUDA engine's use of the disk cache (`tack.cache`, kind "cuda"): PTX per specialization.
Kept apart from runtime/cuda/engine.py so it imports without the CUDA driver bindings."""
from __future__ import annotations

import threading

import llvmlite

from ... import cache
from ...ir.nodes import KernelIR
from ...toolchain.nvptx import PTXModule, compile_ptx

# PTX built or loaded in this process, by key: several devices of one architecture (cuda:0 and
# cuda:1 of an H200 pair) compile a specialization once and load the same PTX. TACK_CACHE=off
# compiles every time, as asked.
_MEMO: dict = {}
_MEMO_LOCK = threading.Lock()


def cached_ptx(kir: KernelIR, arch: str):
    """The kernel's PTX from this process's memo, the disk cache (tack.cache, kind "cuda"), or
    compiled and stored. Keyed like the CPU engine's entries: the KernelIR by value, Tack's
    modules, the target."""
    if not cache.enabled():
        return compile_ptx(kir, arch)
    try:
        key = cache.make_key("cuda", cache.package_fingerprint(), arch, llvmlite.__version__,
                             cache.digest_object(kir))
    except (TypeError, RecursionError):  # something the key cannot digest: no caching
        return compile_ptx(kir, arch)
    built = _MEMO.get(key)
    if built is None:
        built = _from_disk(kir, arch, key)
        with _MEMO_LOCK:
            built = _MEMO.setdefault(key, built)
    return built


def _from_disk(kir: KernelIR, arch: str, key):
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
