"""Whole programs under the checker: `python -m tack.check script.py [args...]`, `TACK_CHECK=1`,
and the session that routes every kernel call to the simulator."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tack
from tack.check import session as S

from tests.check.planted import CASES

PROGRAM = Path(__file__).parent / "programs" / "racy.py"
ROOT = Path(__file__).resolve().parents[2]


def run(args, env=None):
    e = {k: v for k, v in os.environ.items() if k != "TACK_CHECK"}
    e.update({"PYTHONPATH": str(ROOT / "python"), **(env or {})})
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=e,
                          check=False, cwd=str(ROOT), timeout=300)


def test_cli_reports_per_kernel_and_fails_on_errors(tmp_path):
    js = tmp_path / "r.json"
    p = run(["-m", "tack.check", "--json", str(js), str(PROGRAM), "2", "--racy"])
    assert p.returncode == 1, p.stderr
    assert "double ok True" in p.stdout and "mean 255.5" in p.stdout  # the program ran as usual
    assert "tack.check reverse_racy (1 launch): error, 1 finding" in p.stderr
    assert "4 launches of 3 kernels" in p.stderr
    reports = {r["kernel"]: r for r in json.loads(js.read_text())}
    assert reports["double"]["verdict"] == "clean" and reports["double"]["launches"] == 2
    (f,) = reports["reverse_racy"]["findings"]
    assert f["kind"] == "race" and [loc[1] for loc in f["locations"]] == [13, 14]


def test_cli_on_a_clean_program_exits_with_its_status():
    p = run(["-m", "tack.check", str(PROGRAM)])
    assert p.returncode == 0, p.stderr
    assert "no errors" in p.stderr and "reverse_racy" not in p.stderr
    p = run(["-m", "tack.check", "--no-races", str(PROGRAM), "--racy"])
    assert p.returncode == 0, p.stderr


def test_tack_check_environment_variable():
    p = run([str(PROGRAM), "--racy"], env={"TACK_CHECK": "1"})
    assert p.returncode == 1
    assert "race (error)" in p.stderr and "racy ran" in p.stdout
    p = run([str(PROGRAM), "--racy"], env={"TACK_CHECK": "bounds,uninitialized"})
    assert p.returncode == 0, p.stderr


def test_options_from_env():
    assert S.options_from_env("1") == {}
    assert S.options_from_env("races") == {"races": True, "barriers": False, "pipelines": False,
                                           "bounds": False, "uninitialized": False}
    assert S.options_from_env("pipeline")["pipelines"]


@pytest.fixture
def session():
    s = S.install(S.Session())
    yield s
    S.uninstall()


def test_a_session_runs_launches_in_place_on_the_simulator(session):
    case = next(c for c in CASES if c.name == "missing_barrier")
    x, out, n = case.args()
    case.bug(x, out, n)
    case.bug(x, out, n)
    case.fixed(x, out, n)
    np.testing.assert_array_equal(out.numpy(), x.numpy().reshape(2, 256)[:, ::-1].reshape(-1))
    reports = {r.kernel: r for r in session.reports()}
    assert reports["missing_barrier"].launches == 2
    (f,) = reports["missing_barrier"].findings
    assert f.count == 2 * 512  # merged over both launches
    assert reports["missing_barrier_fixed"].verdict == "clean"
    assert session.failed and "1 error finding" in session.summary()


def test_a_refused_launch_is_checked_then_refused_as_usual(session):
    case = next(c for c in CASES if c.name == "barrier_in_branch")
    x, out, n = case.args()
    with pytest.raises(ValueError, match="uniform workgroup participation"):
        case.bug(x, out, n)
    assert (out.numpy() == 0).all()  # checked on copies: a refused call changes nothing
    (r,) = session.reports()
    assert r.of_kind("barrier")


def test_uninstall_restores_normal_calls():
    s = S.install(S.Session())
    assert S.uninstall() is s
    case = next(c for c in CASES if c.name == "uninitialized_local")
    x, out, n = case.args()
    case.fixed(x, out, n)  # on the CPU engine
    assert s.kernels == {}
    assert tack.check  # the function, not the package


def test_a_launch_the_simulator_cannot_run_runs_on_its_device(session, monkeypatch):
    from tack.check import run as R

    class Refusing:
        def run(self, *a, **k):
            raise NotImplementedError("not simulated")

    monkeypatch.setattr(R, "sim_engine", lambda: Refusing())
    case = next(c for c in CASES if c.name == "uninitialized_local")
    x, out, n = case.args()
    case.fixed(x, out, n)  # the CPU engine ran it
    np.testing.assert_allclose(out.numpy(), x.numpy() * 6)
    (r,) = session.reports()
    assert r.verdict == "incomplete" and "not simulated" in r.incomplete[0]


@pytest.mark.parametrize("value", ["raecs", "races,raecs", "race;bounds", ","])
def test_a_misspelt_tack_check_is_refused(value):
    """`TACK_CHECK=raecs` checked nothing and said so nowhere."""
    with pytest.raises(tack.TackValueError, match="TACK_CHECK=.* to check. TACK_CHECK takes"):
        S.options_from_env(value)
    p = run(["-c", "import tack"], env={"TACK_CHECK": value})
    assert p.returncode == 1 and "TackValueError" in p.stderr and "races, barriers" in p.stderr


def test_tack_check_accepts_option_and_kind_names():
    only_races = {"races": True, "barriers": False, "pipelines": False, "bounds": False,
                  "uninitialized": False}
    assert S.options_from_env(" Races , ") == S.options_from_env("race") == only_races
    assert S.options_from_env("none") == dict.fromkeys(only_races, False)
    assert S.options_from_env("barrier,bounds,pipeline,race,uninitialized") == dict.fromkeys(
        only_races, True)  # what `python -m tack.check` passes on to child processes


def test_a_session_refuses_a_store_into_read_only_memory_before_writing(session):
    """The simulated store raised NumPy's ValueError after `out` was written, uncounted."""
    from tests.check.kernels import read_only, store_both

    ro, out = read_only(np.arange(8, dtype=np.float32)), tack.zeros(8)
    with pytest.raises(tack.TackValueError, match="'x' may be written .* read-only"):
        store_both(out, ro, 8)
    assert (out.numpy() == 0).all() and (ro.numpy() == np.arange(8)).all()


def test_a_session_refuses_shared_memory_no_gpu_allows(session):
    from tests.check.kernels import huge_shared

    out = tack.zeros(256)
    with pytest.raises(tack.TackValueError, match="8 GiB per workgroup"):
        huge_shared(out, 256)
    assert session.kernels == {}


def test_the_cli_refuses_a_read_only_store_like_a_normal_run(tmp_path):
    script = tmp_path / "ro.py"
    script.write_text(
        "import numpy as np, tack\n"
        "from tests.check.kernels import read_only, store_both\n"
        "out = tack.zeros(8)\n"
        "try:\n"
        "    store_both(out, read_only(np.arange(8, dtype=np.float32)), 8)\n"
        "except tack.TackValueError as e:\n"
        "    print('refused', type(e).__name__, float(out.numpy().sum()))\n")
    for args, env in ((["-m", "tack.check", str(script)], {}), ([str(script)], {})):
        p = run(args, env={"TACK_CHECK": "1", "PYTHONPATH": f"{ROOT / 'python'}:{ROOT}", **env})
        assert p.returncode == 0, p.stderr
        assert "refused TackValueError 0.0" in p.stdout
