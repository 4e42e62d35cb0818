"""The engine contract: what every engine (CPU, CUDA, Julia, and any added later) provides.

In the spirit of KernelAbstractions.jl's "must implement" functions
(https://github.com/JuliaGPU/KernelAbstractions.jl/blob/main/src/KernelAbstractions.jl): each
method below is documented here once, and a subclass that leaves one out fails loudly, naming
itself and the method, at the first call (tests/runtime/test_engine_contract.py checks every
engine). Engines see typed IR, addresses, buffers and NumPy arrays, never an API object: `arrays`
wraps what `alloc` and `adopt` return into a `tack.Array`, and `signature` turns arrays into
launch values (addresses when `capabilities.takes_pointers`, else the arrays' buffers).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.nodes import KernelIR


@dataclass(frozen=True)
class Capabilities:
    """What an engine can run and how it takes arguments: known before the engine starts
    (runtime.registry), so a kernel is checked against a GPU device on a machine without one."""

    workgroups: bool  # barriers, shared memory, thread_id (docs/language.md "Workgroup contract")
    takes_pointers: bool  # launch values of arrays are addresses (else: the arrays' buffers)
    host_memory: bool  # arrays are NumPy arrays in host memory, used in place
    f64: bool = True  # False: f64 kernels may be refused; the engine asks its device at compile
    atomic_bits: int = 64  # the widest integer/float an atomic operation may update
    atomic_min_bits: int = 8  # the narrowest (CUDA.jl and Metal.jl have no 8/16-bit atomics)
    # The most bytes of `tack.local_array` storage one iteration may hold (all its local arrays
    # together): a larger kernel is refused before it compiles (capabilities.check_local_bytes).
    # The default is CUDA's limit on local memory per thread, "512 KB" on every compute
    # capability (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html
    # #features-and-technical-specifications-technical-specifications-per-compute-capability).
    local_bytes: int = 512 << 10
    # The float32 math builtins the library writes in Tack (exp, log, sin, cos, tanh:
    # passes/libmath.py) are its functions, so the engine gives their bits, the same as every
    # other engine that takes them (docs/numerics.md); False keeps the target's own (CUDA's
    # libdevice, the GPU packages' under Julia), faster there and within their stated bounds.
    library_math: bool = True
    # Warp operations (`tack.shfl`, `tack.warp_sum`, ...: docs/language.md "Warps"), on an engine
    # with workgroups; False: a kernel using them is refused before it compiles.
    warps: bool = True
    # `tack.mma` runs on tensor cores (or, on the simulator, as their exact model), so library
    # ops take their MMA kernels here (capabilities.runs_mma also asks a CUDA device for sm_80);
    # False: MMA kernels may still run (the Julia engine writes them as loops), but slowly.
    tensor_cores: bool = False
    # The warpgroup MMA (`tack.wgmma`: docs/language.md "Warpgroup MMA"); False: refused before
    # compiling. CUDA says True and refuses it at compile on a GPU that is not sm_90
    # (capabilities.check_arch): only the device knows its architecture.
    wgmma: bool = True
    # Transaction barriers and bulk copies (`tack.mbarriers`, `tack.async_bulk_copy`: docs/language.md
    # "Transaction barriers"); False: a kernel using them is refused before it compiles.
    mbarriers: bool = True
    # Whether a warp operation is an exchange between the lanes' registers (CUDA's `shfl.sync`
    # and `vote.sync`, and the simulator, which models them): then a warp reduction or scan
    # costs less than the same step through shared memory and barriers, and tack.algorithms
    # takes its warp paths (docs/algorithms.md, "Paths per engine"). False where warps are
    # emulated with shared memory and barriers (the Julia engine: passes/warps_shared.py),
    # or absent.
    register_warps: bool = False


class Launchable:
    """One compiled specialization: what `Engine.compile` returns."""

    def launch(self, values: list, n: int) -> None:
        """Run the kernel for launch indices [0, n). `values` are in `kir.params` order: an
        array is an address (int) or, for an engine that does not take pointers, its buffer;
        a scalar is a Python or NumPy number. May return before the work is done (`sync`)."""
        _missing(self, "launch")

    def inline_launch(self, values: list[str], env: dict) -> list[str] | None:
        """`launch` spelled as Python source lines for call/fast.py's generated call path
        (`values`: the launch values' expressions, already checked; `n` is bound; lines may
        `return MISS` to take the general path). None (the default): call `launch`."""
        return None

    def record(self) -> bytes | None:
        """Optional: a launch record (plain data) from which `Engine.from_record` makes this
        launchable again in another process, its code from the disk cache. None (the default):
        the engine keeps none (docs/design/005-disk-cache.md, "Keyed before the type checker")."""
        return None


class Engine:
    """One device's engine. Un-overridden, every method raises NotImplementedError."""

    # Every name a complete engine defines (the contract test checks each).
    CONTRACT = ("create", "capabilities", "stages", "alloc", "upload", "download", "memset0",
                "copy", "adopt", "compile", "sync", "stage")

    @classmethod
    def create(cls, arch: str, options: dict) -> Engine:
        """The engine for a `tack.Device(arch, **options)` (the options its device accepts)."""
        _missing(cls, "create")

    @property
    def capabilities(self) -> Capabilities:
        """What this engine can run (the same value runtime.registry gives its device)."""
        _missing(self, "capabilities")

    @property
    def stages(self) -> tuple[str, ...]:
        """The artifacts `tack.inspect(..., mode=)` can show for this engine, e.g. "ir"."""
        _missing(self, "stages")

    # ---- storage: `arrays` calls these for devices without host memory --------------------
    def alloc(self, nbytes: int):
        """A new buffer of `nbytes` bytes (contents unspecified): an object with `.ptr`, the
        address kernels use, and `.nbytes`; freed when the last reference to it goes."""
        _missing(self, "alloc")

    def upload(self, buf, host) -> None:
        """Copy the C-contiguous NumPy array `host` into the start of `buf` (may be queued)."""
        _missing(self, "upload")

    def download(self, buf, out) -> None:
        """Wait for queued work, then copy the start of `buf` into the NumPy array `out`."""
        _missing(self, "download")

    def memset0(self, buf) -> None:
        """Zero every byte of `buf` (may be queued)."""
        _missing(self, "memset0")

    def copy(self, dst, src, nbytes: int) -> None:
        """Copy `nbytes` bytes from buffer `src` to buffer `dst` (may be queued)."""
        _missing(self, "copy")

    def adopt(self, ptr: int, nbytes: int, owner):
        """A buffer over foreign memory at `ptr` (DLPack import): not freed by the engine;
        `owner` is kept alive as long as the buffer (its release frees the memory)."""
        _missing(self, "adopt")

    # ---- kernels ---------------------------------------------------------------------------
    def compile(self, kir: KernelIR) -> Launchable:
        """The launchable for a final KernelIR (after passes.pipeline). Raises for what this
        engine cannot run, before rendering where it can."""
        _missing(self, "compile")

    # Whether a launch or copy may still run when its call returns; False where every call
    # returns finished, so that `tack.sync()` need not ask the engine (devices.sync).
    queues: bool = True

    def sync(self) -> None:
        """Wait for every queued launch and copy; errors of queued work surface here."""
        _missing(self, "sync")

    def stage(self, kir: KernelIR, name: str) -> str:
        """The text of stage `name` (one of `stages`) for a final KernelIR; nothing is run."""
        _missing(self, "stage")

    # ---- optional --------------------------------------------------------------------------
    def runs_mma(self) -> bool:
        """Whether this engine's device runs `tack.mma` on tensor cores as
        `capabilities.tensor_cores` says (a CUDA engine asks its GPU's architecture: mma.sync
        needs sm_80). Default: the capability."""
        return self.capabilities.tensor_cores

    def runs_wgmma(self) -> bool:
        """Whether library ops should take their warpgroup-MMA kernels here
        (`capabilities.runs_wgmma`): the device is one of the GPUs they are written for. Default:
        False (an engine that runs `tack.wgmma` for user kernels need not be one)."""
        return False

    # ---- optional: kernels from the disk cache without their KernelIR ----------------------
    def record_key(self) -> list | None:
        """What, besides the kernel and its argument types, decides the code this engine makes
        (the CPU: a fingerprint of the host CPU and of LLVM's build), as key parts; None (the
        default): kernels of this engine are always typechecked and compiled."""
        return None

    def from_record(self, data: bytes, make_kir, expected) -> Launchable | None:
        """The launchable a `Launchable.record()` describes, or None if it is unusable or its
        parameters are not `expected` ((name, kind, dtype, ndim) each): the caller then
        compiles. `make_kir()` gives the KernelIR should anything ask for it."""
        return None


def _missing(obj, method: str):
    cls = obj if isinstance(obj, type) else type(obj)
    part = "Launchable" if issubclass(cls, Launchable) else "Engine"
    raise NotImplementedError(f"{cls.__name__} does not implement '{method}', which the engine "
                              f"contract requires (tack.runtime.base.{part})")
