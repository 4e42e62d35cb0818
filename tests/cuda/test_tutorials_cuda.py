"""The docs/examples tutorials' --check on the CUDA engine (the tiled N-body path included)."""
import pytest

from tests.cuda import gpu
from tests.examples.tutorials import TUTORIALS, run

pytestmark = gpu.MARKS


@pytest.mark.parametrize("name", TUTORIALS)
def test_tutorial_checks_on_cuda(name, capsys):
    rc = run(name, "--arch", "cuda", "--check")
    out = capsys.readouterr()
    assert rc == 0, out.out + out.err
    assert "check passed" in out.out
