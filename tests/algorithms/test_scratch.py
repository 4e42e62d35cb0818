"""The table of arrays kept between calls (algorithms/_scratch.py): bounded by LIMIT arrays and
BYTES bytes per device, the least recently used evicted first, an array larger than BYTES made
for its call and not kept; and the result boxes a reduction's value is read from. The rule does
not depend on the engine, so it is checked on the CPU."""
import numpy as np
import pytest
import tack
from tack import algorithms as A
from tack.algorithms import _scratch as S

from .conftest import data

pytestmark = pytest.mark.engines("cpu",
                                 reason="the table's rule does not depend on the engine; the "
                                        "algorithms' use of it below runs on every engine")


@pytest.fixture
def table(monkeypatch):
    monkeypatch.setattr(S, "_KEPT", S.OrderedDict())
    monkeypatch.setattr(S, "BYTES", 4096)
    return S._KEPT


def test_kept_until_the_byte_bound_then_least_recently_used_first(device, table):
    a = S.kept(device, tack.f32, "a", 512)  # 2048 bytes
    b = S.kept(device, tack.f32, "b", 256)  # 1024
    assert S.kept(device, tack.f32, "a", 512) is a  # a is now the most recently used
    c = S.kept(device, tack.f32, "c", 512)  # 2048 more: b, the least recently used, goes
    assert S.kept_bytes(device) <= S.BYTES
    assert S.kept(device, tack.f32, "c", 512) is c
    assert S.kept(device, tack.f32, "b", 256) is not b  # evicted: made again
    assert S.kept_bytes(device) == 2048 + 1024


def test_an_array_above_the_bound_is_not_kept(device, table):
    big = S.kept(device, tack.u32, "big", 2048)  # 8192 bytes > BYTES
    assert big.shape == (2048,) and S.kept_bytes(device) == 0
    assert S.kept(device, tack.u32, "big", 2048) is not big


def test_the_table_holds_at_most_limit_arrays(device, table, monkeypatch):
    monkeypatch.setattr(S, "LIMIT", 4)
    made = [S.kept(device, tack.i32, i, 1) for i in range(6)]
    assert len(table) == 4 and S.kept(device, tack.i32, 5, 1) is made[5]
    assert S.kept(device, tack.i32, 0, 1) is not made[0]


@pytest.mark.engines("cpu", "sim", "cuda",
                     reason="every engine, the workgroup engines' paths keeping their arrays too "
                            "(the module's rule is checked on the CPU)")
def test_algorithms_stay_right_under_a_small_bound(device, table):
    """Work arrays evicted between (and within) calls: results unchanged (on the workgroup
    engines too, whose paths keep their arrays: the GPU paths)."""
    x = data(5003, np.int32)
    for _ in range(2):
        np.testing.assert_array_equal(A.argsort(tack.array(x)).numpy(),
                                      np.argsort(x, kind="stable"))
        f = x.astype(np.float32)
        assert tack.array(f).max() == f.max()
    assert S.kept_bytes(device) <= S.BYTES


@pytest.mark.engines("cpu", "sim", "cuda",
                     reason="every engine reads its result boxes (the module's rule is checked on "
                            "the CPU)")
def test_result_box_reads_what_a_kernel_wrote(device):
    box, read = S.result_box(device, tack.f64, "test")
    A.fill_value(box, 2.5)
    assert read() == 2.5 and S.result_box(device, tack.f64, "test")[0] is box
