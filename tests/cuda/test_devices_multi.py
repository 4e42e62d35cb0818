"""Two GPUs in one process: kernels on each device, `a.to` between them,
peer-to-peer copies and their bandwidth, the two-device rejection, `tack.sync(d)` per device,
and concurrent launches on both devices from two threads. Skipped with fewer than two GPUs.

    TACK_TEST_DEVICES=cuda:0,cuda:1 python -m pytest -q tests/cuda/test_devices_multi.py -s
"""
import os
import threading
import time

import numpy as np
import pytest
import tack

from tests.cuda import gpu


def _pair():
    names = os.environ.get("TACK_TEST_DEVICES", "cuda:0,cuda:1").split(",")
    if gpu.unavailable() is not None:
        return None, gpu.unavailable()
    present = {d.name for d in tack.devices()} | {f"{d.arch}:{d.index}" for d in tack.devices()}
    missing = [n for n in names if n not in present]
    if len(names) < 2 or missing:
        return None, f"needs two GPUs ({', '.join(names)}); missing: {', '.join(missing)}"
    return tuple(tack.device(n) for n in names[:2]), None


PAIR, WHY = _pair()
pytestmark = [pytest.mark.cuda, pytest.mark.skipif(PAIR is None, reason=str(WHY))]


@tack.kernel
def scale(x, out, k):
    for i in range(x.shape[0]):
        out[i] = x[i] * k


@tack.kernel
def spin(out, iters):
    for i in range(out.shape[0]):
        acc = 0.0
        for _ in range(iters):
            acc = acc * 0.5 + 1.0
        out[i] = acc


def test_kernels_run_on_each_device():
    for k, d in enumerate(PAIR):
        x = tack.array(np.arange(4096, dtype=np.float32), device=d)
        out = tack.zeros(4096, device=d)
        scale(x, out, float(k + 2))
        scale(x, out, float(k + 2))
        tack.sync(d)
        np.testing.assert_array_equal(out.numpy(), np.arange(4096) * (k + 2))
        assert d.engine.index == d.index


def test_to_moves_arrays_between_devices():
    a, b = PAIR
    host = np.random.default_rng(0).random(1 << 20).astype(np.float32)
    x = tack.array(host, device=a)
    y = x.to(b)
    assert y.device is b
    np.testing.assert_array_equal(y.numpy(), host)
    np.testing.assert_array_equal(y.to(a).numpy(), host)


def test_peer_copy_bandwidth():
    from tack.runtime.cuda.devices import enable_peer

    a, b = PAIR
    peer = enable_peer(b.engine, a.engine)
    x = tack.zeros(1 << 28, tack.u8, device=a)  # 256 MiB
    x.to(b)  # the first copy enables peer access and warms up
    tack.sync()
    reps = 5
    t = time.perf_counter()
    for _ in range(reps):
        x.to(b)
    tack.sync(b)
    gbs = reps * x.nbytes / (time.perf_counter() - t) / 1e9
    print(f"\n{a.name} -> {b.name}: {gbs:.1f} GB/s over {reps} copies of 256 MiB "
          f"(peer access {'on' if peer else 'off: staged through the host'})")
    assert gbs > 1.0


def test_arguments_on_two_gpus_are_refused_before_launch():
    a, b = PAIR
    x, out = tack.ones(8, device=a), tack.zeros(8, device=b)
    with pytest.raises(ValueError, match=rf"{a.name}.*{b.name}|{b.name}.*{a.name}"):
        scale(x, out, 2.0)
    assert out.numpy().tolist() == [0.0] * 8


def test_sync_waits_for_one_device():
    a, b = PAIR
    outs = [tack.zeros(1 << 16, device=d) for d in PAIR]
    spin(outs[0], 20000)
    tack.sync(a)
    spin(outs[1], 10)
    tack.sync(b)
    tack.sync()
    assert outs[0][0] == pytest.approx(2.0) and outs[1][0] == pytest.approx(2.0, rel=1e-2)


def test_concurrent_launches_from_two_threads():
    results, errors = {}, []

    def work(d):
        try:
            x = tack.array(np.arange(1 << 20, dtype=np.float32), device=d)
            out = tack.zeros(1 << 20, device=d)
            for _ in range(50):
                scale(x, out, 3.0)
            tack.sync(d)
            results[d.name] = out.numpy()
        except Exception as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(d,)) for d in PAIR]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for got in results.values():
        np.testing.assert_array_equal(got, np.arange(1 << 20) * 3.0)


def test_a_peer_copys_source_block_is_reused_only_after_the_copy():
    """`y = x.to(b)` reads x on b's stream; x's block, cached when x goes, is zeroed by a's
    next array only after that read (the caching allocator, runtime/cuda/alloc.py)."""
    a, b = PAIR
    host = np.random.default_rng(1).random(1 << 24).astype(np.float32)  # 64 MiB
    for _ in range(3):
        x = tack.array(host, device=a)
        y = x.to(b)
        ptr = x._ptr
        del x
        z = tack.zeros(host.shape, device=a)  # x's block, zeroed on a's stream
        assert z._ptr == ptr
        np.testing.assert_array_equal(y.numpy(), host)
        assert not z.numpy().any()
