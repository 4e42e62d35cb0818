"""`tack.ops`: neural-network operations written once in Tack's kernel language.

Each op takes NumPy or Tack arrays of float32/float64, checks shapes and dtypes before any
launch (TypeError/ValueError naming the op and the argument) and returns Tack arrays on the
current device; `out=` names a Tack array to write instead (of the result's shape, dtype and
device: no allocation, no zero-fill). Where the device's engine runs workgroups (`Capabilities.workgroups`), the
reductions use shared memory and block reductions; elsewhere a portable kernel runs one row per
parallel iteration.
"""
from .attention import attention
from .attention_backward import attention_backward
from .elementwise import add, gelu, relu, silu
from .matmul import batched_matmul, matmul
from .norms import layer_norm, rms_norm
from .softmax import log_softmax, softmax

__all__ = ["add", "attention", "attention_backward", "batched_matmul", "gelu", "layer_norm", "log_softmax", "matmul",
           "relu", "rms_norm", "silu", "softmax"]
