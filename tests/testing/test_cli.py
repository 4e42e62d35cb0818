"""`python -m tack.testing`: test subjects named in a file, list the records, plot them."""
import os
import subprocess
import sys
import textwrap

import pytest
from tack.testing.harness import cli, load_all

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MODULE = textwrap.dedent('''
    import tack

    @tack.kernel
    def scale(x, out):
        for i in range(x.shape[0]):
            out[i] = x[i] * 3

    @tack.kernel
    def scale_short(x, out):
        for i in range(x.shape[0] - 1):
            out[i] = x[i] * 3

    def ref(x):
        return x * 3
''')


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "small.py"
    path.write_text(MODULE)
    return str(path)


def cli_run(*args):
    return cli.main([str(a) for a in args])


def test_module_entry_point_in_a_fresh_process(module):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    cmd = [sys.executable, "-m", "tack.testing", "test", f"{module}::scale",
           f"{module}::scale_short", "--reference", f"{module}::ref", "--signature", "(n)->(n)",
           "--no-timing", "--tier", "canonical"]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False, timeout=300)
    assert done.returncode == 1, done.stderr  # one subject failed
    assert "correctness" in done.stderr and "3/3" in done.stderr  # the progress bar
    rows = [ln.replace("\u2502", " ").split()[:3] for ln in done.stdout.splitlines()]
    assert ["scale", "PASS", "3/3"] in rows and ["scale_short", "FAIL", "0/3"] in rows
    assert "FAIL scale_short 3/3 shapes" in done.stdout
    assert "repro: tack.testing.test(" in done.stdout


def test_summary_table_and_exit_status(module, capsys):
    status = cli_run("test", f"{module}::scale", f"{module}::scale_short", "--reference",
                     f"{module}::ref", "--signature", "(n)->(n)", "--no-timing", "--no-progress")
    out = capsys.readouterr().out
    assert status == 1
    lines = [ln.replace("\u2502", " ") for ln in out.splitlines()]  # rich's column rule
    assert any(ln.split()[:2] == ["scale", "PASS"] for ln in lines)
    assert any(ln.split()[:2] == ["scale_short", "FAIL"] for ln in lines)
    assert "minimal failing case: 1-contiguous-float32 seed=0" in out
    recs, _ = load_all()
    assert sorted(r.name for r in recs) == ["scale", "scale_short"]


def test_usage_errors_exit_2(module, capsys):
    assert cli_run("test", f"{module}::scale", "--reference", f"{module}::ref", "--signature",
                   "(n)->(k)", "--no-progress") == 2
    assert "appears in no input" in capsys.readouterr().err
    assert cli_run("test", f"{module}::missing", "--reference", f"{module}::ref",
                   "--signature", "(n)->(n)") == 2
    with pytest.raises(SystemExit):
        cli_run("test", f"{module}::scale")  # --reference and --signature are required


def test_runs_lists_records_and_plots_history(module, tmp_path, capsys, quick_timing):
    for _ in range(2):
        assert cli_run("test", f"{module}::scale", "--reference", f"{module}::ref",
                       "--signature", "(n)->(n)", "--tier", "canonical", "--no-progress") == 0
    assert cli_run("test", f"{module}::scale_short", "--reference", f"{module}::ref",
                   "--signature", "(n)->(n)", "--no-progress", "--no-timing",
                   "--dtypes", "int32") == 1
    capsys.readouterr()
    assert cli_run("runs") == 0
    out = capsys.readouterr().out
    assert "3 record(s) in" in out and out.count("scale_short") == 1
    assert cli_run("runs", "--name", "scale", "--last", "1") == 0
    assert "1 record(s)" in capsys.readouterr().out
    pytest.importorskip("matplotlib")
    png = tmp_path / "history.png"
    assert cli_run("runs", "--plot", png) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_or_timed_runs_says_why(module, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    assert cli_run("runs", "--plot", tmp_path / "x.png") == 2
    assert "pip install 'tack-kernels[plot]'" in capsys.readouterr().err


def test_a_named_file_imports_its_neighbours(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "path", list(sys.path))  # the command line prepends the folder
    (tmp_path / "neighbour_ref.py").write_text("def triple(x):\n    return x * 3\n")
    (tmp_path / "uses_neighbour.py").write_text(MODULE + "\nfrom neighbour_ref import triple\n")
    mod = tmp_path / "uses_neighbour.py"
    assert cli_run("test", f"{mod}::scale", "--reference", f"{mod}::triple", "--signature",
                   "(n)->(n)", "--no-timing", "--no-progress", "--shape", "7-contiguous") == 0
    assert str(tmp_path) in sys.path
