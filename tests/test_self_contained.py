"""The repository explains itself and speaks only of itself.

No tracked file cites a document that a clone does not contain: comments, docstrings and docs
point to the project's own pages (`docs/language.md` and its sections, `docs/julia.md`,
`docs/design/*.md`) or to upstream sources by URL. Nor do they tell the project's history, which
git keeps: no issue numbers, no dated session labels, no names of development branches; a test is
named after what it checks, a measurement gives its machine and command. The patterns below are
built from pieces so that this file does not match itself.
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

# Development branches whose names once labelled work in comments and docs. Only the phrases
# "branch NAME", "(branch NAME)" and "`NAME` branch" are matched: short names such as "occ" are
# also parts of ordinary words and identifiers.
BRANCHES = ("gpusort", "gpumm", "cpuops", "firstcall", "debugint", "jlgpu", "suitetime", "occ",
            "integ", "cpuperf", "cpurt", "avx512", "algos", "clis")
_NAME = "(?:" + "|".join(BRANCHES) + ")"
_DATE = r"20\d\d-\d\d-\d\d"

# (pattern, what it tells) for the project's history. URLs are taken out of a line first: an
# upstream issue cited by its address is a citation, not history.
HISTORY = [
    (re.compile(r"(?<![a-z])" + "iss" + r"ue[\s_]*#?\s*\d", re.IGNORECASE),
     "an issue number (say what the code does and why)"),
    (re.compile(_DATE + r",?\s*(?:(?:in\s+the\s+)?(?:morning|afternoon|evening|night)"
                r"|(?:first|second|third|\w+)\s+session)\b", re.IGNORECASE),
     "a dated session label (give the figure with its machine and command)"),
    (re.compile(r"^\s*(?:#+|\*\*)\s*" + _DATE), "a dated heading of a work log"),
    (re.compile(r"\bbra" + r"nch\s+[`'\"]?" + _NAME + r"\b|`" + _NAME + r"`\s+bra" + "nch\\b",
                re.IGNORECASE), "a development branch's name"),
    (re.compile("^(?:" + "<" * 7 + "|" + ">" * 7 + r")(?:\s|$)"), "a merge-conflict marker"),
]
# Where dates and numbers are data: release notes by version, JSON records.
HISTORY_EXEMPT = ("CHANGELOG.md",)
HISTORY_EXEMPT_SUFFIXES = (".json",)
_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)


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


def history_hits(rel: str, text: str) -> list[str]:
    """The lines of one file that tell the project's history, as `path:line: what: text`."""
    if rel in HISTORY_EXEMPT or rel.endswith(HISTORY_EXEMPT_SUFFIXES):
        return []
    hits = []
    for lineno, line in enumerate(text.splitlines(), 1):
        bare = _URL.sub("", line)
        told = [what for pattern, what in HISTORY if pattern.search(bare)]
        if told:
            hits.append(f"{rel}:{lineno}: {told[0]}: {line.strip()[:80]}")
    return hits


def test_no_history_in_code_tests_or_docs():
    hits = []
    for path in tracked_files():
        text = _text(path)
        if text is not None:
            hits += history_hits(path.relative_to(ROOT).as_posix(), text)
    assert not hits, (f"{len(hits)} line(s) tell the project's history, which git keeps; state the "
                      "fact, name the test after what it checks:\n" + "\n".join(hits))


@pytest.mark.parametrize("line", [
    "Regression test for iss" + "ue 14, item 3.",
    "def test_iss" + "ue14_unpack():",
    "fixed in (Iss" + "ue #18)",
    "On one H200, 2026-12-01" + " night (one run):",
    "0 skipped (24.8 s; 2026-11-29," + " second session).",
    "## " + "2026-12-01",
    "**" + "2026-12-01" + " evening** (one run)",
    "measured on bra" + "nch gpusort",
    "the timings (bra" + "nch occ) were",
    "as the `cpuperf` " + "branch had it",
    "<" * 7 + " HEAD",
])
def test_history_patterns_catch_each_kind(line):
    assert history_hits("docs/x.md", line)


@pytest.mark.parametrize("line", [
    "KA's issue: https://github.com/JuliaGPU/KernelAbstractions.jl/" + "issues/123",
    "an occupancy bound; integer branch conditions; the other branch",
    "on branch `release-0.9` (the 0.9 series Tack pins)",
    '"created": "2026-01-01T00:00:00+00:00"',
    "tiss" + "ue 5 is not an issue",  # split, as above, so no grep of the tree finds it
])
def test_history_patterns_let_ordinary_text_through(line):
    assert not history_hits("docs/x.md", line)


def test_history_exempts_release_notes_and_data():
    line = "## " + "2026-12-01" + " night, iss" + "ue 14"
    assert history_hits("docs/x.md", line)
    assert not history_hits("CHANGELOG.md", line)
    assert not history_hits("bench/results.json", line)
