"""The workgroup reduction by warp shuffles: `warp_group_reduce` combines one value from each lane
of a 256-lane workgroup with any `combine` (a `@tack.func` of two values) and gives the result to
every lane, as `reductions.group_reduce` does through shared memory, in its own fixed order: each
warp's xor butterfly, then the eight warp results by the same butterfly (`warp_tree`: two
barriers, not ten). tack.algorithms takes it on engines whose warps exchange registers
(`Capabilities.register_warps`: CUDA and the simulator, which then give the same bits) and keeps
the shared-memory tree elsewhere (docs/algorithms.md, "The workgroup steps").

`tree_by_warps` is the other way round: the shared-memory tree's own order
(`reductions.group_tree`, the order tack.ops documents for its row statistics) with two
barriers, its last five levels by shuffles; an engine may take either and the bits are the
same (`group_reduce_by_warps`, `group_reduce_by_warps_f32`)."""
from ..dtypes import f32
from ..frontend.inline import func
from ..intrinsics import (
    barrier,
    lane_id,
    shared,
    shared_like,
    shfl,
    shfl_down,
    shfl_xor,
    thread_id,
    warp_id,
)


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
def tree_by_warps(smem, x, combine):
    """`reductions.group_tree` in the same order (slot i takes slot i + s for s = 128, 64, ...,
    1), given to every lane, with two barriers instead of ten: each lane l of every warp reads
    slots l + 32k (k < 8) and takes the levels 128, 64 and 32 in registers (slot l + 32k with
    l + 32k + s), then the levels 16 ... 1 by `shfl_down` (lane l with lane l + s), and lane 0's
    value is the tree's root. Every warp computes it (eight loads and twelve combines a lane),
    so no lane waits on a lane-dependent branch and no third barrier hands the root out.
    `smem`: 256 slots of x's dtype; the second barrier lets the call run again in a loop."""
    smem[thread_id()] = x
    barrier()
    lane = lane_id()
    a0 = combine(smem[lane], smem[lane + 128])
    a1 = combine(smem[lane + 32], smem[lane + 160])
    a2 = combine(smem[lane + 64], smem[lane + 192])
    a3 = combine(smem[lane + 96], smem[lane + 224])
    v = combine(combine(a0, a2), combine(a1, a3))  # level 64 (slots l, l + 32), level 32
    s = 16
    while s > 0:
        v = combine(v, shfl_down(v, s))
        s = s // 2
    root = shfl(v, 0)
    barrier()
    return root


@func
def group_reduce_by_warps(like, x, combine):
    """`reductions.group_reduce` (its order, its bits) by `tree_by_warps`: for engines whose warps
    exchange registers (CUDA, the simulator)."""
    smem = shared_like(like, 256)
    return tree_by_warps(smem, x, combine)


@func
def group_reduce_by_warps_f32(like, x, combine):
    """`reductions.group_reduce_f32` (its order, its bits) by `tree_by_warps`."""
    smem = shared(f32, 256)
    return tree_by_warps(smem, x, combine)
