"""What `tack.testing.test` does with the many kinds of subject and setting it accepts."""
import numpy as np
import pytest
import tack
import tack.testing

from . import planted


def run(subject, ref=planted.add_ref, sig="(n),(n)->(n)", **kw):
    kw.setdefault("baseline", False)
    kw.setdefault("records_dir", False)
    return tack.testing.test(subject, reference=ref, signature=sig, **kw)


def test_entry_point_is_not_collected_by_pytest():
    assert tack.testing.test.__test__ is False
    assert tack.testing.Tier.FAST.value == "fast"


def test_callable_subject_on_numpy_views_and_tack_results(device):
    rec = run(lambda x, y: np.add(x, y), tier="exhaustive", dtypes=("float64", "int32"))
    assert rec.passed and rec.kind == "callable" and rec.shapes_total == 2 * 60
    assert run(planted.add_wrapper).passed  # returns a tack.Array


def test_subject_that_raises_fails_each_case_with_the_error():
    def broken(x, y):
        raise ZeroDivisionError("no")

    rec = run(broken, tier="fast")
    assert rec.shapes_failed == rec.shapes_total == 15
    assert rec.failures[0].error == "ZeroDivisionError: no"
    assert "the subject raised ZeroDivisionError: no" in rec.failures[0].message


def test_wrong_number_of_outputs_is_a_failure():
    rec = run(lambda x: x * 2, ref=planted.center_ref, sig="(m,n)->(m,n),(m)",
              shape="7x31-contiguous")
    assert "returned 1 array(s); the signature has 2 output(s)" in rec.failures[0].message


def test_a_reference_that_fails_raises_naming_the_case():
    with pytest.raises(ZeroDivisionError) as info:
        run(planted.add, ref=lambda x, y: 1 // 0, shape="7-contiguous")
    assert "7-contiguous-float32" in str(info.value.__notes__)


def test_shape_runs_one_case_and_its_label_may_carry_the_dtype():
    rec = run(planted.add, shape="257-reversed-float64", baseline=None)
    assert rec.passed and rec.shapes_total == 1 and rec.dtypes == ["float64"]
    assert rec.cases[0].label == "257-reversed-float64" and rec.comparison is None


def test_subjects_and_references_by_file_and_name():
    path = planted.__file__
    rec = run(f"{path}::add_first_1024", ref=f"{path}::add_ref")
    assert rec.minimal_case.label == "1025-contiguous-float32"
    assert rec.name == "add_first_1024"
    with pytest.raises(tack.TackValueError, match="has no 'nothing'"):
        run(f"{path}::nothing")
    with pytest.raises(tack.TackValueError, match="module.py::name"):
        run("planted.add")


def test_repro_of_a_lambda_reference_is_its_source():
    rec = run(planted.add_first_1024, ref=lambda x, y: np.add(x, y), tier="fast")
    line = rec.minimal_case.repro
    assert "reference=lambda x, y: np.add(x, y)," in line
    again = eval(line, {"tack": tack, "np": np})
    assert not again.passed and again.shapes_total == 1


def test_repro_repeats_the_settings_that_decide_the_verdict():
    rec = run(planted.rowsum_ends_first, ref=planted.rowsum_ref, sig="(m,n)->(m)",
              op_class="reduction", fused_ops=("sum",), seed=11, name="rs")
    line = rec.minimal_case.repro
    assert "op_class='reduction'" in line and "fused_ops=('sum',)" in line
    assert "seed=11" in line and "name='rs'" in line and "shape='64x1-contiguous'" in line
    assert rec.tolerances["float32"] == [4e-3, 4e-3]
    one = run(planted.add, fused_ops="gelu", shape="7-contiguous")
    assert one.fused_ops == ["gelu"] and one.tolerances["float32"] == [2e-3, 2e-3]


def test_tolerance_override_wins():
    off_by_a_little = lambda x, y: x + y + np.float32(0.01)
    assert not run(off_by_a_little).passed
    assert run(off_by_a_little, tolerance_override=(0.02, 1e-3)).passed


def test_kernel_subject_needs_tack_dtypes():
    with pytest.raises(tack.TackValueError, match="longdouble|float128"):
        run(planted.add, dtypes=(np.longdouble,))
    assert run(lambda x, y: x + y, dtypes=("float16",)).passed


def test_progress_prints_plain_lines_without_rich(monkeypatch, capsys):
    for mod in ("rich", "rich.console", "rich.progress"):
        monkeypatch.setitem(__import__("sys").modules, mod, None)  # import now fails
    rec = run(planted.add, progress=True, tier="fast")
    err = capsys.readouterr().err
    assert "correctness [ 1/15] 1-contiguous-float32 ok" in err
    assert "correctness [15/15] 4099-reversed-float32 ok" in err
    assert err.rstrip().endswith(rec.summary())


def test_progress_with_rich(capsys):
    pytest.importorskip("rich")
    rec = run(planted.add, progress=True, shape="7-strided")
    err = capsys.readouterr().err
    assert "correctness" in err and rec.summary() in err


def test_no_progress_prints_nothing(capsys):
    run(planted.add, progress=False, shape="7-strided")
    assert capsys.readouterr() == ("", "")


def test_a_reference_with_the_wrong_outputs_is_refused():
    with pytest.raises(tack.TackValueError, match="On case 7-contiguous-float32, the reference "
                       "returned 2 array"):
        run(planted.add, ref=lambda x, y: (x, y), shape="7-contiguous")
