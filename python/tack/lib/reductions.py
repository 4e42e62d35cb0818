"""Workgroup reductions written in Tack's kernel language: one tree, `group_tree`, combines one
value from each lane of a 256-lane workgroup with any `combine` (a `@tack.func` of two values)
and gives the result to every lane. Its order is part of the numerics: lane i combines slot i
with slot i + s for s = 128, 64, ..., 1, on every engine. `group_reduce` runs it in the dtype of
an array, `group_reduce_f32` in f32 (the tree of a half array's statistics: a kernel takes one or
the other as a `@tack.func` argument); `tack.block_sum`, `block_min` and `block_max` in f32
(min/max follow the rule that a NaN anywhere gives NaN).

`warp_group_reduce` combines the same values by warp shuffles instead (`warp_tree`: two
barriers, not ten), in its own fixed order: tack.algorithms takes it on engines whose warps
exchange registers (`Capabilities.register_warps`: CUDA and the simulator, which then give the
same bits), and keeps the shared-memory tree elsewhere."""
from ..dtypes import f32
from ..frontend.inline import func
from ..intrinsics import (
    barrier,
    expect_dtype,
    lane_id,
    shared,
    shared_like,
    shfl_xor,
    thread_id,
    warp_id,
)
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
def butterfly(x, step, combine):
    """x = combine(x, shfl_xor(x, s)) for s = step, step / 2, ..., 1: `tack.warp_sum`'s order
    (docs/language.md, "Warps") with any `combine`, the lane's own value first."""
    s = step
    while s > 0:
        x = combine(x, shfl_xor(x, s))
        s = s // 2
    return x


@func
def warp_tree(smem, x, combine):
    """combine over `x` of every lane of the workgroup, given to every lane: each warp's xor
    butterfly (steps 16 … 1), warp w's result into smem[w] (`smem`: 8 slots of x's dtype), then
    the eight warp results by the butterfly of steps 4, 2, 1 (lane l takes slot l % 8). Two
    barriers, the second after the read, so that the call may run again in a loop."""
    x = butterfly(x, 16, combine)
    if lane_id() == 0:
        smem[warp_id()] = x
    barrier()
    y = butterfly(smem[lane_id() % 8], 4, combine)
    barrier()
    return y


@func
def warp_group_reduce(like, x, combine):
    """`group_reduce` by warp shuffles (`warp_tree`), in the dtype of array `like`: for engines
    whose warps exchange registers (CUDA, the simulator)."""
    smem = shared_like(like, 8)  # one slot per warp of a workgroup (WORKGROUP // WARP)
    return warp_tree(smem, x, combine)


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
