"""Planted bugs: each is caught by FAST with the minimal case it predicts, the repro line of that
case fails when run alone, and the fixed twin passes."""
import numpy as np
import pytest
import tack
import tack.testing

from . import planted

# bug, fixed twin, reference, signature, op_class, the minimal failing case FAST must report
PLANTED = [
    ("add_first_1024", "add", planted.add_ref, "(n),(n)->(n)", None,
     "1025-contiguous-float32"),
    ("double_tiled_no_tail", "double_tiled", planted.double_ref, "(n)->(n)", None,
     "1-contiguous-float32"),
    ("add2d_swapped", "add2d", planted.add_ref, "(m,n),(m,n)->(m,n)", None,
     "64x1-contiguous-float32"),
    ("rowsum_ends_first", "rowsum", planted.rowsum_ref, "(m,n)->(m)", "reduction",
     "64x1-contiguous-float32"),
    ("add_ignoring_strides", "add_wrapper", planted.add_ref, "(n),(n)->(n)", None,
     "31-strided-float32"),
    ("center_saves_sum", "center", planted.center_ref, "(m,n)->(m,n),(m)", "reduction",
     "1x64-contiguous-float32"),
    ("double2d_skips_last_row", "double2d", planted.double_ref, "(m,n)->(m,n)", None,
     "1x64-contiguous-float32"),
]
IDS = [p[0] for p in PLANTED]
pytestmark = pytest.mark.engines("cpu", "sim", "cuda",
                                 reason="not julia: about 12 s of Julia kernels there (each "
                                        "planted bug and its twin at every shape); test_driver.py "
                                        "and test_timing.py run the harness on the Julia engine")


def check(subject, ref, sig, op_class, **kw):
    return tack.testing.test(subject, reference=ref, signature=sig, op_class=op_class,
                             baseline=False, **kw)


@pytest.fixture(scope="module")
def caught(device):
    """Each planted bug's FAST record on the device, computed once."""
    return {bug: check(getattr(planted, bug), ref, sig, op) for bug, _, ref, sig, op, _ in PLANTED}


@pytest.mark.parametrize("bug,fixed,ref,sig,op_class,minimal", PLANTED, ids=IDS)
def test_fast_catches_the_bug_with_its_minimal_case(caught, bug, fixed, ref, sig, op_class,
                                                    minimal):
    rec = caught[bug]
    assert not rec.passed and rec.comparison is None
    assert rec.minimal_case.label == minimal, rec.summary()
    assert 0 < rec.shapes_failed == len(rec.failures) <= rec.shapes_total
    passed = rec.shapes_total - rec.shapes_failed
    assert rec.summary().startswith(f"FAIL {bug}: {passed}/{rec.shapes_total} shapes passed; "
                                    f"minimal failing case: {minimal} seed=0")
    # The reported case is the smallest of those that failed, never a searched one.
    sizes = {f.label: int(np.prod(list(f.dims.values()))) for f in rec.failures}
    assert minimal in sizes and sizes[minimal] == min(sizes.values())


@pytest.mark.parametrize("bug,fixed,ref,sig,op_class,minimal", PLANTED, ids=IDS)
def test_the_repro_line_fails_alone(caught, bug, fixed, ref, sig, op_class, minimal):
    line = caught[bug].minimal_case.repro
    assert line.startswith("tack.testing.test(") and "\n" not in line
    assert "planted.py::" + bug in line
    again = eval(line, {"tack": tack})
    assert again.shapes_total == 1 and again.shapes_failed == 1
    assert again.minimal_case.label == minimal


@pytest.mark.parametrize("bug,fixed,ref,sig,op_class,minimal", PLANTED, ids=IDS)
def test_the_fixed_twin_passes(device, bug, fixed, ref, sig, op_class, minimal):
    rec = check(getattr(planted, fixed), ref, sig, op_class)
    assert rec.passed, rec.summary() + "\n" + "\n".join(f.message for f in rec.failures[:3])
    assert rec.shapes_failed == 0 and rec.minimal_case is None and rec.failures == []


def test_tail_bug_fails_exactly_the_lengths_that_are_not_multiples_of_64(caught):
    rec = caught["double_tiled_no_tail"]
    failing = {f.dims["n"] for f in rec.failures}
    passing = {c.label.split("-")[0] for c in rec.cases if c.passed}
    assert all(n % 64 for n in failing) and {"256", "1024"} <= passing


def test_swapped_kernel_passes_when_square(device):
    rec = check(planted.add2d_swapped, planted.add_ref, "(m,n),(m,n)->(m,n)", None,
                shape="256x256-contiguous")
    assert rec.passed and rec.shapes_total == 1
    assert all(f.dims["m"] != f.dims["n"] for f in
               check(planted.add2d_swapped, planted.add_ref, "(m,n),(m,n)->(m,n)",
                     None).failures)


def test_dimension_one_bug_fails_only_with_one_column(caught):
    rec = caught["rowsum_ends_first"]
    assert rec.failures and all(f.dims["n"] == 1 for f in rec.failures)


def test_stride_bug_fails_only_on_views(caught):
    rec = caught["add_ignoring_strides"]
    assert {f.layout for f in rec.failures} == {"strided", "reversed"}
    assert all(c.passed for c in rec.cases if "-contiguous-" in c.label)


def test_multi_output_names_the_wrong_output(caught):
    rec = caught["center_saves_sum"]
    for f in rec.failures:
        assert [m.output for m in f.mismatches] == [1]
        assert f.message.startswith("output 1: ")
    assert all(f.dims["n"] > 1 for f in rec.failures)  # with one column the sum is the mean


def test_unwritten_last_row_is_caught_by_the_nan_fill(caught):
    rec = caught["double2d_skips_last_row"]
    assert rec.shapes_failed == rec.shapes_total
    for f in rec.failures:
        (m,) = f.mismatches
        assert m.unwritten == m.count == f.dims["n"], f.message
        assert "never written" in f.message and m.examples[0]["actual"] == "nan"


def test_unwritten_integers_are_caught_by_the_sentinel(device):
    rec = check(planted.double2d_skips_last_row, planted.double_ref, "(m,n)->(m,n)", None,
                dtypes=("int32",), shape="7x31-contiguous")
    (f,) = rec.failures
    assert f.mismatches[0].unwritten == 31
    assert f.mismatches[0].examples[0]["actual"] == np.iinfo(np.int32).min
    assert check(planted.double2d, planted.double_ref, "(m,n)->(m,n)", None,
                 dtypes=("int32", "uint8")).passed
