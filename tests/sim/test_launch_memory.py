"""What a launch allocates before it runs: scratch bookkeeping per chunk, never per workgroup of
the launch; and scratch memory that no GPU gives a launch, refused before any allocation."""
import time
import tracemalloc

import numpy as np
import pytest
import tack
from tack.call import signature
from tack.check.recorder import CheckRecorder
from tack.compiler import typecheck
from tack.ir.ops import WORKGROUP
from tack.passes.pipeline import lower
from tack.runtime.sim.engine import CHUNK, SimEngine
from tack.runtime.sim.trace import BufferInfo


@tack.kernel
def few_groups_touch_shared(out, n):
    for i in range(n):
        s = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        if i < 512:
            s[tid] = 1.0
            tack.barrier()
            out[i] = s[255 - tid]


class Stop(Exception):
    pass


class FirstAccess(CheckRecorder):
    """The checker's recorder, stopping the launch at its first memory access (in the first
    chunk): what was allocated by then is the launch's bookkeeping and one chunk."""

    def access(self, *args):
        raise Stop


def final_ir(kernel, args):
    pk = kernel.parse_for(args)
    specs = signature.specs(kernel.name, pk.params, signature.expand(pk.paths, args))
    return lower(typecheck(kernel, pk, specs))


def test_a_launch_of_2_30_lanes_allocates_per_chunk_not_per_workgroup():
    """2^30 lanes are 2^22 workgroups: one BufferInfo per workgroup of the shared array took
    772 MiB and 24 s before the first chunk ran."""
    n = 1 << 30
    out = tack.zeros(512)
    kir = final_ir(few_groups_touch_shared, [out, n])
    rec = FirstAccess("few_groups_touch_shared", {"race", "barrier", "bounds", "uninitialized"})
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(Stop):
            SimEngine().run(kir, [out._host, n], n, rec)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    seconds = time.perf_counter() - start
    # one chunk's locals, lane sets and scratch: some 40 bytes a lane of the chunk
    assert peak < 64 * CHUNK, f"{peak / 2**20:.1f} MiB before the first access"
    assert seconds < 20
    # every workgroup's copy of `s` is still named, though none is stored per workgroup
    assert rec.groups == n // WORKGROUP and len(rec.buffers) == 1 + n // WORKGROUP
    assert rec.buffers[1].name == rec.buffers[n // WORKGROUP].name == "s"


def test_buffers_store_a_shared_declaration_once_for_all_its_workgroups():
    from tack.runtime.sim.trace import Buffers

    b = Buffers()
    x = BufferInfo("x", "global", 8, False)
    s = BufferInfo("s", "shared", 256, True)
    assert b.add(x) == 0 and b.add(s, 5) == 1 and b.add(BufferInfo("t", "local", 4, True)) == 6
    assert [b[k].name for k in range(7)] == ["x", "s", "s", "s", "s", "s", "t"]
    assert len(b) == 7 and sorted(b) == list(range(7)) and b.get(7) is None
    assert b.add(s, 0) == 7 and len(b) == 7  # a launch of no workgroups


def test_a_plain_sim_launch_refuses_shared_memory_no_gpu_allows():
    from tests.check.kernels import huge_shared

    tack.set_default_device("sim")
    out = tack.zeros(256)
    with pytest.raises(tack.TackValueError, match="227 KiB"):
        huge_shared(out, 256)
    assert (out.numpy() == 0).all()
    np.testing.assert_array_equal(out.numpy(), 0)
