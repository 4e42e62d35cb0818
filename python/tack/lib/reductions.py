"""Workgroup reductions written in Tack's kernel language: `tack.block_sum`, `block_min`,
`block_max` combine one f32 from each lane of a 256-lane workgroup and give the result to every
lane (a tree over shared memory; barriers included, one after the result is read). min/max follow
the array reductions' rule: a NaN anywhere gives NaN."""
from ..dtypes import f32
from ..frontend.inline import func
from ..intrinsics import barrier, expect_dtype, select, shared, thread_id


@func
def _tree(x, combine):
    smem = shared(f32, 256)  # one slot per lane of a workgroup (ir.ops.WORKGROUP)
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
def _add(a, b):
    return a + b


@func
def _nan_min(a, b):
    return select(a != a, a, select(b != b, b, min(a, b)))  # noqa: PLR0124 - NaN tests


@func
def _nan_max(a, b):
    return select(a != a, a, select(b != b, b, max(a, b)))  # noqa: PLR0124 - NaN tests


@func
def block_sum(v):
    """The sum of an f32 value over the lanes of a workgroup, returned to every lane (GPU
    engines and the simulator; all lanes must call it, as with a barrier)."""
    return _tree(expect_dtype(v, f32, "block_sum"), _add)


@func
def block_min(v):
    """The minimum of an f32 value over the lanes of a workgroup, returned to every lane; a NaN
    wins (all lanes must call it, as with a barrier)."""
    return _tree(expect_dtype(v, f32, "block_min"), _nan_min)


@func
def block_max(v):
    """The maximum of an f32 value over the lanes of a workgroup, returned to every lane; a NaN
    wins (all lanes must call it, as with a barrier)."""
    return _tree(expect_dtype(v, f32, "block_max"), _nan_max)
