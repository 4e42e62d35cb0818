"""`python -m tack.check` refuses a wrong command line with exit status 2 and one line on stderr,
before the program runs: an option's bad value, a `--json` file that cannot be written, a script
that is missing or does not compile."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The program under the checker leaves a mark when it runs: a usage error must come before it.
PROGRAM = "import os\nopen(os.environ['RAN'], 'w').close()\n"

USAGE_ERRORS = [  # (arguments before the script, the script's text or None, words of the line)
    (["--witnesses", "0"], PROGRAM, "--witnesses: expected a positive integer, got '0'"),
    (["--witnesses", "x"], PROGRAM, "expected a positive integer, got 'x'"),
    (["--json", "{dir}/no/such/folder/r.json"], PROGRAM, "cannot write --json"),
    (["--json", "{dir}"], PROGRAM, "cannot write --json"),  # a folder
    (["--bogus"], PROGRAM, "unrecognized arguments: --bogus"),
    ([], "def f(:\n    pass\n", "prog.py:1:7: invalid syntax"),
    ([], "if True:\npass\n", "prog.py:2:1: expected an indented block"),
    ([], None, "no such file"),
]


def run(args, ran: Path):
    env = {k: v for k, v in os.environ.items() if k != "TACK_CHECK"}
    env.update(PYTHONPATH=str(ROOT / "python"), RAN=str(ran))
    return subprocess.run([sys.executable, "-m", "tack.check", *map(str, args)],
                          capture_output=True, text=True, env=env, check=False, timeout=120)


@pytest.mark.parametrize("options, program, words", USAGE_ERRORS,
                         ids=[" ".join(o) or w.split(":")[-1].strip() for o, _, w in USAGE_ERRORS])
def test_usage_error_exits_2_with_one_line_before_the_program(tmp_path, options, program, words):
    script, ran = tmp_path / "prog.py", tmp_path / "ran"
    if program is not None:
        script.write_text(program)
    options = [o.format(dir=tmp_path) for o in options]
    p = run([*options, script], ran)
    assert p.returncode == 2, p.stderr
    assert p.stdout == "" and p.stderr.count("\n") == 1, p.stderr
    assert p.stderr.startswith("python -m tack.check: error: ") and words in p.stderr, p.stderr
    assert "Traceback" not in p.stderr
    assert not ran.exists()  # the program never started


def test_json_is_written_where_the_command_was_given(tmp_path, monkeypatch):
    """A relative --json path means the folder the command ran in, even when the program
    changes its own folder; and the program runs (the mark) with the checker's summary."""
    script, ran = tmp_path / "prog.py", tmp_path / "ran"
    (tmp_path / "elsewhere").mkdir()
    script.write_text(PROGRAM + f"os.chdir({str(tmp_path / 'elsewhere')!r})\n")
    monkeypatch.chdir(tmp_path)
    p = run(["--json", "r.json", script], ran)
    assert p.returncode == 0, p.stderr
    assert ran.exists() and (tmp_path / "r.json").read_text().strip() == "[]"
    assert not (tmp_path / "elsewhere" / "r.json").exists()
