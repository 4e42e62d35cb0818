"""The CUDA engine end to end: arrays, queued launches, sizes, errors, threads, inspection."""
import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
import tack

from tests.cuda import gpu
from tests.kernels.corpus import saxpy, stepped_launch

pytestmark = [*gpu.MARKS, pytest.mark.usefixtures("cuda_device")]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@tack.kernel
def spin(out, iters):
    for i in range(out.shape[0]):
        acc = i
        for k in range(iters):
            acc = acc * 1664525 + 1013904223 + k
        out[i] = acc


@tack.kernel
def fill_index(out, n):
    for i in range(n):
        out[i] = i


@tack.kernel
def write_low_byte(out, n):
    for i in range(n):
        out[i] = tack.u8(i & 255)


@tack.kernel
def nothing_but_guard(out, n):
    for i in range(n):
        if i < 0:
            out[0] = 1


@tack.kernel
def scalars(out, a, b, c, d):
    for i in range(out.shape[0]):
        out[i] = tack.f64(a) + tack.f64(b) * 1e-30 + c + d


def test_seed_transform_end_to_end():
    rng = np.random.default_rng(42)
    host_x = rng.normal(size=32).astype(np.float32)
    x = tack.array(host_x)
    out = tack.empty(host_x.shape)

    @tack.kernel
    def transform(x, out):
        for i in range(x.shape[0]):
            out[i] = sqrt(abs(x[i]))  # noqa: F821 - a kernel builtin

    transform(x, out)
    tack.sync()
    actual = out.numpy()
    np.testing.assert_allclose(actual, np.sqrt(np.abs(host_x)), rtol=2e-6, atol=1e-7)
    assert out.device.arch == "cuda" and x._ptr != 0


def test_arrays_copyto_fill_full_and_odd_shapes():
    a = tack.zeros((3, 4), tack.i32)
    assert (a.numpy() == 0).all() and a.numpy().shape == (3, 4)
    tack.copyto(a, np.arange(12).reshape(3, 4))
    np.testing.assert_array_equal(a.numpy(), np.arange(12).reshape(3, 4))
    a.fill(7)
    assert (a.numpy() == 7).all()
    f = tack.full(5, 2.5)
    np.testing.assert_array_equal(f.numpy(), np.full(5, 2.5, np.float32))
    z = tack.zeros(0)
    assert z.numpy().shape == (0,) and z._ptr == 0
    assert tack.array(np.zeros((0, 3))).numpy().shape == (0, 3)
    s = tack.array(np.float32(3.5))  # 0-d (docs/language.md, "Known corner cases")
    assert s.numpy().shape == () and s.numpy() == np.float32(3.5)
    b = tack.array(a)  # device → host → device copy
    np.testing.assert_array_equal(b.numpy(), a.numpy())


@pytest.mark.parametrize("n", [1, 31, 255, 256, 257, 1000, 65535, 65536, 1_000_003])
def test_awkward_sizes(n):
    rng = np.random.default_rng(n)
    x, y = rng.normal(size=n).astype(np.float32), rng.normal(size=n).astype(np.float32)
    out = tack.full(n + 300, -9.0)  # a tail the launch must not touch
    tx, ty = tack.array(np.r_[x, np.zeros(300, np.float32)]), tack.array(np.r_[y, np.zeros(300,
                                                                                    np.float32)])
    fill = tack.zeros(n + 300, tack.i64)
    fill_index(fill, n)
    np.testing.assert_array_equal(fill.numpy(), np.r_[np.arange(n), np.zeros(300)])

    @tack.kernel
    def saxpy_n(a, x, y, out, n):
        for i in range(n):
            out[i] = a * x[i] + y[i]

    saxpy_n(1.5, tx, ty, out, n)
    got = out.numpy()
    np.testing.assert_allclose(got[:n], 1.5 * x.astype(np.float64) + y, rtol=1e-6, atol=1e-6)
    assert (got[n:] == -9.0).all()


