"""The CUDA engine's stages beyond PTX: "resources" (what the driver reports of the loaded kernel)
and "sass" (the machine code ptxas makes of the same PTX).

Both take a kernel loaded exactly as a launch loads it (`CUDAKernel`: the PTX, then the register
budget of runtime.cuda.occupancy when it applies) and the driver bindings `drv` as an argument, so
they import without cuda-bindings and are tested with a stand-in driver (tests/cuda).

    resources(kernel, drv)   # dict: registers, local (spill) bytes, static and dynamic shared
                             # bytes, ...
    cubin(kernel, drv)       # bytes: the driver's linker (cuLinkCreate/AddData/Complete)
"""
from __future__ import annotations

import ctypes
import json

from ...ir.ops import WORKGROUP as BLOCK
from .occupancy import GRANULE, limit_registers

# What cuFuncGetAttribute reports of a function, by the key `resources` gives it.
FUNCTION_ATTRIBUTES = (
    ("registers", "CU_FUNC_ATTRIBUTE_NUM_REGS"),  # per thread
    ("local_bytes", "CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES"),  # per thread: spills, local arrays
    ("shared_bytes", "CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES"),  # static, per block
    ("const_bytes", "CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES"),
    ("max_threads_per_block", "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK"),
    ("ptx_version", "CU_FUNC_ATTRIBUTE_PTX_VERSION"),  # major * 10 + minor
    ("binary_version", "CU_FUNC_ATTRIBUTE_BINARY_VERSION"),  # the sm_XY it runs as: XY
)

# The multiprocessor's limits each resource divides (cuDeviceGetAttribute).
DEVICE_ATTRIBUTES = (
    ("threads_per_sm", "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR"),
    ("registers_per_sm", "CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR"),
    ("shared_bytes_per_sm", "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"),
    ("reserved_shared_bytes_per_block", "CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK"),
    ("max_blocks_per_sm", "CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR"),
)


def resources(kernel, drv) -> dict:
    """The loaded kernel's resources and the occupancy they give 256-thread blocks: the
    driver's numbers, and per resource the blocks per SM it alone would allow (`limits`)."""
    eng = kernel.engine
    out = {"kernel": kernel.entry, "arch": eng.arch, "device": eng.name, "block": BLOCK,
           "per_thread": kernel.per_thread, "max_registers": kernel.max_registers,
           # requested by each launch: shared arrays past 48 KiB (render/llvm/ptx_shared.py)
           "dynamic_shared_bytes": kernel.shared_bytes}
    for key, name in FUNCTION_ATTRIBUTES:
        out[key] = int(eng.call(drv.cuFuncGetAttribute, getattr(drv.CUfunction_attribute, name),
                                kernel.function, what=f"cuFuncGetAttribute({name})"))
    dev = {key: int(eng.call(drv.cuDeviceGetAttribute, getattr(drv.CUdevice_attribute, name),
                             eng.device, what=f"cuDeviceGetAttribute({name})"))
           for key, name in DEVICE_ATTRIBUTES}
    blocks = int(eng.call(drv.cuOccupancyMaxActiveBlocksPerMultiprocessor, kernel.function,
                          BLOCK, kernel.shared_bytes,
                          what="cuOccupancyMaxActiveBlocksPerMultiprocessor"))
    limits = occupancy_limits(out["registers"], out["shared_bytes"] + kernel.shared_bytes, dev)
    out.update(blocks_per_sm=blocks, threads_per_sm=dev["threads_per_sm"],
               occupancy=blocks * BLOCK / dev["threads_per_sm"], limits=limits,
               limited_by=[k for k, v in limits.items() if v == blocks], device_limits=dev)
    return out


def occupancy_limits(registers: int, shared_bytes: int, dev: dict) -> dict:
    """Blocks of BLOCK threads per SM that each resource alone allows (None: it sets no limit):
    registers are allocated in units of GRANULE per thread; each block's shared memory carries
    the driver's reservation. The driver's blocks_per_sm is the smallest of these."""
    regs = -(-registers // GRANULE) * GRANULE * BLOCK
    shared = shared_bytes + dev["reserved_shared_bytes_per_block"]
    return {"threads": dev["threads_per_sm"] // BLOCK,
            "registers": dev["registers_per_sm"] // regs if regs else None,
            "shared_memory": dev["shared_bytes_per_sm"] // shared if shared_bytes else None,
            "blocks": dev["max_blocks_per_sm"]}


def resources_text(kernel, drv) -> str:
    """`resources` as the JSON text `tack.inspect` returns and `outdir` writes."""
    return json.dumps(resources(kernel, drv), indent=2) + "\n"


def loaded_ptx(kernel) -> str:
    """The PTX the kernel was loaded from: with the `.maxnreg` budget when it got one."""
    if kernel.max_registers is None:
        return kernel.ptx
    return limit_registers(kernel.ptx, kernel.entry, kernel.max_registers)


def cubin(kernel, drv) -> bytes:
    """The cubin the driver's linker makes of the kernel's loaded PTX, for the current context's
    device (the linker's default target) with the driver's default JIT options, as a load."""
    eng = kernel.engine
    data = loaded_ptx(kernel).encode() + b"\0"  # the linker wants PTX NUL-terminated
    state = eng.call(drv.cuLinkCreate, 0, [], [], what="cuLinkCreate")
    try:
        eng.call(drv.cuLinkAddData, state, drv.CUjitInputType.CU_JIT_INPUT_PTX, data, len(data),
                 kernel.entry.encode(), 0, [], [],
                 what=f"linking kernel '{kernel.name}' (cuLinkAddData)")
        _, image, size = eng.call(drv.cuLinkComplete, state, what="cuLinkComplete")
        return ctypes.string_at(int(image), int(size))  # the image belongs to the link state
    finally:
        drv.cuLinkDestroy(state)
