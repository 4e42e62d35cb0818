"""tack.algorithms' workgroup steps by warp shuffles (lib.warp_reductions.warp_group_reduce,
tiles.warp_inclusive, lookback.warp_pair_scan), which CUDA and the simulator take
(`Capabilities.register_warps`), and the shared-memory steps they replace, which the Julia engine
keeps (`tack.algorithms.tuning(warps=...)` forces either): every algorithm that uses them against
NumPy and Python ints at awkward sizes (1, 31, 32, 33, primes, 256·k ± 1, strided and transposed inputs), the float
results deterministic, and `tack.check` clean on each kernel that uses them."""
import numpy as np
import pytest
import tack
from tack import algorithms as A
from tack.algorithms import _views as V
from tack.algorithms import lookback as LB
from tack.algorithms import radix as RX
from tack.algorithms import reduce as R
from tack.algorithms import scans as S
from tack.algorithms import terms as T
from tack.algorithms.settings import Tuning
from tack.algorithms.tiles import TILE, warp_inclusive
from tack.lib.warp_reductions import warp_group_reduce

from tests.algorithms.conftest import check_sum, data, gamma

pytestmark = pytest.mark.engines("sim", "cuda",
                                 reason="the engines with register warps, each step forced both "
                                        "ways; the CPU engine has no workgroups, the Julia engine "
                                        "no register warps (asserted below)")

SIZES = [1, 31, 32, 33, 257, 1025, 4093, 4097, 8191, 20011]  # primes, 256·k ± 1
STEPS = ["warps", "shared"]
CFG = Tuning()  # the look-back scan's default tuning


@pytest.fixture(params=STEPS)
def steps(request, device):
    """The warp steps, or the shared-memory ones forced on the same device."""
    with A.tuning(warps=request.param == "warps"):
        yield request.param


def test_the_steps_follow_the_capability(device):
    """CUDA and the simulator take the warp steps; the Julia engine's warps go through shared
    memory, so it keeps the shared-memory steps (docs/algorithms.md, "Paths per engine")."""
    assert V.warp_paths(tack.zeros(1))
    assert tack.device("cpu", engine="julia").capabilities.register_warps is False
    assert tack.device("cpu").capabilities.register_warps is False


def _wrapped(total: int, dtype) -> float:
    """A Python int sum as the 64-bit accumulator of `dtype` wraps it, as a float."""
    total %= 1 << 64
    if np.dtype(dtype).kind == "i" and total >= 1 << 63:
        total -= 1 << 64
    return float(total)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint32, np.int64,
                                   np.uint64])
@pytest.mark.parametrize("n", SIZES)
def test_sum_min_max(device, steps, dtype, n):
    x = data(n, dtype)
    a = tack.array(x)
    if np.dtype(dtype).kind == "f":
        check_sum(a.sum(), x, dtype)
        bits = [tack.array(x).sum() for _ in range(2)]
        assert np.float64(bits[0]).tobytes() == np.float64(bits[1]).tobytes()
    else:
        assert a.sum() == _wrapped(sum(int(v) for v in x), dtype)
    assert a.min() == float(x.min()) and a.max() == float(x.max())


