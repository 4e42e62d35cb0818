"""matmul and batched_matmul on the Hopper path (ops/matmul_wgmma.py: the warpgroup MMA, f16 and
bf16 inputs, f32 with precision="tf32"), on the simulator asked for it
(`tack.device("sim", sm=90)`) and on an sm_90 GPU: within the documented bound against float64
(testing/bounds.py, the same as the warp MMA's) over shapes that take every edge path — one
element, K = 1, primes, ragged K (a last slab of one, a k that is not a multiple of a 16-byte
chunk, so A is read from a padded copy), several slabs through the ring, several tiles, 1025
rows, batches — and non-contiguous inputs; on the simulator, bit for bit the documented order
(each product exact, added in k order with one f32 rounding, the result rounded once); the
kernel clean under tack.check over four slabs (the ring refilled), and its planted-race twin
(copies one slab further ahead than the ring allows) reported. The same for the tile whose
slabs come by tensor copies (`tma_tile_kernel`): within the bound on both engines, the
documented order's bits and clean under tack.check on the simulator."""
import numpy as np
import pytest
import tack
from tack import ops
from tack.ops import matmul_mma, matmul_wgmma

from tests.kernels import mma as K
from tests.ops.tensor_matmul import DTYPES
from tests.ops.tensor_matmul import inputs as _inputs
from tests.ops.tensor_matmul import run as _run
from tests.ops.tensor_matmul import within_bound as _within_bound

pytestmark = pytest.mark.engines("sim", "cuda",
                                 reason="the Hopper path: the simulator asked for sm_90 and an "
                                        "sm_90 GPU; the CPU engine refuses MMAs")
# (m, k, n): one element; K = 1 over two tiles each way; primes; a last slab of one (k = 65)
# with k a multiple of a chunk for none of the dtypes; four slabs (k = 200: the ring refilled);
# 1025 rows (nine row tiles); k below one chunk
SHAPES = [(1, 1, 1), (130, 1, 129), (37, 53, 41), (17, 65, 9), (20, 200, 33), (1025, 7, 3),
          (5, 4, 2), (64, 64, 136)]
BATCHED = [(3, 17, 9, 70), (2, 65, 33, 1), (2, 8, 136, 16)]


@pytest.fixture
def hopper(device):
    """The case's engine (tests/ops/conftest.py) as the Hopper path runs there: the simulator
    with the Hopper library kernels, or a CUDA GPU that is an sm_90."""
    if device.arch == "sim":
        return tack.set_default_device("sim", sm=90)
    if not device.engine.runs_wgmma():
        pytest.skip(f"{device.engine.arch} has no wgmma (an H100 or H200 runs these)")
    return device


def _is_gpu(dev) -> bool:
    return dev.arch != "sim"


@pytest.mark.parametrize("m,k,n", SHAPES, ids=str)
@pytest.mark.parametrize("name", list(DTYPES))
def test_matmul_within_the_bound(hopper, name, m, k, n):
    a, b = _inputs((m, k), (k, n), name, m * 7 + k * 3 + n)
    got = _run(a, b, name)
    want = np.float32 if name == "tf32" else DTYPES[name]
    assert np.dtype(got.dtype.np) == np.dtype(want)
    _within_bound(got, a, b, name, _is_gpu(hopper))


@pytest.mark.parametrize("z,m,k,n", BATCHED, ids=str)
@pytest.mark.parametrize("name", list(DTYPES))
def test_batched_matmul_within_the_bound(hopper, name, z, m, k, n):
    a, b = _inputs((z, m, k), (z, k, n), name, z + m * k * n)
    _within_bound(_run(a, b, name), a, b, name, _is_gpu(hopper))


@pytest.mark.parametrize("name", list(DTYPES))
def test_noncontiguous_inputs(hopper, name):
    a, b = _inputs((33, 20), (20, 17), name, 5)
    at = np.asfortranarray(a)
    wide = np.zeros((20, 34), b.dtype)
    wide[:, ::2] = b
    got = _run(at, wide[:, ::2], name)
    _within_bound(got, a, b, name, _is_gpu(hopper))
    if not _is_gpu(hopper):  # the same inputs: the same bits
        assert np.array_equal(got.numpy().view(np.uint8), _run(a, b, name).numpy().view(np.uint8))


