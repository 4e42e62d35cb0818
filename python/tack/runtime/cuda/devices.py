"""Several CUDA devices in one process: how many there are, peer access and copies between them.
Kept apart from runtime/cuda/engine.py (the engine of one device)."""
from __future__ import annotations

import threading

from .driver import SUCCESS as _SUCCESS
from .driver import code_of as _code
from .driver import drv

_PEER_ENABLED = 704  # CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED (another library enabled it)


_PEERS: dict = {}  # (destination, source) device ordinals -> whether peer access is on
_PEER_LOCK = threading.Lock()


def enable_peer(dst, src) -> bool:
    """Let `dst`'s context (a CUDAEngine) read `src`'s memory directly when the hardware
    allows, once per pair; whether it can (False: copies are staged through the host)."""
    pair = (dst.index, src.index)
    with _PEER_LOCK:
        if dst.index == src.index:
            return True
        if pair not in _PEERS:
            _PEERS[pair] = on = dst.can_access_peer(src)
            if on:
                dst.make_current()
                code = _code(drv.cuCtxEnablePeerAccess(src.ctx, 0))
                if code not in (_SUCCESS, _PEER_ENABLED):
                    dst.fail(code, "cuCtxEnablePeerAccess")
        return _PEERS[pair]


def copy_peer(engine, dst, src_engine, src, nbytes: int) -> None:
    """Copy `nbytes` of `src` (a buffer of `src_engine`) into `dst` (of `engine`), queued on
    `engine`'s stream once the source's queue is done: peer-to-peer when the two devices can
    access each other (enabled on first use), else staged through the host by the driver
    (cuMemcpyPeerAsync does either). The source's stream then waits for the copy, so `src`
    may go at once: its block's next user there is ordered after the read."""
    src_engine.sync()
    enable_peer(engine, src_engine)
    engine.call(drv.cuMemcpyPeerAsync, dst.ptr, engine.ctx, src.ptr, src_engine.ctx, nbytes,
                engine.stream, what="cuMemcpyPeerAsync")
    wait_for(src_engine, engine)


def wait_for(engine, other) -> None:
    """Order `engine`'s later work after everything queued on `other`'s stream (an event)."""
    event = other.call(drv.cuEventCreate, 2, what="cuEventCreate")  # DISABLE_TIMING
    try:
        other.call(drv.cuEventRecord, event, other.stream, what="cuEventRecord")
        engine.call(drv.cuStreamWaitEvent, engine.stream, event, 0, what="cuStreamWaitEvent")
    finally:
        drv.cuEventDestroy(event)


def device_count() -> int:
    """How many CUDA devices the driver lists (0 when it cannot start)."""
    if _code(drv.cuInit(0)) != _SUCCESS:
        return 0
    err, count = drv.cuDeviceGetCount()
    return int(count) if _code(err) == _SUCCESS else 0
