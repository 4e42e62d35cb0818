"""Every tutorial in docs/examples runs its --check on the CPU engine and on the simulator, at the
small sizes --check uses; validate.py runs them as subprocesses and prints its table."""
from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from tests.examples.tutorials import EXAMPLES, TUTORIALS, load, run


@pytest.mark.parametrize("arch", ["cpu", "sim"])
@pytest.mark.parametrize("name", TUTORIALS)
def test_tutorial_checks(name, arch, capsys):
    rc = run(name, "--arch", arch, "--check")
    out = capsys.readouterr()
    assert rc == 0, out.out + out.err
    assert "check passed" in out.out and "timing: first call" in out.out


def test_validate_lists_every_tutorial():
    spec = importlib.util.spec_from_file_location("tack_validate", EXAMPLES / "validate.py")
    validate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(validate)
    assert tuple(validate.TUTORIALS) == TUTORIALS
    # heat_mpi and heat_dask run under mpiexec / a Dask cluster: tests/devices/test_scale_out.py
    # _tutorial.py and _mc_tables.py are helpers the tutorials import
    on_disk = {p.stem for p in EXAMPLES.glob("*.py") if not p.stem.startswith("_")} - {
        "validate", "heat_mpi", "heat_dask"}
    assert on_disk == set(TUTORIALS)


def test_validate_runs_a_subprocess_and_prints_the_table():
    proc = subprocess.run([sys.executable, str(EXAMPLES / "validate.py"), "--arch", "cpu",
                           "--only", "array_sizes", "--timeout", "120"],
                          check=False, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "array_sizes" in proc.stdout and " ok" in proc.stdout
    assert "1/1 passed on cpu" in proc.stdout


@pytest.mark.skipif(importlib.util.find_spec("juliacall") is not None,
                    reason="juliacall is installed: --arch julia would start Julia")
def test_julia_without_juliacall_is_not_available(capsys, monkeypatch):
    # a test session may hold a stand-in juliacall (tests/julia/conftest.py): none here
    monkeypatch.setitem(sys.modules, "juliacall", None)
    assert run("heat", "--arch", "julia", "--check") == 2
    assert "julia: not available" in capsys.readouterr().err


def test_a_failed_check_exits_1(capsys, monkeypatch):
    heat = load("heat")
    monkeypatch.setattr(heat, "reference", lambda u0, steps: u0 * 0.0 + 1.0)
    assert run("heat", "--arch", "cpu", "--check") == 1
    assert "CHECK FAILED" in capsys.readouterr().err


@pytest.mark.parametrize("name", TUTORIALS)
def test_output_draws_a_png(name, tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / f"{name}.png"
    assert run(name, "--arch", "cpu", "--check", "--output", str(target)) == 0
    data = target.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    # _tutorial.save: 144 dpi (a 4-inch side is 576 px less the trimmed margin), a palette (type 3)
    assert max(width, height) > 500 and data[25] == 3, (width, height, data[25])
