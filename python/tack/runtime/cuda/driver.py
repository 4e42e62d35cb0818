"""The CUDA driver's Python bindings (cuda-bindings, or the older cuda-python layout) and the
result codes the CUDA modules of the runtime test for, said once."""
from __future__ import annotations

try:
    from cuda.bindings import driver as drv
except ImportError:  # pragma: no cover - older cuda-python layout
    from cuda import cuda as drv  # type: ignore[no-redef]

SUCCESS = 0
OK = drv.CUresult.CUDA_SUCCESS  # the enum member cuda-bindings returns on success
INVALID_CONTEXT = 201  # CUDA_ERROR_INVALID_CONTEXT: a thread without the engine's context


def code_of(res) -> int:
    """The integer result of a driver call, which returns a CUresult or a tuple led by one."""
    return int(res[0] if isinstance(res, tuple) else res)


def error_name(code: int) -> str:
    """"NAME (description)" of a driver result code, as the driver spells them."""
    try:
        _, name = drv.cuGetErrorName(drv.CUresult(code))
        _, desc = drv.cuGetErrorString(drv.CUresult(code))
        name = name.decode() if isinstance(name, bytes) else str(name)
        desc = desc.decode() if isinstance(desc, bytes) else str(desc)
        return f"{name} ({desc})"
    except (ValueError, TypeError):  # a code CUresult does not know
        return f"CUDA error {code}"
