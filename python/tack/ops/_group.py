"""Workgroup reductions in either precision, in Tack's kernel language: the op kernels' GPU
paths combine one value per lane of a 256-lane workgroup (docs/language.md, "Workgroup
contract"). Unlike `tack.block_sum`, which takes f32 only, the scratch takes the dtype of an
array passed beside the value, so one source serves float32 and float64."""
from ..frontend.inline import func
from ..intrinsics import barrier, shared_like, thread_id


@func
def _tree(like, x, combine):
    smem = shared_like(like, 256)  # one slot per lane (ir.ops.WORKGROUP)
    tid = thread_id()
    smem[tid] = x
    barrier()
    stride = 128  # WORKGROUP // 2, a literal: the kernel language reads no module globals
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
def _max(a, b):
    return max(a, b)


@func
def group_sum(like, v):
    """The sum of `v` over the workgroup, in `like`'s dtype, given to every lane."""
    return _tree(like, v, _add)


@func
def group_max(like, v):
    """The maximum of `v` over the workgroup (softmax row maxima: no NaN rule needed beyond
    max's), given to every lane."""
    return _tree(like, v, _max)
