"""The register-blocked CPU matmul (tack/ops/matmul_cpu.py): every way a 6 x 16 tile can meet
the matrix's edges, batches, a reused output, against the definition."""
import numpy as np
import pytest
import tack
from tack import ops
from tack.ops import matmul_cpu

from tests.ops import refs

# full tiles only, overhanging rows, columns, both, a single partial tile, long k
SIZES = [(12, 5, 32), (13, 5, 32), (12, 5, 33), (7, 9, 17), (5, 3, 15), (1, 1, 16),
         (6, 300, 16), (37, 64, 50)]


@pytest.mark.parametrize("m,k,n", SIZES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: d.__name__)
def test_tiles_and_edges(m, k, n, dtype):
    tack.set_default_device("cpu")
    a, b = refs.rand((m, k), dtype, 3, 1.0), refs.rand((k, n), dtype, 4, 1.0)
    refs.close(ops.matmul(a, b), refs.matmul(a, b), dtype, scale=max(1, k / 8))


def test_batches_with_edges_and_a_reused_output():
    tack.set_default_device("cpu")
    a = refs.rand((3, 13, 7), np.float32, 5, 1.0)
    b = refs.rand((3, 7, 35), np.float32, 6, 1.0)
    out = tack.full((3, 13, 35), 7.0, tack.f32)  # every element is overwritten
    ops.batched_matmul(a, b, out=out)
    refs.close(out, refs.matmul(a, b), np.float32, scale=1)


def test_edge_tile_counts():
    assert matmul_cpu.edge_tiles(12, 32) == (0, 0)
    assert matmul_cpu.edge_tiles(13, 32) == (2, 0)  # the bottom strip: both panels
    assert matmul_cpu.edge_tiles(13, 33) == (3, 2)  # and the right strip above it
    assert matmul_cpu.panel_size(2, 5, 17) == 2 * 2 * 5 * 16
