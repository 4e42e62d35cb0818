"""The native CUDA engine: KernelIR → PTX (render/llvm/ptx.py) → the CUDA driver, through cuda-bindings.

    engine = CUDAEngine(index=0)          # adopts a current context on that device, else retains
                                          # the device's primary context (shared with CuPy/PyTorch)
    kernel = engine.compile(kir)          # CUDAKernel; .ptx, .llvm_ir, .optimized_ir
    kernel.launch(args, n)                # args in kir.params order: array → device address,
                                          # scalar → Python/NumPy number; queued, returns at once
    engine.sync()                         # waits; errors of queued launches surface here

Storage (the engine contract, runtime/base.py): `alloc(nbytes)` → `CUDABuffer` (`.ptr`; its
block goes back to the caching allocator, runtime.cuda.alloc, when it goes; zero bytes → ptr 0,
nothing allocated; out of memory even after emptying the cache → `MemoryError`, earlier buffers
intact), `upload`, `download` (waits first, so errors of queued kernels name them), `memset0`,
`copy`, `adopt` (DLPack import). All work goes to one stream per engine, created
blocking (it orders against the legacy default stream that CuPy and PyTorch use by default).

The launch path (docs/design/004-cuda-engine.md): each kernel prebuilds its parameter block (one
8-byte slot per parameter plus `n`, and the `void*[]` of slot addresses `cuLaunchKernel` wants)
and a launch record for the native trampoline of `runtime.cuda.launch`; a launch is one
`struct.pack_into` and one ctypes call with one pointer argument, the trampoline calling
`cuLaunchKernel`. The engine's `launch_via` setting picks the path, from `TACK_CUDA_LAUNCH` when
the engine starts: `bindings` (cuda-bindings' `cuLaunchKernel` with the prebuilt `void**` as an
address) and `ctypes` (libcuda's `cuLaunchKernel` through ctypes argtypes) select the other two
(one launch body, `CUDAKernel.launch(args, n, via)`; `via` None: the engine's); bench/gpu.py
measures all three. Launches of one kernel from several threads serialize on a per-kernel lock
(docs/language.md, "Known corner cases").
Blocks are 256 threads; each thread runs `per_thread` consecutive launch indices (1, or 2-8 for
cheap elementwise kernels: render/llvm/ptx.py, `coarsening`), so the grid is ceil(n / (256 * per_thread))
blocks and one launch indexes up to (2^31 - 1) * 256 * per_thread iterations with 64-bit
indices; more raises `ValueError` before anything runs.
"""
from __future__ import annotations

import atexit
import ctypes
import os
import sys
import weakref

from ...capabilities import check_mma_arch
from ...errors import TackError, TackRuntimeError, TackValueError
from ...ir.nodes import KernelIR
from ...ir.ops import WORKGROUP as BLOCK
from ...ir.printer import kernel_str
from ...toolchain.nvptx import compile_ptx
from ...toolchain.sass import disassemble, disassembler
from ..base import Engine
from ..registry import NATIVE_CUDA
from . import inspect as cuda_inspect
from .alloc import BlockCache, CUDABuffer, enabled_from_env, limit_from_env
from .devices import copy_peer
from .driver import INVALID_CONTEXT as _INVALID_CONTEXT
from .driver import SUCCESS as _SUCCESS
from .driver import code_of as _code
from .driver import drv, error_name
from .kernel import PATHS, CUDAKernel
from .launch import Native
from .readback import MappedHost

LABEL = "CUDABackend"
_OOM = 2


# Errors after which the context is unusable (the driver says so); the process must restart.
_STICKY = {700, 701, 702, 703, 704, 708, 709, 710, 711, 712, 713, 714, 715, 716, 717, 718, 719, 720}


def launch_path_from_env(environ=os.environ) -> str:
    """`TACK_CUDA_LAUNCH`: "bindings" or "ctypes"; unset or another value: "native"."""
    via = environ.get("TACK_CUDA_LAUNCH", "native")
    return via if via in PATHS else "native"


class CUDAOutOfMemoryError(TackError, MemoryError):
    """Device memory is exhausted; arrays allocated before are intact."""


def _platform() -> str:
    return {"linux": "Linux", "win32": "Windows", "darwin": "macOS"}.get(sys.platform, sys.platform)


