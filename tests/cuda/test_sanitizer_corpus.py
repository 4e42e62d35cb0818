"""The planted-bug corpus (tests/check/planted.py) on the GPU: the fixed twins give on the CUDA
engine what `tack.check` gives on the simulator, and, where compute-sanitizer is on PATH, each
bug under the tool meant for it (bench/sanitizer.py prints the whole table for
docs/checking.md). The goal: whatever compute-sanitizer finds, `tack.check` finds too."""
import shutil

import numpy as np
import pytest
import tack

from bench import sanitizer as S
from tests.check.planted import CASES
from tests.cuda import gpu

pytestmark = gpu.MARKS
SANITIZER = pytest.mark.skipif(shutil.which("compute-sanitizer") is None,
                               reason="compute-sanitizer is not on PATH")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixed_twins_agree_with_the_simulator(case):
    tack.set_default_device("cpu")
    args = (case.fixed_args or case.args)()
    want = tack.check(case.fixed, *args).require_clean().outputs
    tack.set_default_device("cuda")
    args = (case.fixed_args or case.args)()
    try:
        case.fixed(*args)
    except NotImplementedError as exc:  # the warpgroup MMA needs sm_90a (an H100/H200)
        if "only sm_90a" not in str(exc):
            raise
        pytest.skip(str(exc))
    params = [p.arg for p in case.fixed.source.tree.args.args]
    got = {nm: a.numpy() for nm, a in zip(params, args) if isinstance(a, tack.Array)}
    for nm in want:
        np.testing.assert_allclose(got[nm], want[nm], rtol=1e-5, atol=1e-5)


@SANITIZER
@pytest.mark.parametrize("case", [c for c in CASES if c.sanitizer],
                         ids=[c.name for c in CASES if c.sanitizer])
def test_what_the_sanitizer_finds_tack_check_finds(case):
    found = S.sanitize(case.sanitizer, case.name, False, 120.0)
    print(case.name, case.sanitizer, found["status"], found["count"])
    if found["status"] == "found":
        assert S.tack_check(case, False)["status"] == "found"


@SANITIZER
@pytest.mark.parametrize("tool", ["racecheck", "synccheck"])
def test_the_twins_are_clean_under_the_sanitizer(tool):
    dirty = [c.name for c in CASES if S.sanitize(tool, c.name, True, 120.0)["status"] == "found"]
    assert dirty == []