@pytest.mark.parametrize("name", list(DTYPES))
def test_special_values_stay_where_numpy_puts_them(hopper, name):
    """An infinity in the last column of k (the ragged slab, in the padded copy of A) and a
    NaN: the padding zeros multiply only each other."""
    a, b = _inputs((5, 37), (37, 9), name, 4)
    a[2, 36], a[4, 0] = np.inf, np.nan
    b[36, 3] = 0.0  # inf * 0: NaN in C[2, 3]
    got = _run(a, b, name).numpy().astype(np.float64)
    with np.errstate(invalid="ignore"):
        want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))


@pytest.mark.engines("sim",
                     reason="the documented order bit for bit: a GPU's tensor cores are held to "
                            "the bound only")
@pytest.mark.parametrize("shape", [(5, 37, 3), (2, 17, 70, 9), (9, 200, 4)], ids=str)
@pytest.mark.parametrize("name", list(DTYPES))
def test_the_simulator_gives_the_documented_order(hopper, name, shape):
    """Bit for bit: for each element, d = 0 and d = round_f32(d + a[i, p] * b[p, j]) for p in
    order (exact rationals), TF32 operands rounded first, the result rounded once: the zeros
    past the edges, the slabs and the ring change nothing. The same bits as the warp-MMA
    kernel's."""
    *z, m, k, n = shape
    a, b = _inputs((*z, m, k), (*z, k, n), name, 3)
    got = _run(a, b, name).numpy().reshape(-1, m, n)
    ra, rb = (K.to_tf32(x) for x in (a, b)) if name == "tf32" else (a, b)
    for i, (ta, tb) in enumerate(zip(ra.reshape(-1, m, k), rb.reshape(-1, k, n))):
        want = K.reference_mma(ta, tb, np.zeros((m, n), np.float32)).astype(got.dtype)
        np.testing.assert_array_equal(got[i].view(np.uint8), want.view(np.uint8), f"batch {i}")
    with tack.device("sim"):  # sm 80: the warp-MMA kernel
        mma = _run(a, b, name).numpy().reshape(-1, m, n)
    assert np.array_equal(got.view(np.uint8), mma.view(np.uint8))


@pytest.mark.engines("sim", reason="the simulator's two paths (sm_90 or not), whose bits are the "
                     "same")
@pytest.mark.parametrize("name", list(DTYPES))
def test_the_hopper_kernels_run_where_asked(hopper, monkeypatch, name):
    """tack.device("sim", sm=90) takes the wgmma kernels for these inputs and the default
    simulator the warp-MMA ones (their bits are the same, so the bits alone do not tell)."""
    key = "tf32" if name == "tf32" else "half"
    calls = []
    kern = matmul_wgmma.KERNELS[key]
    monkeypatch.setitem(matmul_wgmma.KERNELS, key,
                        lambda *args: calls.append("wgmma") or kern(*args))
    mma, *stages = matmul_mma.KERNELS[key]
    monkeypatch.setitem(matmul_mma.KERNELS, key,
                        (lambda *args: calls.append("mma") or mma(*args), *stages))
    a, b = _inputs((3, 4), (4, 5), name, 1)
    _run(a, b, name)
    with tack.device("sim"):
        _run(a, b, name)
    assert calls == ["wgmma", "mma"]
    ops.matmul(a.astype(np.float32), b.astype(np.float32))  # "ieee" f32: the CUDA-core kernel
    assert calls == ["wgmma", "mma"]


def _check(name, m, k, n, **ring):
    a, b = _inputs((m, k), (k, n), name, 2)
    aa, ba = tack.array(a), tack.array(b)
    ap, bt, kp = matmul_wgmma.operands(aa, ba, 1, m, k, n)
    c = tack.zeros(m * n, aa.dtype)
    kern = matmul_wgmma.tile_kernel(name == "tf32", **ring) if ring else \
        matmul_wgmma.launch(ap, bt, c, 1, m, kp, n)[0]
    report = tack.check(kern, ap, bt, c, 1, m, kp, n)
    return report, a, b


