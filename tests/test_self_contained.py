"""The repository explains itself: no tracked file cites a document that a clone does not contain.

Comments, docstrings and docs point to the project's own pages (`docs/language.md` and its
sections, `docs/julia.md`, `docs/design/*.md`) or to upstream sources by URL. The patterns below
are built from pieces so that this file does not match itself.
"""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# (pattern, what it cites)
FORBIDDEN = [
    (re.compile("TACK" + "_API"), "the Tack API notes kept outside the repository"),
    (re.compile("JULIA" + "_NOTES"), "the Julia notes kept outside the repository"),
    (re.compile("seed" + r"\s+00", re.IGNORECASE), "a numbered seed document"),
    (re.compile(re.escape(".." + "/shared")), "a directory outside the repository"),
    # A section sign and a number is a section of one of those documents: the project's own
    # pages are cited by section name.
    (re.compile("\u00a7" + r"\s*\d"), "a numbered section of a document outside the repository"),
]


def tracked_files() -> list[Path]:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout
    except subprocess.CalledProcessError:
        pytest.skip("not a git checkout")
    return [ROOT / name for name in out.decode("utf-8", "surrogateescape").split("\0") if name]


def _text(path: Path) -> str | None:
    """The file's text, or None for a binary or missing file."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")


def test_no_citation_of_documents_outside_the_repository():
    hits = []
    for path in tracked_files():
        text = _text(path)
        if text is None:
            continue
        for lineno, line in enumerate(text.splitlines(), 1):
            cited = [what for pattern, what in FORBIDDEN if pattern.search(line)]
            if cited:
                rel = path.relative_to(ROOT).as_posix()
                hits.append(f"{rel}:{lineno}: {cited[0]}: {line.strip()[:80]}")
    assert not hits, (f"{len(hits)} line(s) cite documents a clone does not contain; say the "
                      "rule and point to docs/ or an upstream URL instead:\n" + "\n".join(hits))


def test_builtins_table_is_generated_from_the_registry():
    from tack import intrinsics
    from tack.frontend.builtins import BUILTINS, page_markdown

    page = (ROOT / "docs" / "builtins.md").read_text(encoding="utf-8")
    for name in list(BUILTINS) + [fn.__tack_intrinsic__ for fn in intrinsics.ALL]:
        assert f"| `{name}` |" in page, name  # every name a kernel calls, findable by search
    assert page.strip() == page_markdown().strip(), (
        "docs/builtins.md is out of date: python -m tack.frontend.builtins > docs/builtins.md")
