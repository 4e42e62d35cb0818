"""The workgroup contract (docs/language.md, "Workgroup contract"), checked before anything
runs; GPU execution of these kernels is tested in tests/cuda. `tack.inspect` applies the same
checks without a GPU."""
import pytest
import tack
from tack.compiler import specialize
from tack.devices import make_device
from tack.runtime import registry

from tests.stand_in_engines import stand_in


@tack.kernel
def group_sums(data, out, n):
    for i in range(n):
        s = tack.block_sum(data[i])
        if tack.thread_id() == 0:
            out[i // 256] = s


@tack.kernel
def barrier_under_load(data, out, n):
    for i in range(n):
        if data[i] > 0.0:
            tack.barrier()
        out[i] = 1.0


@tack.kernel
def barrier_after_lane_exit(data, out, n):
    for i in range(n):
        if tack.thread_id() < 3:
            continue
        tack.barrier()
        out[i] = 1.0


@tack.kernel
def barrier_in_uniform_branch(data, out, n, flag):
    for i in range(n):
        k = 0
        while k < flag:
            tack.barrier()
            k += 1
        if flag > 2:
            out[i] = tack.block_max(data[i])


@tack.kernel
def int_block_sum(data, out, n):
    for i in range(n):
        out[i] = tack.block_sum(data[i])


GPU = make_device("cuda")  # only used for capability checks here: no engine is started


def test_uniform_participation_rejections():
    args = (tack.zeros(512), tack.zeros(512), 512)
    with pytest.raises(ValueError, match="requires uniform workgroup participation: its "
                                         "condition"):
        specialize(barrier_under_load, args, GPU)
    with pytest.raises(ValueError, match="earlier break/continue"):
        specialize(barrier_after_lane_exit, args, GPU)
    specialize(barrier_in_uniform_branch, args + (3,), GPU)  # scalar arguments are uniform
    specialize(group_sums, (tack.zeros(512), tack.zeros(2), 512), GPU)


def test_block_reductions_need_f32():
    with pytest.raises(TypeError, match="test_workgroup_contract.py.*block_sum requires f32 input, got i32"):
        specialize(int_block_sum, (tack.zeros(256, tack.i32), tack.zeros(256), 256), GPU)


class PTXStandIn:
    """A CUDA engine without a GPU: its one stage, what tack.inspect asks of it."""

    @classmethod
    def create(cls, arch, options):
        return cls()

    def stage(self, kir, name):
        return "ptx"


def test_partial_groups_rejected_before_launch():
    data, out = tack.zeros(300), tack.zeros(2)
    with stand_in(PTXStandIn, "cuda", like=registry.NATIVE_CUDA):
        with pytest.raises(ValueError, match="complete 256-lane groups; iteration count 300"):
            tack.inspect(group_sums, data, out, 300, mode="source")
        assert tack.inspect(group_sums, data, out, 256, mode="source") == "ptx"


def test_cpu_rejects_block_reductions():
    with pytest.raises(RuntimeError, match="CPU backend does not support workgroup execution "
                                           "required by barrier, shared, thread_id"):
        group_sums(tack.zeros(256), tack.zeros(1), 256)
