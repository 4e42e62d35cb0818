"""The suite's guard against a GPU fault burying its cause (tests/conftest.py): after a test
fails with the CUDA engine's sticky-error message, the process's later CUDA tests are skipped
with a reason naming that test, and its other tests still run. Checked without a GPU, in a
pytest subprocess whose conftest takes the suite's two hooks."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CONFTEST = "from tests.conftest import pytest_runtest_makereport, pytest_runtest_setup\n"
TESTS = '''import pytest

@pytest.mark.cuda
def test_a_fault():
    raise RuntimeError("Kernel 'k' failed on CUDABackend: CUDA_ERROR_ILLEGAL_INSTRUCTION; "
                       "the CUDA context is now unusable: restart the process")

@pytest.mark.cuda
def test_after_it_on_the_gpu():
    pass

def test_after_it_on_the_cpu():
    pass

@pytest.mark.cuda
def test_another_failure_on_the_gpu():
    pass
'''


def test_later_cuda_tests_are_skipped_naming_the_fault(tmp_path):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_fault.py").write_text(TESTS)
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    run = subprocess.run([sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider",
                          "-W", "ignore::pytest.PytestUnknownMarkWarning", str(tmp_path)],
                         capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120,
                         check=False)  # a failing test inside: pytest exits 1
    out = run.stdout
    assert "1 failed, 1 passed, 2 skipped" in out, out + run.stderr
    assert "CUDA context died in test_fault.py::test_a_fault" in out, out