@pytest.mark.engines("sim", reason="tack.check runs kernels on the simulator")
@pytest.mark.parametrize("m,k,n", [(37, 200, 20), (130, 256, 9)], ids=str)
@pytest.mark.parametrize("name", list(DTYPES))
def test_the_kernel_is_clean_under_check(hopper, name, m, k, n):
    """tack.check: every copy waited for before the wgmma reads it, no stage restaged while a
    wgmma may read it, no race between the lanes' zeros and the MMAs, no uninitialized tile
    element, whole warpgroups at every collective: over four slabs at least (tf32: seven and
    eight), so every stage of the ring is refilled, and over two tiles each way."""
    report, a, b = _check(name, m, k, n)
    report.require_clean()
    got = tack.array(report.outputs["c"].reshape(m, n))
    _within_bound(got, a, b, name, False)  # and it computed C


@pytest.mark.engines("sim", reason="tack.check runs kernels on the simulator")
@pytest.mark.parametrize("name,width,stages,ahead,shape",
                         [("bfloat16", 256, 4, 2, (37, 200, 300)), ("tf32", 256, 3, 1, (9, 70, 9)),
                          ("float16", 128, 3, 1, (20, 300, 140))], ids=str)
def test_the_other_tiles_are_clean_and_exact(hopper, name, width, stages, ahead, shape):
    """The tiles bench/ops.py compares with ops.matmul's (matmul_wgmma.tile_kernel): 256 columns
    (two tiles across n = 300), a three-stage ring one slab ahead: clean under tack.check over
    several slabs, and the documented order's bits where the reference is cheap."""
    m, k, n = shape
    report, a, b = _check(name, m, k, n, stages=stages, ahead=ahead, width=width)
    report.require_clean()
    got = report.outputs["c"].reshape(m, n)
    if m * k * n <= 6000:
        ra, rb = (K.to_tf32(x) for x in (a, b)) if name == "tf32" else (a, b)
        want = K.reference_mma(ra, rb, np.zeros((m, n), np.float32)).astype(got.dtype)
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    _within_bound(tack.array(got), a, b, name, False)


@pytest.mark.engines("sim", reason="tack.check runs kernels on the simulator")
@pytest.mark.parametrize("stages,ahead", [(4, 3), (3, 2)], ids=str)
def test_a_ring_one_slab_too_far_ahead_is_reported(hopper, stages, ahead):
    """The planted twin: copies `stages - 1` slabs ahead restage the stage whose MMAs
    `tack.wgmma_wait(1)` leaves in flight; tack.check names the write and the wgmma."""
    report, _, _ = _check("float16", 37, 300, 20, stages=stages, ahead=ahead)
    text = report.text()
    assert report.verdict == "error"
    assert "while the tack.wgmma at" in text and "may still be in flight" in text, text
    assert report.of_kind("race") and report.of_kind("pipeline"), text


@pytest.mark.parametrize("stages,ahead,width", [(4, 0, 128), (4, 4, 128), (3, 1, 192)])
def test_the_ring_refuses_a_tile_it_cannot_hold(stages, ahead, width):
    with pytest.raises(ValueError, match="ahead|wide"):
        matmul_wgmma.tile_kernel(False, stages, ahead, width)


def test_the_simulator_option_is_checked():
    with pytest.raises(tack.TackError, match="sm must be one of"):
        tack.device("sim", sm=89)
    assert tack.device("sim", sm=90) is not tack.device("sim")


@pytest.mark.engines("cuda",
                     reason="large shapes: minutes on the simulator; the shapes above cover its "
                            "paths")
@pytest.mark.parametrize("name", list(DTYPES))
@pytest.mark.parametrize("m,k,n", [(1000, 1000, 1000), (513, 4100, 257), (4096, 512, 384)],
                         ids=str)
def test_large_shapes_on_the_gpu(hopper, name, m, k, n):
    """On an H100/H200: many tiles, long k (the ring turned many times), against float64."""
    a, b = _inputs((m, k), (k, n), name, 11)
    _within_bound(_run(a, b, name), a, b, name, True)


