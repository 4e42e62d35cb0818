"""The sort on the simulator, a workgroup engine on the CPU (docs/design/008-simulator.md): the
radix passes of algorithms/radix.py (tiles ranked in shared memory in two 4-bit steps, digit
counts of 8 tiles per workgroup, a stable scatter) checked in CI without a GPU, against NumPy's
stable argsort, at sizes around the tile (2048 keys) and the 8-tile counting group."""
import numpy as np
import pytest
import tack
from tack import algorithms as A

from tests.algorithms.conftest import KEYS, check_sort, data

pytestmark = pytest.mark.engines("sim",
                                 reason="the radix passes at sizes the simulator runs quickly, in "
                                        "CI without a GPU (the tests below add a GPU); "
                                        "tests/algorithms/test_sort_segments.py runs the sort's "
                                        "API on every engine")


@pytest.mark.parametrize("dtype", KEYS)
@pytest.mark.parametrize("n", [0, 1, 2, 257, 2049])
def test_argsort_is_numpy_stable(device, dtype, n):
    """test_sort_segments' test at the sizes the simulator runs quickly."""
    x = data(n, dtype)
    p = A.argsort(tack.array(x))
    assert p.dtype == tack.i32
    np.testing.assert_array_equal(p.numpy(), np.argsort(x, kind="stable"))


@pytest.mark.parametrize("n", [2047, 2048, 8 * 2048 + 1])
@pytest.mark.engines("sim", "cuda",
                     reason="the workgroup radix passes, on a GPU too; the CPU engine's sort is "
                            "test_sort_segments.py's")
def test_argsort_around_tiles(device, n):
    x = data(n, np.int32)
    np.testing.assert_array_equal(A.argsort(tack.array(x)).numpy(), np.argsort(x, kind="stable"))


@pytest.mark.parametrize("n", [2049, 20011])
@pytest.mark.engines("sim", "cuda",
                     reason="the workgroup radix passes, on a GPU too; the CPU engine's sort is "
                            "test_sort_segments.py's")
def test_argsort_many_equal_keys(device, n):
    """Few distinct keys: long runs of one digit within a tile keep their input order, and the
    tile's padding (keys of all ones) stays behind real keys of the top digit."""
    x = np.where(data(n, np.int32) % 3 == 0, 2 ** 31 - 1, data(n, np.int32, 5) % 4).astype(np.int32)
    np.testing.assert_array_equal(A.argsort(tack.array(x)).numpy(), np.argsort(x, kind="stable"))


@pytest.mark.engines("sim", "cuda",
                     reason="the workgroup radix passes, on a GPU too; the CPU engine's sort is "
                            "test_sort_segments.py's")
@pytest.mark.parametrize("dtype", KEYS)
def test_sort_with_keys_converted_after_the_passes(device, monkeypatch, dtype):
    """sort's other path (sorting.FUSED_KEYS off): the last pass writes offsets, a kernel adds
    the minimum back; the keys and the stable permutation as NumPy's."""
    from tack.algorithms import sorting

    monkeypatch.setattr(sorting, "FUSED_KEYS", False)
    check_sort(dtype, 2049)