@pytest.mark.parametrize("n", [257, 4097])
def test_strided_and_transposed_inputs(device, steps, n):
    """Inputs that NumPy holds strided or in Fortran order reduce as their values."""
    base = data(3 * n, np.float32)
    strided = base[::3]
    check_sum(tack.array(strided).sum(), strided, np.float32)
    assert tack.array(strided).min() == strided.min()
    square = data(n, np.int32)[: (n // 16) * 16].reshape(16, -1).T
    assert tack.array(square).sum() == float(square.astype(np.int64).sum())
    assert tack.array(square).max() == square.max()


@pytest.mark.parametrize("n", [33, 1025, 20011])
def test_signed_zeros_and_nan(device, steps, n):
    """min/max through the warp butterflies keep the array rules: -0.0 is the minimum of the
    zeros, 0.0 the maximum, a NaN anywhere gives NaN."""
    x = np.zeros(n, np.float32)
    x[n // 2] = -0.0
    a = tack.array(x)
    assert np.signbit(a.min()) and not np.signbit(a.max())
    x[n - 1] = np.nan
    assert np.isnan(tack.array(x).min()) and np.isnan(tack.array(x).max())


@pytest.mark.parametrize("n", SIZES)
def test_statistics(device, steps, n):
    """The map-reduce terms (terms.term_groups), mean, absmax and a histogram's range
    (reduce.min_max): exact on small integers, within the sum bound on floats."""
    k = (data(n, np.int32) % 1000).astype(np.int32)
    assert A.count_nonzero(tack.array(k)) == int(np.count_nonzero(k))
    assert A.norm(tack.array(k), 1) == float(np.abs(k.astype(np.int64)).sum())
    x = data(n, np.float32)
    check_sum(A.norm(tack.array(x), 1), np.abs(x), np.float32)
    check_sum(A.dot(tack.array(k), tack.array(k)), k.astype(np.float64) ** 2, np.float32)
    check_sum(tack.array(x).mean() * n, x, np.float32)
    assert A.absmax(tack.array(x)) == float(np.abs(x).max())
    counts, edges = A.histogram(tack.array(k), bins=7)  # its range: minmax_groups
    want, want_edges = np.histogram(k, bins=7)
    np.testing.assert_array_equal(counts.numpy(), want)
    np.testing.assert_array_equal(edges, want_edges)
    var = float(np.var(x.astype(np.float64)))
    assert abs(A.var(tack.array(x)) - var) <= 4 * gamma(n, np.float32) * float(
        (x.astype(np.float64) ** 2).sum()) / n + 1e-30


@pytest.mark.parametrize("look_back", [False, True])
@pytest.mark.parametrize("n", SIZES)
def test_integer_scans(device, steps, look_back, n):
    # blocks of 2 tiles: several blocks at 20011
    with A.tuning(scan="look_back" if look_back else "two_pass", window=2):
        _integer_scans(n)


def _integer_scans(n):
    x = data(n, np.int32)
    d = tack.zeros(n, tack.i32)
    assert A.inclusive_scan(tack.array(x), d) == int(np.sum(x, dtype=np.int32))
    np.testing.assert_array_equal(d.numpy(), np.cumsum(x, dtype=np.int32))
    e = tack.zeros(n, tack.u32)
    u = x.view(np.uint32)
    A.exclusive_scan(tack.array(u), e)
    want = np.zeros(n, np.uint32)
    want[1:] = np.cumsum(u, dtype=np.uint32)[:-1]
    np.testing.assert_array_equal(e.numpy(), want)


@pytest.mark.parametrize("look_back", [False, True])
@pytest.mark.parametrize("n", [33, 4097, 20011])
def test_float_scans(device, steps, look_back, n):
    """f32 prefixes within γ_k Σ|x| of the exact ones (float64 prefixes of float32 values are
    exact to far below that), the same bits on every call."""
    with A.tuning(scan="look_back" if look_back else "two_pass", window=2):
        _float_scans(n)


def _float_scans(n):
    x = data(n, np.float32)
    d = [tack.zeros(n) for _ in range(2)]
    for out in d:
        A.inclusive_scan(tack.array(x), out)
    got = d[0].numpy()
    np.testing.assert_array_equal(got.view(np.uint32), d[1].numpy().view(np.uint32))
    exact = np.cumsum(x.astype(np.float64))
    k = np.arange(1, n + 1)
    bound = k * 2.0 ** -24 / (1 - k * 2.0 ** -24) * np.cumsum(np.abs(x.astype(np.float64)))
    assert (np.abs(got - exact) <= bound).all()


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
@pytest.mark.parametrize("n", [1, 33, 2047, 2049, 20011])
def test_sorts(device, steps, dtype, n):
    """The radix passes (their lane totals scanned by `scan`): NumPy's stable order."""
    x = data(n, dtype)
    np.testing.assert_array_equal(A.argsort(tack.array(x)).numpy(), np.argsort(x, kind="stable"))
    few = (data(n, np.int64, 3) % 5).astype(dtype)  # long runs of equal keys
    s, p = A.sort(tack.array(few))
    order = np.argsort(few, kind="stable")
    np.testing.assert_array_equal(p.numpy(), order)
    np.testing.assert_array_equal(s.numpy(), few[order])


@pytest.mark.engines("sim", reason="tack.check runs kernels on the simulator")
def test_check_is_clean_on_the_warp_kernels(device):
    """tack.check (races, barriers, divergent collectives) on every kernel that takes a warp
    step, with several workgroups and look-back blocks."""
    n = 20011
    x = tack.array(data(n, np.float32))
    g = -(-n // 256)
    tree = warp_group_reduce
    runs = {
        "reduce_groups": (R.reduce_groups, x, tack.zeros(g), n, *R.GROUP_STEPS["min"], tree),
        "minmax_groups": (R.minmax_groups, x, tack.zeros(g), tack.zeros(g), n, tree),
        "term_groups": (T.term_groups, x, x, tack.zeros(g), n, 0.0, T.TERMS["square"], tree),
    }
    tiles = -(-n // TILE)
    part = tack.zeros(tiles)
    runs["tile_totals"] = (S.tile_totals, x, tack.zeros(n), part, n, tree)
    runs["tile_scan"] = (S.tile_scan, x, tack.zeros(n), part, n, 1, warp_inclusive)
    lt = -(-n // (TILE * CFG.sub))
    words = tack.zeros(LB.layout(lt, 2)[0], tack.u64)
    runs["scan_lookback"] = (LB.scan_kernel("f32", CFG.sub, CFG.lean), x, tack.zeros(n), words, n,
                             lt, 0, 2, CFG.patience, 1, warp_inclusive, LB.warp_pair_scan)
    keys = tack.array(data(n, np.int32).view(np.uint32))
    groups = -(-n // (8 * RX.STILE))
    hist = tack.zeros(256 * 8 * groups, tack.i32)
    okeys, low = tack.zeros(n, tack.u32), tack.zeros(1, tack.u32)
    RX.radix_counts(keys, okeys, low, hist, n, 0, groups)
    A.exclusive_scan(hist, hist)
    runs["radix_scatter"] = (RX.radix_scatter, keys, low, tack.zeros(n, tack.i32), okeys,
                             tack.zeros(n, tack.i32), okeys, low, hist, n, 0, groups, 1, 1,
                             warp_inclusive)
    for name, (kernel, *args) in runs.items():
        report = tack.check(kernel, *args)
        assert report.verdict == "clean", (name, report)