def test_empty_launch_runs_nothing():
    out = tack.array(np.full(4, 7, np.int64))
    stepped_launch(out, 3, 3)
    stepped_launch(out, 5, 1)
    np.testing.assert_array_equal(out.numpy(), np.full(4, 7))


def test_scalar_parameters_of_every_width():
    out = tack.zeros(3, tack.f64)
    scalars(out, 2**40 + 1, 2**63 + 5, 0.25, -3)
    expect = float(2**40 + 1) + float(2**63 + 5) * 1e-30 + 0.25 - 3
    np.testing.assert_allclose(out.numpy(), expect, rtol=1e-15)


def _spin_ref(i: int, iters: int) -> int:
    acc = i
    for k in range(iters):
        acc = (acc * 1664525 + 1013904223 + k) & 0xFFFFFFFF
    return int(np.array([acc], np.uint32).view(np.int32)[0])


def test_launches_are_queued():
    out = tack.zeros(3, tack.i32)
    spin(out, 1000)
    np.testing.assert_array_equal(out.numpy(), [_spin_ref(i, 1000) for i in range(3)])
    iters = 1 << 12
    while True:  # find a spin that takes >= 50 ms
        t0 = time.perf_counter()
        spin(out, iters)
        tack.sync()
        if time.perf_counter() - t0 >= 0.05 or iters >= 1 << 30:
            break
        iters *= 4
    t0 = time.perf_counter()
    spin(out, iters)
    t_launch = time.perf_counter() - t0
    tack.sync()
    t_total = time.perf_counter() - t0
    assert t_launch < t_total / 10, (t_launch, t_total)


def test_reading_an_array_waits_for_queued_work():
    out = tack.zeros(1 << 20, tack.i64)
    fill_index(out, 1 << 20)  # no sync: numpy() must wait
    np.testing.assert_array_equal(out.numpy(), np.arange(1 << 20))


def test_more_than_2_to_the_32_iterations_run():
    torch = gpu.optional("torch")
    n = (1 << 32) + 300
    out = tack.zeros(n, tack.u8)
    write_low_byte(out, n)
    tack.sync()
    t = torch.from_dlpack(out)
    tail = t[-600:].cpu().numpy()
    np.testing.assert_array_equal(tail, (np.arange(n - 600, n) & 255).astype(np.uint8))
    assert int(t.sum(dtype=torch.int64)) == sum(range(256)) * (n // 256) + sum(range(n % 256))
    del t, out


def test_launch_beyond_the_grid_raises_value_error(cuda_device):
    out = tack.zeros(1, tack.i32)
    nothing_but_guard(out, 10)
    plan = next(iter(nothing_but_guard._plans.values()))
    limit = next(iter(plan.variants.values())).launchable._max
    with pytest.raises(ValueError, match=r"Kernel 'nothing_but_guard': \d+ iterations exceed the "
                                         r"\d+ that one CUDA launch can index; split the work"):
        nothing_but_guard(out, limit + 1)
    assert out.numpy()[0] == 0


def test_out_of_memory_is_memory_error_and_keeps_arrays():
    keep = tack.array(np.arange(10, dtype=np.int32))
    with pytest.raises(MemoryError):
        tack.zeros(1 << 50, tack.u8)
    np.testing.assert_array_equal(keep.numpy(), np.arange(10))
    more = tack.zeros(16)  # the engine still allocates
    assert more.numpy().sum() == 0


def test_compile_failure_names_the_kernel():
    @tack.kernel
    def too_much_shared(out, n):
        for i in range(n):
            big = tack.shared(tack.f32, 70_000)  # 280 KB of shared memory: over any limit
            big[tack.thread_id()] = out[i]
            tack.barrier()
            out[i] = big[255 - tack.thread_id()]

    with pytest.raises(RuntimeError, match="too_much_shared"):
        too_much_shared(tack.zeros(256), 256)


def test_illegal_address_is_reported_at_the_next_wait(tmp_path):
    # A sticky error ruins the CUDA context, so it runs in a child process.
    code = textwrap.dedent("""
        import tack
        tack.set_default_device("cuda")

        @tack.kernel
        def wild_store(out, n):
            for i in range(n):
                out[i * 1000000000000] = 1.0

        out = tack.zeros(4)
        wild_store(out, 4)
        print("queued")
        try:
            tack.sync()
        except RuntimeError as exc:
            print("ERROR:", exc)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), ROOT]))
    script = tmp_path / "wild.py"  # a file: Tack reads kernel source with inspect
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                       timeout=120, check=False)
    assert "queued" in r.stdout, r.stderr
    assert "ERROR: Kernel 'wild_store' failed on CUDABackend" in r.stdout, r.stdout + r.stderr
    assert "ILLEGAL_ADDRESS" in r.stdout


def test_print_appears_at_the_next_wait(tmp_path):
    code = textwrap.dedent("""
        import tack
        tack.set_default_device("cuda")

        @tack.kernel
        def shout(x, n):
            for i in range(n):
                print("lane", i, "value", x[i])

        shout(tack.full(3, 1.5), 3)
        tack.sync()
        print("synced", flush=True)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), ROOT]))
    script = tmp_path / "shout.py"
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                       timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert sorted(lines[:3]) == [f"lane {i} value 1.5" for i in range(3)], r.stdout
    assert lines[3] == "synced"


