"""The scans' GPU paths on the simulator engine, a workgroup engine on the CPU
(docs/design/008-simulator.md), checked in CI without a GPU: the single-pass look-back scan
(its window, blocks and payload) and the two-pass scan's recursion on its tile totals.
test_reductions and test_scans run on the simulator through their `device` fixture (the eight
loads in flight per lane, the one-group final pass, the shared-memory tile scans)."""
import numpy as np
import pytest
import tack
from tack import algorithms as A
from tack.algorithms import lookback, scans

from tests.algorithms.conftest import check_sum, data

pytestmark = pytest.mark.engines("sim",
                                 reason="the GPU's scan paths on the simulator, in CI without a "
                                        "GPU; tests/cuda/test_algorithms_cuda.py runs them on a "
                                        "GPU")


@pytest.mark.parametrize("n", [4096 * 257 + 3])
@pytest.mark.sim_scans  # each of the two GPU scans
def test_scan_recursing_on_tile_totals(device, n):
    """More tile totals than a workgroup: they are scanned by the tile scan too (the two-pass
    path: an i64 dst has no 32-bit payload for the look-back)."""
    k = (data(n, np.int32) % 1000).astype(np.int32)
    d = tack.zeros(n, tack.i64)
    assert A.inclusive_scan(tack.array(k), d, n) == int(k.sum(dtype=np.int64))
    np.testing.assert_array_equal(d.numpy(), np.cumsum(k, dtype=np.int64))


@pytest.mark.parametrize("n", [4097, 40961])
@pytest.mark.sim_scans  # each of the two GPU scans
def test_look_back_scan_is_deterministic(device, n):
    """f32 scans take the single-pass look-back: the same bits on every run, within the bound."""
    x = data(n, np.float32)
    d1, d2 = tack.zeros(n, tack.f32), tack.zeros(n, tack.f32)
    t1 = A.inclusive_scan(tack.array(x), d1, n)
    assert A.inclusive_scan(tack.array(x), d2, n) == t1
    np.testing.assert_array_equal(d1.numpy(), d2.numpy())
    check_sum(t1, x, np.float32)


@tack.kernel
def _roundtrip(x, bits, back):
    for i in range(x.shape[0]):
        w = lookback.f32_bits(x, x[i])
        bits[i] = w
        back[i] = lookback.f32_value(x, w)


@pytest.mark.engines("cpu", "sim",
                     reason="the payload's arithmetic in a kernel of its own, the same on any "
                            "engine; tests/cuda/test_algorithms_cuda.py compares a GPU's look-back"
                            " bits with the simulator's")
def test_f32_payload_is_the_bit_pattern(device):
    """The look-back publishes f32 values by their IEEE bits, computed with exact scalings:
    specials, subnormals and random patterns (NaN excepted: any NaN becomes the quiet NaN)."""
    rng = np.random.default_rng(0)
    special = [0.0, -0.0, np.inf, -np.inf, 1.0, -1.5, 3.4028235e38, 1.1754944e-38,
               1.1754942e-38, 1e-45, -1e-45, 5.877472e-39]
    v = np.concatenate([np.array(special, np.float32), rng.integers(
        0, 2 ** 32, 20000, dtype=np.uint64).astype(np.uint32).view(np.float32)])
    v = np.append(v[~np.isnan(v)], np.float32("nan"))
    bits, back = tack.zeros(len(v), tack.u64), tack.zeros(len(v), tack.f32)
    _roundtrip(tack.array(v), bits, back)
    want = v.view(np.uint32).astype(np.uint64)
    want[-1] = 0x7FC00000
    np.testing.assert_array_equal(bits.numpy(), want)
    np.testing.assert_array_equal(back.numpy()[:-1].view(np.uint32), v[:-1].view(np.uint32))
    assert np.isnan(back.numpy()[-1])


@pytest.mark.parametrize("window", [1, 256])
@pytest.mark.sim_scans  # each of the two GPU scans
def test_look_back_window(device, window):
    """The look-back reads `window` predecessors at once: the narrowest and the widest window
    give the same bits (a fixed left fold of the tile totals)."""
    n = 5 * 4096 + 7
    k = (data(n, np.int32) % 1000).astype(np.int32)
    d = tack.zeros(n, tack.i32)
    with A.tuning(window=window):
        assert A.inclusive_scan(tack.array(k), d, n) == int(k.sum())
    np.testing.assert_array_equal(d.numpy(), np.cumsum(k, dtype=np.int32))


def test_the_device_chooses_the_gpu_scan():
    """Unforced, the single pass runs where workgroups run concurrently in device memory (CUDA,
    not the simulator's lockstep on the host) and only for dtypes that fit its 32-bit payload."""
    cuda, sim = tack.device("cuda"), tack.device("cpu", engine="sim")
    assert scans._look_back(cuda, tack.f32) and scans._look_back(cuda, tack.u8)
    assert not scans._look_back(cuda, tack.i64) and not scans._look_back(cuda, tack.f64)
    assert not scans._look_back(sim, tack.f32)
    with A.tuning(scan="look_back"):
        assert scans._look_back(sim, tack.i32) and not scans._look_back(sim, tack.f64)
    with A.tuning(scan="two_pass"):
        assert not scans._look_back(cuda, tack.f32)


@pytest.mark.parametrize("span,sub", [(1, 1), (2, 2), (3, 4), (16, 2)])
def test_look_back_configurations(span, sub):
    """Blocks of 1, 2, 3 and 16 tiles of 1, 2 or 4 sub-tiles (several blocks: the simulator's
    lockstep takes the bounded polls and lane 0's own block sums): integers exact, and f32 the
    same bits with or without tickets and with the write unrolled or a loop (the same sums)."""
    n = 9 * 4096 * sub + 5
    k = (data(n, np.int32) % 1000).astype(np.int32)
    x = data(n, np.float32)
    forced = A.tuning(scan="look_back", window=span, sub=sub, patience=8)
    with tack.device("sim"), forced:
        d = tack.zeros(n, tack.i32)
        assert A.exclusive_scan(tack.array(k), d, n) == int(k.sum())
        np.testing.assert_array_equal(d.numpy()[1:], np.cumsum(k, dtype=np.int32)[:-1])
        got = []
        for tickets, lean in ((True, False), (False, True)):
            with A.tuning(tickets=tickets, lean=lean):
                f = tack.zeros(n, tack.f32)
                got.append((A.inclusive_scan(tack.array(x), f, n), f.numpy().view(np.uint32)))
    assert got[0][0] == got[1][0]
    np.testing.assert_array_equal(got[0][1], got[1][1])
    check_sum(got[0][0], x, np.float32)
