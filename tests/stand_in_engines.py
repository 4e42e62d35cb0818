"""Engines that stand in for a real one during a test, registered through the engine registry
(tack.runtime.registry) for that test only: a test of `tack.inspect` on a CUDA device without a
GPU, or of `tack.sync` counting what it asks of an engine, makes its own `tack.Device` of the
stand-in and selects it with `with device:` — no device's engine set by hand, no module
function patched, nothing left in the registry or among the shared devices afterwards."""
from __future__ import annotations

import contextlib

import tack
from tack.runtime import registry


@contextlib.contextmanager
def stand_in(engine_cls: type, arch: str, like: registry.EngineKind | None = None,
             name: str = "stand-in"):
    """A fresh `tack.Device(arch, engine=name)` whose engine is `engine_cls.create(arch,
    options)` (started when first asked for), the current device inside the block. Its kind
    copies the capabilities, stages, refusal and file names of kind `like` (a real engine's: what
    `tack.inspect` shows and writes) or, without one, those of the native CPU engine."""
    like = like or registry.NATIVE_CPU
    caps = like.capabilities.get(arch) or next(iter(like.capabilities.values()))
    kind = registry.register(registry.EngineKind(
        name, engine_cls.__module__, engine_cls.__qualname__, {arch: caps}, like.stages,
        refusal=like.refusal, files=dict(like.files)))
    try:
        with tack.Device(arch, engine=name) as dev:
            yield dev
    finally:
        registry.unregister(kind)