def test_one_variant_from_many_threads():
    n, reps, nthreads = 4096, 40, 8
    x, y = tack.array(np.ones(n, np.float32)), tack.array(np.arange(n, dtype=np.float32))
    outs = [tack.zeros(n) for _ in range(nthreads)]
    saxpy(1.0, x, y, outs[0])  # compile once
    errors = []

    def work(k):
        try:
            for r in range(reps):
                saxpy(float(k), x, y, outs[k])
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(nthreads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k in range(nthreads):
        np.testing.assert_array_equal(outs[k].numpy(), k + np.arange(n, dtype=np.float32))


def test_inspect_source_is_ptx():
    x = tack.zeros(8)
    ptx = tack.inspect(saxpy, 2.0, x, x, tack.zeros(8), mode="source")
    assert ".visible .entry tack_saxpy(" in ptx and ".target sm_" in ptx
    with pytest.raises(ValueError, match="CPU only"):
        tack.inspect(saxpy, 2.0, x, x, tack.zeros(8), mode="optimized")


def test_arrays_of_another_device_are_rejected():
    tack.set_default_device("cpu")
    host = tack.zeros(4)
    tack.set_default_device("cuda")
    with pytest.raises(RuntimeError, match="re-create the array"):
        fill_index(host, 4)


@pytest.mark.parametrize("path", ["native", "bindings", "ctypes"])
def test_every_launch_path_runs_the_kernel(path):
    """The native trampoline (the default), cuda-bindings and ctypes calls of cuLaunchKernel
    (the engine's launch_via, from TACK_CUDA_LAUNCH) launch the same grid over the same
    parameter block."""
    n = 256 * 3 + 7
    out = tack.full(n + 5, -1, tack.i64)
    fill_index(out, 1)
    variant = next(iter(next(iter(fill_index._plans.values())).variants.values())).launchable
    variant.launch([out._ptr, n], n, path)
    np.testing.assert_array_equal(out.numpy(), np.r_[np.arange(n), np.full(5, -1)])


def test_warm_calls_on_the_prebuilt_path_follow_each_argument():
    a, b = tack.full(300, -1, tack.i64), tack.full(1030, -1, tack.i64)
    for _ in range(3):  # the prebuilt call path (call/fast.py) after the first call
        fill_index(a, 300)
        fill_index(b, 1025)
        fill_index(a, 1)
    np.testing.assert_array_equal(a.numpy(), np.arange(300))
    np.testing.assert_array_equal(b.numpy(), np.r_[np.arange(1025), np.full(5, -1)])