@pytest.fixture
def tma(monkeypatch):
    """ops.matmul's Hopper kernels replaced by the tensor-copy tile (matmul_wgmma.
    tma_tile_kernel, ops.matmul's ring) for one test, as bench/ops.py's `--hopper-tiles
    128x4x2tma` does."""
    kernels = {"half": matmul_wgmma.tma_tile_kernel(False), "tf32": matmul_wgmma.tma_tile_kernel(True)}
    for key, kern in kernels.items():
        monkeypatch.setitem(matmul_wgmma.KERNELS, key, kern)
    return kernels


@pytest.mark.parametrize("shape", [(1, 1, 1), (37, 53, 41), (17, 65, 9), (5, 4, 2), (3, 17, 9, 70),
                                   (2, 65, 33, 1)], ids=str)
@pytest.mark.parametrize("name", list(DTYPES))
def test_the_tma_tile_within_the_bound(hopper, tma, name, shape):
    """The tensor-copy tile through ops.matmul: zeros past the edges from the copies
    themselves, batches read from one 2-D view (rows past m reach no stored element)."""
    *z, m, k, n = shape
    a, b = _inputs((*z, m, k), (*z, k, n), name, m * 7 + k * 3 + n)
    _within_bound(_run(a, b, name), a, b, name, _is_gpu(hopper))


@pytest.mark.engines("sim",
                     reason="the documented order bit for bit: a GPU's tensor cores are held to "
                            "the bound only")
@pytest.mark.parametrize("shape", [(5, 37, 3), (2, 17, 70, 9), (9, 200, 4)], ids=str)
@pytest.mark.parametrize("name", list(DTYPES))
def test_the_tma_tile_gives_the_documented_order(hopper, tma, name, shape):
    """Bit for bit the documented order, as `tile_kernel`'s (the same MMAs over the same
    zero-padded slabs)."""
    *z, m, k, n = shape
    a, b = _inputs((*z, m, k), (*z, k, n), name, 3)
    got = _run(a, b, name).numpy().reshape(-1, m, n)
    ra, rb = (K.to_tf32(x) for x in (a, b)) if name == "tf32" else (a, b)
    for i, (ta, tb) in enumerate(zip(ra.reshape(-1, m, k), rb.reshape(-1, k, n))):
        want = K.reference_mma(ta, tb, np.zeros((m, n), np.float32)).astype(got.dtype)
        np.testing.assert_array_equal(got[i].view(np.uint8), want.view(np.uint8), f"batch {i}")


@pytest.mark.engines("sim", reason="tack.check runs kernels on the simulator")
@pytest.mark.parametrize("name,stages,ahead,shape",
                         [("float16", 4, 2, (37, 200, 20)), ("tf32", 4, 2, (130, 256, 9)),
                          ("bfloat16", 3, 1, (20, 300, 140))], ids=str)
def test_the_tma_tile_is_clean_under_check(hopper, name, stages, ahead, shape):
    """tack.check: every slab waited for on its full barrier before a wgmma reads it, no stage
    refilled before every lane released it on its empty barrier, the byte counts those of the
    boxes: over four slabs at least (the ring refilled) and two tiles each way."""
    m, k, n = shape
    a, b = _inputs((m, k), (k, n), name, 2)
    ap, bt, kp = matmul_wgmma.operands(tack.array(a), tack.array(b), 1, m, k, n)
    c = tack.zeros(m * n, ap.dtype)
    kern = matmul_wgmma.tma_tile_kernel(name == "tf32", stages, ahead)
    report = tack.check(kern, ap.reshape(m, kp), bt.reshape(n, kp), c, 1, m, kp, n)
    report.require_clean()
    _within_bound(tack.array(report.outputs["c"].reshape(m, n)), a, b, name, False)


@pytest.mark.parametrize("stages,ahead,width", [(4, 3, 128), (3, 2, 128), (4, 0, 128),
                                                (4, 2, 64)])
def test_the_tma_ring_refuses_a_tile_it_cannot_hold(stages, ahead, width):
    """A refill one slab further ahead would wait, on lane 0, for arrivals that lane 0 makes
    later in the loop."""
    with pytest.raises(ValueError, match="ahead|wide"):
        matmul_wgmma.tma_tile_kernel(False, stages, ahead, width)
