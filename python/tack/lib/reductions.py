"""Workgroup reductions written in Tack's kernel language: one tree, `group_tree`, combines one
value from each lane of a 256-lane workgroup with any `combine` (a `@tack.func` of two values)
and gives the result to every lane. Its order is part of the numerics: lane i combines slot i
with slot i + s for s = 128, 64, ..., 1, on every engine. `group_reduce` runs it in the dtype of
an array, `group_reduce_f32` in f32 (the tree of a half array's statistics: a kernel takes one or
the other as a `@tack.func` argument); `tack.block_sum`, `block_min` and `block_max` in f32
(min/max follow the rule that a NaN anywhere gives NaN)."""
from ..dtypes import f32
from ..frontend.inline import func
from ..intrinsics import barrier, expect_dtype, shared, shared_like, thread_id
from .combine import add, max_or_nan, min_or_nan


@func
def group_tree(smem, x, combine):
    """combine over `x` of every lane of the workgroup, given to every lane; `smem` is a shared
    array of 256 slots (ir.ops.WORKGROUP) of x's dtype, free for the tree's use. Barriers
    included, one after the result is read, so that the call may run again in a loop."""
    tid = thread_id()
    smem[tid] = x
    barrier()
    stride = 128  # WORKGROUP // 2: literals, as the kernel language reads no module globals
    while stride > 0:
        if tid < stride:
            smem[tid] = combine(smem[tid], smem[tid + stride])
        barrier()
        stride = stride // 2
    result = smem[0]
    barrier()
    return result


@func
def group_reduce(like, x, combine):
    """combine over `x` of every lane of the workgroup in the dtype of array `like` (any
    precision: one source serves float32 and float64), given to every lane."""
    smem = shared_like(like, 256)  # one slot per lane of a workgroup (ir.ops.WORKGROUP)
    return group_tree(smem, x, combine)


@func
def group_reduce_f32(like, x, combine):
    """combine over `x` (an f32 value) of every lane of the workgroup in f32, given to every lane:
    `group_reduce` for kernels whose array `like` is f16 or bf16 and whose statistics are f32."""
    smem = shared(f32, 256)
    return group_tree(smem, x, combine)


@func
def block_sum(v):
    """The sum of an f32 value over the lanes of a workgroup, returned to every lane (GPU
    engines and the simulator; all lanes must call it, as with a barrier)."""
    smem = shared(f32, 256)
    return group_tree(smem, expect_dtype(v, f32, "block_sum"), add)


@func
def block_min(v):
    """The minimum of an f32 value over the lanes of a workgroup, returned to every lane; a NaN
    wins (all lanes must call it, as with a barrier)."""
    smem = shared(f32, 256)
    return group_tree(smem, expect_dtype(v, f32, "block_min"), min_or_nan)


@func
def block_max(v):
    """The maximum of an f32 value over the lanes of a workgroup, returned to every lane; a NaN
    wins (all lanes must call it, as with a barrier)."""
    smem = shared(f32, 256)
    return group_tree(smem, expect_dtype(v, f32, "block_max"), max_or_nan)
