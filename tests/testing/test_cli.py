"""`python -m tack.testing`: test subjects named in a file, list the records, plot them."""
import json
import os
import subprocess
import sys
import textwrap

import pytest
import tack
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


def shell(*args, timeout=120, **env):
    """`python -m tack.testing ARGS` in a fresh process: (status, stdout, stderr)."""
    e = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), **env)
    done = subprocess.run([sys.executable, "-m", "tack.testing", *map(str, args)],
                          capture_output=True, text=True, env=e, check=False, timeout=timeout)
    return done.returncode, done.stdout, done.stderr


def one_line_usage_error(status, out, err, listed=False):
    """Exit status 2, one line on stderr and no traceback; nothing on stdout unless `listed`
    (`runs --plot` lists the records before it draws)."""
    assert status == 2, err
    assert (listed or out == "") and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("python -m tack.testing"), err
    return err


# A subject that leaves a mark when it runs: a usage error must stop the command before.
COUNTED = textwrap.dedent('''
    import os

    def counted(x):
        with open(os.environ["CALLED"], "a") as f:
            f.write("x")
        return x * 3

    def ref(x):
        return x * 3
''')

USAGE_ERRORS = [  # (options after the subject's, words of the one line)
    (["--dtypes", "floatx"], "'floatx' is not a dtype"),
    (["--dtypes", "float32,"], None),  # a trailing comma is no dtype: accepted, not an error
    (["--records-dir", "{file}"], "is a file"),
    (["--records-dir", "{file}/below"], "Cannot make the records folder"),
    (["--tolerance", "a,b"], "expected ATOL,RTOL"),
    (["--tier", "slow"], "invalid choice: 'slow'"),
    (["--shape", "zzz"], "Bad shape 'zzz'"),
    (["--signature", "(n)->(k)"], "appears in no input"),
    (["--reference", "{dir}/broken.py::ref"], "broken.py:2:"),
    (["--reference", "{dir}/raises.py::ref"], "raised ModuleNotFoundError"),
    (["--reference", "{dir}/missing.py::ref"], "no file"),
    (["--reference", "{dir}/counted.py::os"], "The reference must be callable"),
]


@pytest.mark.parametrize("extra, words", USAGE_ERRORS,
                         ids=[" ".join(e).replace("/", "_") for e, _ in USAGE_ERRORS])
def test_usage_errors_exit_2_with_one_line_before_the_run(tmp_path, extra, words):
    (tmp_path / "counted.py").write_text(COUNTED)
    (tmp_path / "broken.py").write_text("import numpy\ndef ref(x:\n    return x\n")
    (tmp_path / "raises.py").write_text("import no_such_module_here\n")
    (tmp_path / "afile").write_text("")
    called = tmp_path / "called"
    subject = tmp_path / "counted.py"
    extra = [e.format(file=tmp_path / "afile", dir=tmp_path) for e in extra]
    options = {"--signature": "(n)->(n)", "--reference": f"{subject}::ref"}
    for k in range(0, len(extra), 2):
        options[extra[k]] = extra[k + 1]
    args = ["test", f"{subject}::counted", "--no-progress", "--no-timing",
            "--shape", options.pop("--shape", "7-contiguous"), *sum(options.items(), ())]
    status, out, err = shell(*args, CALLED=called, TACK_RUNS_DIR=tmp_path / "runs")
    if words is None:
        assert status == 0, err
        assert called.read_text() == "x"
        return
    assert words in one_line_usage_error(status, out, err)
    assert not called.exists()  # refused before the subject ran


def test_runs_skips_fifos_and_reports_malformed_records(module, tmp_path):
    runs = tmp_path / "runs"
    assert cli_run("test", f"{module}::scale", "--reference", f"{module}::ref", "--signature",
                   "(n)->(n)", "--no-timing", "--no-progress", "--shape", "5-contiguous",
                   "--records-dir", runs) == 0
    good = json.loads(next(runs.glob("*.json")).read_text())
    os.mkfifo(runs / "fifo.json")  # open() would wait for a writer forever
    (runs / "folder.json").mkdir()
    (runs / "dangling.json").symlink_to(tmp_path / "nowhere")
    (runs / "truncated.json").write_text("{")
    (runs / "list.json").write_text("[1, 2]")
    for name, field, value in (("name", "name", 5), ("created", "created", "yesterday"),
                               ("environment", "environment", []),
                               ("minimal", "minimal_case", "x"), ("cases", "cases", [3])):
        (runs / f"bad-{name}.json").write_text(json.dumps({**good, field: value}))
    status, out, err = shell("runs", "--records-dir", runs, timeout=60)
    assert status == 0, err
    assert "1 record(s)" in out and "scale" in out
    warned = {ln.split()[2].rstrip(":") for ln in err.splitlines()}
    assert all(ln.startswith("warning: skipped ") for ln in err.splitlines()), err
    assert warned == {"fifo.json", "folder.json", "dangling.json", "truncated.json",
                      "list.json", "bad-name.json", "bad-created.json", "bad-environment.json",
                      "bad-minimal.json", "bad-cases.json"}, err


