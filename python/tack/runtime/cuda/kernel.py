"""One compiled CUDA kernel: its module loaded at the register budget the occupancy rule picks,
and the prebuilt parameter block that each launch packs (the launch paths of engine.py's
docstring). Kept apart from the engine (engine.py), which creates these in `compile`."""
from __future__ import annotations

import ctypes
import threading

from ...capabilities import check_arch
from ...errors import TackRuntimeError, TackValueError
from ...ir import tma
from ...ir.nodes import KernelIR
from ...ir.ops import WORKGROUP as BLOCK
from ...render.llvm.ptx_shared import dynamic_bytes
from ..base import Launchable
from ..packing import PACK_ERRORS, layout, pack_slow
from .cache import cached_ptx
from .driver import INVALID_CONTEXT, OK, code_of, drv
from .launch import Record, libcuda, trampoline
from .occupancy import budgets, limit_registers
from .tensormaps import TensorMaps

# How a launch calls cuLaunchKernel (`CUDAEngine.launch_via`, runtime/cuda/launch.py): "native"
# (the trampoline), "ctypes" or "bindings"; bench/gpu.py compares them
PATHS = ("native", "ctypes", "bindings")


class CUDAKernel(Launchable):
    """One compiled specialization: a loaded module and its prebuilt launch parameters."""

    def __init__(self, engine, kir: KernelIR):
        self.engine, self.kir, self.name = engine, kir, kir.name
        check_arch(kir, engine.arch)  # what this device lacks (cp.async before sm_80), refused
        built = cached_ptx(kir, engine.arch)
        self.ptx, self.llvm_ir, self.optimized_ir = built.ptx, built.llvm_ir, built.optimized_ir
        self.entry = built.name
        # shared arrays past the 48 KiB a kernel declares statically: dynamic shared memory,
        # opted into per loaded function and requested by each launch (render/llvm/ptx_shared.py)
        self.shared_bytes = dynamic_bytes(kir)
        self.per_thread = built.per_thread  # launch indices per thread (elementwise kernels)
        self._span = BLOCK * built.per_thread  # launch indices per block
        self.module, self.function = self._load(built.ptx)
        self.registers, self.blocks_per_sm, self._local_bytes = self._occupancy()
        self.max_registers = None  # the `.maxnreg` budget it was loaded with, if any
        for budget, more in budgets(self.registers, self.blocks_per_sm, BLOCK,
                                    engine.regs_per_sm, engine.threads_per_sm):
            if self._reload_with(built.ptx, budget, more):
                break
        self.fn_ptr = int(self.function)
        # One 8-byte slot per parameter, then n (i64); kernelParams[k] points at slot k. A
        # kernel with tensor copies takes their maps, 128 bytes each, between the two
        # (runtime/cuda/tensormaps.py), filled by `launch`.
        self._struct = layout(kir.params, "q")
        nslots = len(kir.params) + 1
        self._buf = ctypes.create_string_buffer(8 * nslots)
        base = ctypes.addressof(self._buf)
        self._maps = TensorMaps(engine, kir, libcuda()) if tma.maps(kir) else None
        slots = [base + 8 * k for k in range(nslots)]
        if self._maps is not None:
            slots[-1:-1] = self._maps.addresses
        self._ptrs = (ctypes.c_void_p * len(slots))(*slots)
        self.params_ptr = ctypes.addressof(self._ptrs)
        self._pack = self._struct.pack_into
        self._lock = threading.Lock()
        self._max = engine.max_grid_x * self._span
        self._native_launch = engine.native.launch
        self._stream = engine.stream_ptr
        self._pending_add = engine._pending.add
        self._cu_launch, self._stream_obj = drv.cuLaunchKernel, engine.stream
        self._record = Record(engine.native.launch_addr, self.fn_ptr, self._span, self._stream,
                              self.params_ptr, base + 8 * (nslots - 1),  # the last slot: n
                              self.shared_bytes)
        self._tramp, self._rec = trampoline(), self._record.address
        self._via = engine.launch_via  # the engine's launch path, fixed when it started

    def __repr__(self) -> str:
        return f"<CUDAKernel {self.name} on {self.engine.arch}>"

    def _load(self, ptx: str):
        module = self.engine.call(drv.cuModuleLoadData, ptx.encode() + b"\0",
                                  what=f"loading kernel '{self.name}' (cuModuleLoadData)")
        function = self.engine.call(drv.cuModuleGetFunction, module, self.entry.encode(),
                                    what="cuModuleGetFunction")
        if self.shared_bytes:
            self.engine.call(drv.cuFuncSetAttribute, function, drv.CUfunction_attribute
                             .CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, self.shared_bytes,
                             what=f"kernel '{self.name}': {self.shared_bytes} bytes of shared "
                                  "memory (cuFuncSetAttribute)")
        return module, function

    def _occupancy(self, function=None) -> tuple[int, int, int]:
        """(registers/thread, resident 256-thread blocks/SM, local bytes/thread) of `function`."""
        function, attr = function or self.function, drv.CUfunction_attribute
        regs, local = (int(self.engine.call(drv.cuFuncGetAttribute, a, function,
                                            what="cuFuncGetAttribute"))
                       for a in (attr.CU_FUNC_ATTRIBUTE_NUM_REGS,
                                 attr.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES))
        blocks = self.engine.call(drv.cuOccupancyMaxActiveBlocksPerMultiprocessor, function,
                                  BLOCK, self.shared_bytes,
                                  what="cuOccupancyMaxActiveBlocksPerMultiprocessor")
        return regs, int(blocks), local

    def _reload_with(self, ptx: str, budget: int, more: bool) -> bool:
        """Load again with `.maxnreg budget` (runtime.cuda.occupancy); keep the new module if
        it runs at least as many blocks per SM (`more`: more blocks, spilling nothing more).
        A budget that an instruction cannot live within fails the JIT (a warpgroup MMA's
        accumulators are registers ptxas cannot spill: "Insufficient registers", which the
        driver reports as CUDA_ERROR_INVALID_PTX): the first load stays."""
        try:
            module, function = self._load(limit_registers(ptx, self.entry, budget))
        except TackRuntimeError:
            return False
        regs, blocks, local = self._occupancy(function)
        if blocks < self.blocks_per_sm + more or more and local > self._local_bytes:
            drv.cuModuleUnload(module)
            return False
        drv.cuModuleUnload(self.module)
        self.module, self.function, self._local_bytes = module, function, local
        self.registers, self.blocks_per_sm, self.max_registers = regs, blocks, budget
        return True

    def inline_launch(self, values: list[str], env: dict) -> list[str] | None:
        """`launch` by the native path as lines for a prebuilt call path (call/fast.py), whose
        `n` and argument expressions `values` are checked already; an odd size or a value the
        block cannot hold returns MISS (the general path raises). None: the engine launches by
        another path."""
        if self._via != "native" or self._maps is not None:  # maps: `launch` fills them
            return None
        env.update(_lock=self._lock, _pack=self._pack, _buf=self._buf, _tramp=self._tramp,
                   _rec=self._rec, _failed=self._failed, _pending=self._pending_add,
                   _name=self.name, _pack_errors=PACK_ERRORS)
        vals = ", ".join(values)
        return [f"if n > {self._max}:",
                "    return MISS",
                "with _lock:",
                "    try:",
                f"        _pack(_buf, 0, {vals}, n)",
                "    except _pack_errors:",
                "        return MISS",
                "    code = _tramp(_rec)",
                "if code:",
                f"    _failed(code, [{vals}], n)",
                "_pending(_name)"]

    def launch(self, args, n: int, via: str | None = None) -> None:
        """Queue one launch over [0, n); returns at once. Packs the parameter block (its last
        slot is `n`), then calls cuLaunchKernel by the path `via` (None: the engine's,
        `CUDAEngine.launch_via`): "native", the trampoline of runtime.cuda.launch (one ctypes
        call with one pointer argument); "ctypes", libcuda's entry through ctypes argtypes;
        "bindings", cuda-bindings' wrapper."""
        if via is None:
            via = self._via
        if n > self._max or n <= 0:
            return self._odd_size(args, n)
        with self._lock:
            if self._maps is not None:
                self._maps.fill(args)
            try:
                self._pack(self._buf, 0, *args, n)
            except PACK_ERRORS:
                pack_slow(self.name, self.kir.params, self._pack, self._buf, args, n)
            if via == "native":
                code = self._tramp(self._rec)
            elif via == "ctypes":
                code = self._native_launch(self.fn_ptr, -(-n // self._span), 1, 1, BLOCK, 1, 1,
                                           self.shared_bytes, self._stream, self.params_ptr,
                                           None)
            else:
                res = self._cu_launch(self.function, -(-n // self._span), 1, 1, BLOCK, 1, 1,
                                      self.shared_bytes, self._stream_obj, self.params_ptr, 0)
                code = 0 if res[0] is OK else code_of(res)
        if code:
            self._failed(code, args, n, via)
        self._pending_add(self.name)

    def _odd_size(self, args, n: int) -> None:
        if n <= 0:
            return
        raise TackValueError(f"Kernel '{self.name}': {n} iterations exceed the {self._max} that "
                             "one CUDA launch can index; split the work across several launches.")

    def _failed(self, code: int, args, n: int, via: str = "native") -> None:
        # The first launch from a thread without our context, or with another device's current
        # (several engines in one process): make ours current and launch again.
        if code == INVALID_CONTEXT or not self.engine.is_current():
            self.engine.make_current()
            if self.engine.is_current():
                return self.launch(args, n, via)
        self.engine.fail(code, f"launch of {-(-n // self._span)} blocks of {BLOCK} threads "
                               "(cuLaunchKernel)", {self.name})