def _free(ptr: int) -> None:
    """cuMemFree of a block of the context current in this thread (the engine's `_driver_free`
    makes its own current first)."""
    try:
        drv.cuMemFree(ptr)
    except Exception:  # noqa: BLE001, S110 - a finalizer at interpreter shutdown: drv may be gone
        pass


_ENGINES: weakref.WeakSet = weakref.WeakSet()  # live engines: their caches go at exit


@atexit.register
def _close_all() -> None:
    """The contexts' teardown: every engine's cached blocks back to the driver."""
    for engine in list(_ENGINES):
        engine.pool.close()


class CUDAEngine(MappedHost, Engine):
    """One CUDA device: a context, a stream, allocation, compilation and launches."""

    label = LABEL
    block = BLOCK
    capabilities = NATIVE_CUDA.capabilities["cuda"]
    stages = NATIVE_CUDA.stages

    def __init__(self, index: int = 0, launch_via: str | None = None):
        self.index = int(index)
        # How its kernels call cuLaunchKernel (runtime/cuda/kernel.py, PATHS): set when the
        # engine starts, so a kernel's launch and its prebuilt call path agree
        self.launch_via = launch_path_from_env() if launch_via is None else launch_via
        if self.launch_via not in PATHS:
            raise TackValueError(f"CUDA launch path {self.launch_via!r}: one of {PATHS}")
        try:
            self._init()
        except Exception as exc:  # no driver library, no device, a driver error: wrapped, once
            if str(exc).startswith("Cannot initialize"):
                raise
            raise TackRuntimeError(f"Cannot initialize 'cuda' backend on {_platform()}: "
                                   f"{type(exc).__name__}: {exc}") from exc

    def _init(self) -> None:
        self._check(drv.cuInit(0), "cuInit")
        err, count = drv.cuDeviceGetCount()
        self._check(err, "cuDeviceGetCount")
        if not 0 <= self.index < count:
            raise TackRuntimeError(f"Cannot initialize 'cuda' backend on {_platform()}: device "
                                   f"index {self.index} does not exist ({count} CUDA device(s))")
        err, self.device = drv.cuDeviceGet(self.index)
        self._check(err, "cuDeviceGet")
        self.ctx, self.adopted = self._context()
        self.native = Native()
        self.ctx_ptr = int(self.ctx)
        err, self.stream = drv.cuStreamCreate(0)  # CU_STREAM_DEFAULT: blocking
        self._check(err, "cuStreamCreate")
        self.stream_ptr = int(self.stream)
        attr = drv.CUdevice_attribute
        self.cc = (self._attr(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                   self._attr(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))
        self.arch = f"sm_{self.cc[0]}{self.cc[1]}"
        self.max_grid_x = self._attr(attr.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)
        self.max_iterations = self.max_grid_x * BLOCK
        self.sm_count = self._attr(attr.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        self.regs_per_sm = self._attr(attr.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)
        self.threads_per_sm = self._attr(
            attr.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)
        err, name = drv.cuDeviceGetName(256, self.device)
        self.name = name.split(b"\0")[0].decode() if isinstance(name, bytes) else str(name)
        self._pending: set[str] = set()  # kernels launched since the last successful wait
        self.broken: str | None = None  # set after a sticky error
        self.pool = BlockCache(self._malloc, self._driver_free, limit_from_env(self._memory()),
                               enabled_from_env(), wait=self._quiet_sync)
        _ENGINES.add(self)

    @classmethod
    def create(cls, arch: str, options: dict) -> CUDAEngine:
        return cls(options.get("index", 0))

    def __repr__(self) -> str:
        return f"CUDAEngine({self.index}: {self.name}, {self.arch})"

    # ---- setup -------------------------------------------------------------------------------
    def _context(self):
        """Adopt the calling thread's current context if it is on our device, else retain the
        device's primary context and make it current (never destroyed by Tack)."""
        err, ctx = drv.cuCtxGetCurrent()
        if err == drv.CUresult.CUDA_SUCCESS and int(ctx):
            err, dev = drv.cuCtxGetDevice()
            if err == drv.CUresult.CUDA_SUCCESS and int(dev) == int(self.device):
                return ctx, True
        err, ctx = drv.cuDevicePrimaryCtxRetain(self.device)
        self._check(err, "cuDevicePrimaryCtxRetain")
        self._check(drv.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        return ctx, False

    def _memory(self) -> int:
        """The device's memory in bytes (cuDeviceTotalMem; cuMemGetInfo's total where a
        cuda-bindings release spells the first differently)."""
        try:
            return int(self.call(drv.cuDeviceTotalMem, self.device, what="cuDeviceTotalMem"))
        except (TypeError, AttributeError):
            return int(self.call(drv.cuMemGetInfo, what="cuMemGetInfo")[2])

    def _attr(self, a) -> int:
        err, v = drv.cuDeviceGetAttribute(a, self.device)
        self._check(err, "cuDeviceGetAttribute")
        return int(v)

    def _check(self, err, what: str, kernels=None) -> None:
        code = _code(err)
        if code == _SUCCESS:
            return
        self.fail(code, what, kernels)

    def fail(self, code: int, what: str, kernels=None):
        """Raise the Python exception for a driver error (`kernels`: names to blame)."""
        msg = f"{what}: {error_name(code)}"
        if code in _STICKY:
            self.broken = msg
            msg += "; the CUDA context is now unusable: restart the process"
        if code == _OOM:
            raise CUDAOutOfMemoryError(f"CUDA out of memory on device {self.index}: {msg}")
        if kernels:
            names = " or ".join(f"'{k}'" for k in sorted(kernels))
            raise TackRuntimeError(f"Kernel {names} failed on {LABEL}: {msg}")
        raise TackRuntimeError(f"{LABEL}: {msg}")

    def call(self, fn, *args, what: str | None = None):
        """A cuda-bindings call with its error checked, in our context: made current first when
        the thread's is another device's (several engines in one process), and again after
        CUDA_ERROR_INVALID_CONTEXT (a thread that has none), retrying once."""
        if not self.is_current():
            self.make_current()
        res = fn(*args)
        if _code(res) == _INVALID_CONTEXT:
            self.make_current()
            res = fn(*args)
        self._check(res, what or fn.__name__)
        return res[1] if isinstance(res, tuple) and len(res) == 2 else res

    def make_current(self) -> None:
        self.native.set_current(self.ctx_ptr)

    def is_current(self) -> bool:
        """Whether the calling thread's current context is this engine's."""
        ctx = ctypes.c_void_p()
        return self.native.get_current(ctypes.byref(ctx)) == _SUCCESS and ctx.value == self.ctx_ptr

    def copy_peer(self, dst: CUDABuffer, src_engine: CUDAEngine, src: CUDABuffer,
                  nbytes: int) -> None:
        """Copy from another device's buffer, queued on our stream (runtime.cuda.devices)."""
        copy_peer(self, dst, src_engine, src, nbytes)

    def can_access_peer(self, other: CUDAEngine) -> bool:
        """Whether this device can read `other`'s memory directly (NVLink or PCIe P2P)."""
        return bool(self.call(drv.cuDeviceCanAccessPeer, self.device, other.device,
                              what="cuDeviceCanAccessPeer"))

    # ---- storage (the engine contract, runtime/base.py) ----------------------------------------
    def alloc(self, nbytes: int) -> CUDABuffer:
        """A block of the caching allocator (runtime.cuda.alloc); back to it when the buffer
        goes. Out of memory even after emptying the cache: CUDAOutOfMemoryError."""
        nbytes = int(nbytes)
        if nbytes <= 0:
            return CUDABuffer(0, 0)
        return CUDABuffer(self.pool.alloc(nbytes), nbytes, self.pool.release)

    def _malloc(self, nbytes: int) -> int:
        return int(self.call(drv.cuMemAlloc, nbytes, what=f"cuMemAlloc({nbytes} bytes)"))

    def _driver_free(self, ptr: int) -> None:
        """cuMemFree in our context; a finalizer's thread gets its own current context back."""
        if self.is_current():
            return _free(ptr)
        pushed = _code(drv.cuCtxPushCurrent(self.ctx)) == _SUCCESS
        try:
            _free(ptr)
        finally:
            if pushed:
                drv.cuCtxPopCurrent()

    def _quiet_sync(self) -> None:
        """Wait for the stream before cached blocks go to the driver; an error of queued work
        is left for the next `sync`, which names its kernels."""
        if not self.is_current():
            self.make_current()
        self.native.stream_sync(self.stream_ptr)

    def share(self, ptr: int) -> None:
        """The buffer at `ptr` is exported (DLPack, `__cuda_array_interface__`): its block is
        not reused when it goes, since the consumer's stream may still read it."""
        self.pool.share(ptr)

    def empty_cache(self) -> int:
        """Wait for queued work, then return every idle cached block to the driver; the bytes
        freed (`tack.cuda.empty_cache`)."""
        self.sync()
        return self.pool.empty()

    def memory_stats(self) -> dict:
        """The caching allocator's counters (`tack.cuda.memory_stats`)."""
        return self.pool.stats()

    def upload(self, buf: CUDABuffer, host) -> None:
        if host.nbytes:
            self.call(drv.cuMemcpyHtoDAsync, buf.ptr, host.ctypes.data, host.nbytes, self.stream,
                      what="upload (cuMemcpyHtoDAsync)")

    def download(self, buf: CUDABuffer, out) -> None:
        """Wait for queued work (naming a failed kernel), then copy into `out`."""
        self.sync()
        if out.nbytes:
            self.call(drv.cuMemcpyDtoHAsync, out.ctypes.data, buf.ptr, out.nbytes, self.stream,
                      what="download (cuMemcpyDtoHAsync)")
            self.sync()

    def memset0(self, buf: CUDABuffer) -> None:
        if buf.nbytes:
            self.call(drv.cuMemsetD8Async, buf.ptr, 0, buf.nbytes, self.stream,
                      what="cuMemsetD8Async")

    def copy(self, dst: CUDABuffer, src: CUDABuffer, nbytes: int) -> None:
        """Device-to-device copy, queued on the stream."""
        if nbytes:
            self.call(drv.cuMemcpyDtoDAsync, dst.ptr, src.ptr, nbytes, self.stream,
                      what="cuMemcpyDtoDAsync")

    def adopt(self, ptr: int, nbytes: int, owner) -> CUDABuffer:
        """Foreign device memory (DLPack import): `owner` frees it when the buffer goes."""
        return CUDABuffer(ptr, nbytes, owner=owner)

    # ---- waits ---------------------------------------------------------------------------------
    def sync(self) -> None:
        """Wait for everything queued; a failure names the kernels launched since the last wait."""
        code = self.native.stream_sync(self.stream_ptr)
        if code == _INVALID_CONTEXT or code and not self.is_current():
            self.make_current()
            code = self.native.stream_sync(self.stream_ptr)
        pending, self._pending = self._pending, set()
        if code:
            self.fail(code, "at the next wait (cuStreamSynchronize)", pending or None)

    # ---- kernels -------------------------------------------------------------------------------
    def runs_mma(self) -> bool:
        """mma.sync's m16n8k16 and m16n8k8 shapes need sm_80 (capabilities.check_mma_arch)."""
        return tuple(self.cc) >= (8, 0)

    def runs_wgmma(self) -> bool:
        """wgmma exists on sm_90a alone (capabilities.WGMMA_ARCHS): H100 and H200."""
        return tuple(self.cc) == (9, 0)

    def compile(self, kir: KernelIR) -> CUDAKernel:
        check_mma_arch(kir, self.cc, "this GPU")
        return CUDAKernel(self, kir)

    def stage(self, kir: KernelIR, name: str) -> str:
        """"ir"; "source": the PTX this engine loads for `kir`; "resources" (JSON) and "sass":
        of the kernel loaded as a launch loads it (runtime.cuda.inspect), then unloaded."""
        if name == "ir":
            return kernel_str(kir)
        if name == "source":
            return compile_ptx(kir, self.arch).ptx
        if name not in self.stages:
            raise TackValueError(f"the CUDA engine has no stage {name!r}: {self.stages}")
        if name == "sass":
            disassembler()  # no disassembler: say so before anything is loaded
        kernel = self.compile(kir)
        try:
            if name == "resources":
                return cuda_inspect.resources_text(kernel, drv)
            return disassemble(cuda_inspect.cubin(kernel, drv), kernel.entry)
        finally:
            drv.cuModuleUnload(kernel.module)
