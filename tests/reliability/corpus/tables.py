"""Finding the corpus: every module `table_*.py` of this package contributes its `CASES`."""
from __future__ import annotations

import fnmatch
import importlib
import pkgutil

from .case import Case


def table_names() -> list[str]:
    """The table modules, sorted: `table_api`, `table_cache`, ..."""
    pkg = importlib.import_module(__package__)
    return sorted(m.name for m in pkgutil.iter_modules(pkg.__path__) if m.name.startswith("table_"))


def all_cases() -> list[Case]:
    """Every row of every table, in table order; names are unique across tables."""
    out: list[Case] = []
    seen: set[str] = set()
    for t in table_names():
        for case in importlib.import_module(f"{__package__}.{t}").CASES:
            if case.name in seen:
                raise ValueError(f"reliability table {t}: duplicate case name {case.name!r}")
            seen.add(case.name)
            out.append(case)
    return out


def select(pattern: str | None = None, quick: bool = False) -> list[Case]:
    """The cases whose name matches the glob `pattern` (substring when it has no `*`)."""
    cases = all_cases()
    if quick:
        cases = [c for c in cases if c.quick]
    if pattern:
        glob = pattern if any(ch in pattern for ch in "*?[") else f"*{pattern}*"
        cases = [c for c in cases if fnmatch.fnmatchcase(c.name, glob)]
    return cases


def find(name: str) -> Case:
    for case in all_cases():
        if case.name == name:
            return case
    raise KeyError(f"no reliability case named {name!r}")
