"""Device-only functions of the kernel language (`tack.atomic_add`, `tack.shared`, ...): the host
objects a kernel names. Each is declared in the builtin registry (builtins/registry.py), which
gives its call form, meaning and parsing; the parser recognises these objects by their
`__tack_intrinsic__` name. Called from Python they raise, naming themselves (`unroll` excepted).
"""
from __future__ import annotations

from .builtins.registry import REGISTRY
from .errors import TackRuntimeError, TackTypeError, TackValueError


def _device_only(key: str):
    b = REGISTRY[key]

    def fn(*args, **kwargs):
        raise TackRuntimeError(f"{b.name}() can only be used inside a @tack.kernel")

    fn.__name__ = fn.__qualname__ = b.name
    fn.__doc__ = f"{b.call}: {b.doc}."
    fn.__tack_intrinsic__ = b.name
    return fn


local_array = _device_only("tack.local_array")
local_array_like = _device_only("tack.local_array_like")
shared = _device_only("tack.shared")
shared_like = _device_only("tack.shared_like")
barrier = _device_only("tack.barrier")
thread_id = _device_only("tack.thread_id")
lane_id = _device_only("tack.lane_id")
warp_id = _device_only("tack.warp_id")
shfl = _device_only("tack.shfl")
shfl_xor = _device_only("tack.shfl_xor")
shfl_up = _device_only("tack.shfl_up")
shfl_down = _device_only("tack.shfl_down")
warp_any = _device_only("tack.warp_any")
warp_all = _device_only("tack.warp_all")
ballot = _device_only("tack.ballot")
warp_sum = _device_only("tack.warp_sum")
warp_min = _device_only("tack.warp_min")
warp_max = _device_only("tack.warp_max")
async_copy = _device_only("tack.async_copy")
async_commit = _device_only("tack.async_commit")
async_wait = _device_only("tack.async_wait")
mbarriers = _device_only("tack.mbarriers")
mbarrier_init = _device_only("tack.mbarrier_init")
mbarrier_arrive = _device_only("tack.mbarrier_arrive")
mbarrier_arrive_tx = _device_only("tack.mbarrier_arrive_tx")
mbarrier_wait = _device_only("tack.mbarrier_wait")
async_bulk_copy = _device_only("tack.async_bulk_copy")
async_tensor_copy = _device_only("tack.async_tensor_copy")
mma_load_a = _device_only("tack.mma_load_a")
mma_load_b = _device_only("tack.mma_load_b")
mma_load_acc = _device_only("tack.mma_load_acc")
mma_load_bt = _device_only("tack.mma_load_bt")
mma_rows = _device_only("tack.mma_rows")
mma_cols = _device_only("tack.mma_cols")
mma_row_max = _device_only("tack.mma_row_max")
mma_row_sum = _device_only("tack.mma_row_sum")
mma_to_a = _device_only("tack.mma_to_a")
mma_zeros = _device_only("tack.mma_zeros")
mma = _device_only("tack.mma")
mma_store = _device_only("tack.mma_store")
wgmma_zeros = _device_only("tack.wgmma_zeros")
wgmma = _device_only("tack.wgmma")
wgmma_commit = _device_only("tack.wgmma_commit")
wgmma_wait = _device_only("tack.wgmma_wait")
wgmma_store = _device_only("tack.wgmma_store")
wgmma_index = _device_only("tack.wgmma_index")
atomic_add = _device_only("tack.atomic_add")
atomic_min = _device_only("tack.atomic_min")
atomic_max = _device_only("tack.atomic_max")
ndrange = _device_only("tack.ndrange")
select = _device_only("tack.select")
Vector = _device_only("tack.Vector")
Matrix = _device_only("tack.Matrix")
Matrix.identity = _device_only("tack.Matrix.identity")
bitcast = _device_only("tack.bitcast")
expect_dtype = _device_only("tack.intrinsics.expect_dtype")


def unroll(r, factor=None):
    """for j in unroll(range(...), factor): a sequential loop inside a kernel, unrolled `factor`
    times (1: not unrolled), or fully (no factor) when its trip count is a compile-time constant.
    A pure performance hint: results are those of the plain loop.

    Unlike the functions above it also works from Python, returning `r` unchanged, so that a
    kernel body run as plain Python (tack.testing, a user's own check) still runs."""
    if not isinstance(r, range):
        raise TackTypeError(f"unroll() takes a range, got {type(r).__name__}")
    if factor is not None and (type(factor) is bool or not isinstance(factor, int) or factor < 1):
        raise TackValueError(f"unroll() factor must be an int >= 1, got {factor!r}")
    return r


unroll.__tack_intrinsic__ = "unroll"  # the parser recognises it by this, like the others

ALL = (bitcast, expect_dtype, ndrange, unroll, select, Vector, Matrix, local_array,
       local_array_like, shared, shared_like, barrier, thread_id, atomic_add, atomic_min,
       atomic_max, lane_id, warp_id, shfl, shfl_xor, shfl_up, shfl_down, warp_any, warp_all,
       ballot, warp_sum, warp_min, warp_max, async_copy, async_commit, async_wait, mma_load_a,
       mma_load_b, mma_load_acc, mma_zeros, mma, mma_store, mma_load_bt, mma_rows, mma_cols,
       mma_row_max, mma_row_sum, mma_to_a, wgmma_zeros, wgmma, wgmma_commit, wgmma_wait,
       wgmma_store, wgmma_index,
       mbarriers, mbarrier_init, mbarrier_arrive, mbarrier_arrive_tx, mbarrier_wait,
       async_bulk_copy, async_tensor_copy)
