"""The workgroup reduction by warp shuffles: `warp_group_reduce` combines one value from each lane
of a 256-lane workgroup with any `combine` (a `@tack.func` of two values) and gives the result to
every lane, as `reductions.group_reduce` does through shared memory, in its own fixed order: each
warp's xor butterfly, then the eight warp results by the same butterfly (`warp_tree`: two
barriers, not ten). tack.algorithms takes it on engines whose warps exchange registers
(`Capabilities.register_warps`: CUDA and the simulator, which then give the same bits) and keeps
the shared-memory tree elsewhere (docs/algorithms.md, "The workgroup steps")."""
from ..frontend.inline import func
from ..intrinsics import barrier, lane_id, shared_like, shfl_xor, warp_id


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
