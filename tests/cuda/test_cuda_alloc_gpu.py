"""The caching allocator on a GPU (runtime/cuda/alloc.py, `tack.cuda`): temporaries reuse
blocks without driver calls, a reused block's next user is ordered after the kernels that used
it, exported memory is not reused, `empty_cache`, the bound and TACK_CUDA_CACHE=off."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tack

from tests.cuda import gpu

pytestmark = [*gpu.MARKS, pytest.mark.usefixtures("cuda_device")]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@tack.kernel
def spin_fill(out, iters):
    for i in range(out.shape[0]):
        acc = i
        for k in range(iters):
            acc = acc * 1664525 + 1013904223 + k
        out[i] = acc | 1  # never 0


@tack.kernel
def scale(x, out):
    for i in range(x.shape[0]):
        out[i] = 2.0 * x[i]


def _stats():
    return tack.cuda.memory_stats()


def test_a_temporary_reuses_the_block_of_the_last_one():
    tack.cuda.empty_cache()
    a = tack.zeros(1000)
    ptr = a._ptr
    del a
    before = _stats()
    assert before["cached_bytes"] >= 4096 and before["enabled"]
    b = tack.zeros(1000)
    after = _stats()
    assert b._ptr == ptr and after["reused"] == before["reused"] + 1
    assert after["driver_allocs"] == before["driver_allocs"]


def test_a_reused_block_waits_for_the_kernel_that_used_it():
    n = 1 << 20
    for _ in range(3):
        busy = tack.empty(n, tack.i64)
        spin_fill(busy, 20000)  # queued: still running when the array goes
        ptr = busy._ptr
        del busy
        fresh = tack.zeros(n, tack.i64)  # the same block, zeroed after the kernel on the stream
        assert fresh._ptr == ptr
        assert not fresh.numpy().any()


def test_repeated_calls_make_no_driver_allocations():
    x = tack.array(np.arange(4096, dtype=np.float32))
    for _ in range(3):
        out = tack.empty(4096)
        scale(x, out)
        del out
    before = _stats()["driver_allocs"]
    for _ in range(20):
        out = tack.empty(4096)
        scale(x, out)
        np.testing.assert_array_equal(out.numpy(), 2 * np.arange(4096, dtype=np.float32))
        del out
    assert _stats()["driver_allocs"] == before


def test_empty_cache_returns_idle_blocks():
    keep = tack.zeros(1 << 16)
    tmp = [tack.zeros(1 << 18) for _ in range(4)]
    del tmp
    assert _stats()["cached_bytes"] >= 4 << 20
    freed = tack.cuda.empty_cache()
    assert freed >= 4 << 20 and _stats()["cached_bytes"] == 0
    assert not keep.numpy().any()  # arrays keep their memory
    assert tack.cuda.empty_cache("cuda") == 0


def test_exported_memory_is_not_reused():
    cupy = gpu.optional("cupy")
    a = tack.array(np.arange(1000, dtype=np.float32))
    c = cupy.asarray(a)  # __cuda_array_interface__
    before = _stats()
    del a, c
    after = _stats()
    assert after["driver_frees"] == before["driver_frees"] + 1  # to the driver, not the lists
    assert after["cached_blocks"] == before["cached_blocks"]
    assert not tack.zeros(1000).numpy().any()


def test_dlpack_export_is_not_reused():
    torch = gpu.optional("torch")
    a = tack.array(np.arange(1000, dtype=np.float32))
    t = torch.from_dlpack(a)
    frees = _stats()["driver_frees"]
    del a, t
    assert _stats()["driver_frees"] == frees + 1


def _run(code: str, **env) -> subprocess.CompletedProcess:
    e = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), ROOT]), **env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=e, timeout=300, check=False)


def test_turned_off_and_bounded_from_the_environment():
    code = """
        import tack
        tack.set_default_device("cuda")
        for _ in range(4):
            a = tack.zeros(1 << 16)  # 256 KiB
            del a
        big = tack.zeros(1 << 20)  # 4 MiB: above a 1 MiB bound, never cached
        del big
        s = tack.cuda.memory_stats()
        print(s["enabled"], s["reused"], s["cached_bytes"], s["limit_bytes"])
    """
    off = _run(code, TACK_CUDA_CACHE="off")
    assert off.returncode == 0, off.stderr[-2000:]
    assert off.stdout.split()[:3] == ["False", "0", "0"]
    small = _run(code, TACK_CUDA_CACHE_LIMIT="1M")
    assert small.returncode == 0, small.stderr[-2000:]
    assert small.stdout.split() == ["True", "3", str(1 << 18), str(1 << 20)]
    bad = _run(code, TACK_CUDA_CACHE_LIMIT="lots")
    assert bad.returncode != 0 and "TACK_CUDA_CACHE_LIMIT" in bad.stderr


def test_layer_norm_allocates_nothing_after_the_first_call():
    x = tack.array(np.random.default_rng(0).random((64, 1024)).astype(np.float32))
    tack.ops.layer_norm(x)
    tack.sync()
    before = _stats()["driver_allocs"]
    for _ in range(10):
        y = tack.ops.layer_norm(x)
        del y
    tack.sync()
    assert _stats()["driver_allocs"] == before
