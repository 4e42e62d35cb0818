"""A lane's step of `STEP` consecutive elements, read and written as plain accesses in one basic
block, for the GPU kernels of tack.ops that give each lane neighbouring elements (softmax and
the norms' workgroup kernels, gelu and silu): where every array starts 16 bytes aligned and the
step's first index is provably a multiple of `STEP`, the NVPTX printer's aligned entry lets
LLVM merge a step into 16-byte accesses (render/llvm/ptx.py, `emit_aligned`;
docs/design/004-cuda-engine.md, "The aligned entry"). The partial step at an end is guarded
element by element, its stores in the other order: LLVM's branch folding would otherwise merge
a common run of the two paths' stores and split the whole step's group."""
from ..constants import constant
from ..frontend.inline import func
from ..intrinsics import unroll

# consecutive elements a lane takes at a time: 16 bytes of a half row, one vector access
STEP = constant(8)


@func
def take(vals, i, x, at, left, fill):
    """vals[i + v] = x[at + v] for the `STEP` elements of a lane's step, `fill` past the row's
    end (`left` elements remain): a whole step is `STEP` plain loads, one vector access where
    aligned."""
    if left >= STEP:
        for v in unroll(range(STEP)):
            vals[i + v] = x[at + v]
    else:
        for v in unroll(range(STEP)):
            vals[i + v] = x[at + v] if v < left else fill


@func
def put(out, at, left, vals, i):
    """out[at + v] = vals[i + v] for the step's elements in the row (`take`'s stores)."""
    if left >= STEP:
        for v in unroll(range(STEP)):
            out[at + v] = vals[i + v]
    else:  # the other order: LLVM would merge a common run of stores with the branch above
        for v in unroll(range(STEP - 1, -1, -1)):
            if v < left:
                out[at + v] = vals[i + v]
