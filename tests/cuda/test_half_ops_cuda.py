"""tack.ops and tack.algorithms on float16 and bfloat16 data on the CUDA engine: the tests of
tests/ops/test_half_ops.py and tests/algorithms/test_half_algorithms.py with the device set to
cuda (the workgroup kernels: block reductions, tiled matmul, tile and look-back scans). Skips
without a GPU or cuda-bindings."""
import pytest
import tack

from tests.algorithms.test_half_algorithms import (  # noqa: F401
    test_histogram_as_numpy,
    test_min_max_order_as_numpy,
    test_scans_keep_f32_running_sums,
    test_segments_accumulate_in_f32,
    test_statistics_accumulate_in_f32,
    test_sum_and_mean_accumulate_in_f32,
)
from tests.ops.test_half_ops import (  # noqa: F401
    test_attention,
    test_matmul,
    test_out_aliasing_and_tack_arrays,
    test_rowwise_and_elementwise,
)

from . import gpu

pytestmark = gpu.MARKS


@pytest.fixture
def device():
    dev = tack.set_default_device("cuda")
    yield dev
    tack.set_default_device("cpu")