@pytest.mark.parametrize("args, words", [
    (["--last", "0"], "expected a positive integer"),
    (["--records-dir", "{file}"], "is a file"),
    (["--plot", "{dir}/no/such/folder/h.png"], "Cannot write the plot"),
])
def test_runs_usage_errors_exit_2_with_one_line(tmp_path, args, words):
    (tmp_path / "afile").write_text("")
    if "--plot" in args:
        pytest.importorskip("matplotlib")
        runs = tmp_path / "runs"
        runs.mkdir()
        (runs / "timed.json").write_text(json.dumps(_timed_record()))
        args = [*args, "--records-dir", runs]
    args = [str(a).format(file=tmp_path / "afile", dir=tmp_path) for a in args]
    done = shell("runs", *args, TACK_RUNS_DIR=tmp_path)
    assert words in one_line_usage_error(*done, listed="--plot" in args)


def _timed_record() -> dict:
    """A record of a timed run, as JSON: what `runs --plot` draws."""
    m = {"median_s": 1e-3, "spread": 0.01, "calls_per_block": 10, "blocks_s": [1e-3],
         "tier": "A"}
    comparison = {"tier": "A", "is_performance_valid": True, "speedup": 1.0, "baseline": "x",
                  "timings": [{"label": "1024-contiguous", "subject": m, "baseline": m,
                               "speedup": 1.0}], "clocks": {}}
    return {"name": "s", "passed": True, "shapes_total": 1, "shapes_failed": 0,
            "minimal_case": None, "failures": [], "comparison": comparison,
            "environment": {"arch": "cpu"}, "path": None, "signature": "(n)->(n)",
            "tier": "fast", "dtypes": ["float32"], "seed": 0, "op_class": None, "fused_ops": [],
            "tolerances": {"float32": [1e-3, 1e-3]}, "cases": [],
            "created": "2026-01-01T00:00:00+00:00", "subject": "s", "kind": "callable"}


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
    assert "FAIL scale_short: 0/3 shapes passed" in done.stdout
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
    assert "pip install '.[plot]' in a clone of Tack" in capsys.readouterr().err


def test_a_named_file_imports_its_neighbours(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "path", list(sys.path))  # the command line prepends the folder
    (tmp_path / "neighbour_ref.py").write_text("def triple(x):\n    return x * 3\n")
    (tmp_path / "uses_neighbour.py").write_text(MODULE + "\nfrom neighbour_ref import triple\n")
    mod = tmp_path / "uses_neighbour.py"
    assert cli_run("test", f"{mod}::scale", "--reference", f"{mod}::triple", "--signature",
                   "(n)->(n)", "--no-timing", "--no-progress", "--shape", "7-contiguous") == 0
    assert str(tmp_path) in sys.path


def test_every_option_has_help_and_there_is_a_version():
    p = cli.parser()
    subparsers = next(a for a in p._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, sub in subparsers.choices.items():
        for action in sub._actions:
            if action.dest != "help":
                assert action.help, f"{name} {action.option_strings or action.dest}: no help"
    status, out, _ = shell("--version")
    assert status == 0 and out.strip() == f"tack {tack.__version__}"


def test_the_line_and_the_table_give_the_same_count():
    from types import SimpleNamespace

    from tack.testing.harness import summary

    m = SimpleNamespace(label="1025-contiguous-float32", seed=0)
    rec = SimpleNamespace(name="add", passed=False, shapes_failed=5, shapes_total=15,
                          minimal_case=m, comparison=None)
    assert summary.line(rec).startswith("FAIL add: 10/15 shapes passed;")
    assert summary.row(rec)[2] == "10/15"
