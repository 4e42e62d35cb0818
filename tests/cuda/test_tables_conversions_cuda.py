"""On the GPU: the constant-table tests of tests/exec/test_const_tables.py (tables are `.global`
data read with `ld.global.nc`), the float → integer conversion tests of
tests/exec/test_float_to_int.py (saturating, as on every engine) and the sequential loops of
tests/exec/test_seq_ndrange.py, with CUDA as the default device, against the same expected
values; debug mode's IndexError and tack.check's finding on device arrays."""
import pytest
import tack

from tests.cuda import gpu
from tests.exec import test_const_tables as T
from tests.exec import test_float_to_int as F

pytestmark = [*gpu.MARKS, pytest.mark.usefixtures("cuda_device")]


@pytest.mark.parametrize("test", [
    T.test_marching_squares_case_table,
    T.test_marching_cubes_edge_table_256,
    T.test_float_tables_weak_and_typed,
    T.test_table_index_outside_reads_the_last_entry,
    T.test_table_in_device_function,
    T.test_table_len_and_loop_over_a_table,
    T.test_table_len_as_launch_bound,
    T.test_table_index_outside_is_index_error_in_debug_mode,
], ids=lambda f: f.__name__.removeprefix("test_"))
def test_tables_on_cuda(test):
    test(None)


def test_table_check_on_cuda_arrays():
    T.test_table_index_outside_is_a_check_finding()


def test_float_to_int_saturates_on_cuda():
    F.test_float_to_int_stores_and_casts_saturate(None)
    F.test_float_to_int_constant_folding_agrees(None)


def test_sequential_ndrange_and_object_loops_on_cuda():
    from tests.exec import test_seq_ndrange as sn

    sn.test_sequential_ndrange_and_object_loops()
    sn.test_sequential_ndrange_target_mismatch()
