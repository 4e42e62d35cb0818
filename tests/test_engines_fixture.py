"""The `engines` marker (tests/engines.py `marked`): the closest marker's engines are the test's,
and a marker that does not say why, or that names an engine Tack does not have, is refused with
the test's id."""
import os
import subprocess
import sys

import pytest

from tests import engines

ID = "tests/x.py::test_y"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mark(*names, **kwargs):
    return pytest.mark.engines(*names, **kwargs).mark


def test_the_closest_marker_names_the_engines():
    test = mark("sim", reason="the simulator's workgroup path")
    module = mark("cpu", "cuda", reason="the big shapes")
    assert engines.marked(ID, [test, module]) == ("sim",)
    assert engines.marked(ID, [module]) == ("cpu", "cuda")
    assert engines.marked(ID, [], default=("cpu",)) == ("cpu",)


@pytest.mark.parametrize("kwargs", [{}, {"reason": ""}, {"reason": "  "}, {"reason": None}])
def test_a_marker_without_a_reason_is_refused(kwargs):
    with pytest.raises(pytest.UsageError, match=r"tests/x\.py::test_y: .*'cpu'.* has no reason"):
        engines.marked(ID, [mark("cpu", **kwargs)])


def test_a_module_marker_without_a_reason_is_refused_under_a_test_marker():
    with pytest.raises(pytest.UsageError, match="has no reason"):
        engines.marked(ID, [mark("sim", reason="the simulator's paths"), mark("cpu", "cuda")])


def test_an_unknown_engine_is_refused():
    with pytest.raises(pytest.UsageError, match=r"tests/x\.py::test_y: .* names unknown "
                                                r"engine\(s\) 'gpu'; the engines are cpu, sim"):
        engines.marked(ID, [mark("cpu", "gpu", reason="a typo")])


def test_a_marker_naming_no_engine_or_another_keyword_is_refused():
    with pytest.raises(pytest.UsageError, match="names no engine"):
        engines.marked(ID, [mark(reason="no engine")])
    with pytest.raises(pytest.UsageError, match="unknown keyword.*because"):
        engines.marked(ID, [mark("cpu", reason="why", because="a typo of reason")])


CONFTEST = ("from tests.conftest import engine, pytest_addoption, pytest_configure, "
            "pytest_generate_tests\n")
TESTS = '''import pytest

@pytest.mark.engines("cpu", "sim", reason="the engines this test is for")
def test_with_a_reason(engine):
    pass

@pytest.mark.engines("cpu", "sim")
def test_without_one(engine):
    pass
'''


def test_collection_fails_naming_the_test_whose_marker_has_no_reason(tmp_path):
    """The suite's hooks in a pytest subprocess: the module with the bare marker is not run, and
    the error names its test."""
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_marked.py").write_text(TESTS)
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p",
                          "no:randomly", "-W", "ignore::pytest.PytestUnknownMarkWarning",
                          str(tmp_path)],
                         capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120,
                         check=False)
    out = run.stdout + run.stderr
    assert run.returncode != 0 and "1 error" in out, out
    assert "test_marked.py::test_without_one: @pytest.mark.engines('cpu', 'sim') has no " \
           "reason" in out, out
    assert "passed" not in out, out
