"""CI runs the README's test command verbatim: the line under "Install and run the tests" is a
line of .ci/run, so the two cannot drift apart (the parallel options included)."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"Install and run the tests:\s*```sh\n(.+?)\n```", readme, re.DOTALL)
    assert block, "README.md: no sh block after 'Install and run the tests:'"
    command = block[1].strip()
    assert "pytest" in command
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert command in [line.strip() for line in ci], f".ci/run does not run: {command}"
