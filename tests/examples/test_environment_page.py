"""docs/environment.md lists every TACK_* environment variable: a name that appears anywhere in
python/tack (code, docstrings, templates) must have a row there, and a name the page lists must
still exist somewhere in the repository, so the page cannot drift either way."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "environment.md"
NAME = re.compile(r"\bTACK_[A-Z][A-Z0-9_]*")

# TACK_* tokens in python/tack that are not environment variables. Each must still occur (so the
# list cannot go stale) and must never be read from the environment.
NOT_VARIABLES: dict[str, str] = {}  # none today


def _names_in(paths) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for name in NAME.findall(text):
            found.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    return found


def _files(*folders, suffixes=(".py", ".jl", ".toml", ".md", ".sh", "")):
    for folder in folders:
        base = ROOT / folder
        for path in base.rglob("*") if base.is_dir() else [base]:
            if path.is_file() and path.suffix in suffixes and "__pycache__" not in path.parts:
                yield path


def _documented() -> set[str]:
    # Names in backticks on the page: table rows and the lists of test variables.
    return set(re.findall(r"`(TACK_[A-Z][A-Z0-9_]*)[=`]", PAGE.read_text()))


def test_every_tack_variable_in_the_package_is_documented():
    used = _names_in(_files("python/tack"))
    missing = {n: sorted(where)[:3] for n, where in used.items()
               if n not in _documented() and n not in NOT_VARIABLES}
    assert not missing, f"TACK_* names without a row in docs/environment.md: {missing}"


def test_the_exceptions_are_real_and_not_read_from_the_environment():
    used = _names_in(_files("python/tack"))
    for name in NOT_VARIABLES:
        assert name in used, f"{name} no longer appears in python/tack: drop it from NOT_VARIABLES"
        for rel in used[name]:
            text = (ROOT / rel).read_text()
            assert not re.search(rf"environ[^\n]*{name}|getenv\([^)]*{name}", text), (
                f"{rel} reads {name} from the environment: document it in docs/environment.md")


def test_every_documented_variable_exists():
    everywhere = _names_in(_files("python/tack", "tests", "julia", "docs/examples", "bench",
                                  "tools", ".ci"))
    stale = sorted(_documented() - set(everywhere))
    assert not stale, f"docs/environment.md documents variables nothing reads: {stale}"


def test_the_page_finds_the_known_variables():
    # The scan itself works: names known to be read (and the traceback switch) are seen.
    used = _names_in(_files("python/tack"))
    for name in ("TACK_CACHE", "TACK_DEBUG", "TACK_CPU_THREADS", "TACK_TRACEBACK"):
        assert name in used and name in _documented()
