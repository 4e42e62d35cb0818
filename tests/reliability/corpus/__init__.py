"""The reliability corpus: bad inputs and faults at Tack's public API, as data, and their runner.

Each row is a `Case` (see `case.py` for every field): the source of what is called (`setup`, then
`call`), the exception class it must raise (or None: it must succeed), whether the exception must
carry a source position, words its message must name, the arrays that must be unchanged
afterwards, an optional post-condition, and whether it runs in its own subprocess (where a crash
or hang is possible). Tables are the modules `table_*.py` of this package, each exporting `CASES`
(a list of `Case`, generated from smaller tables rather than written one by one); names are unique
across tables and prefixed by the table's theme (`api/...`, `cache/...`).

API:
    all_cases() / select(pattern, quick) / find(name)   -> the rows
    run_case(case, isolate=None) -> Result                one row (subprocess when it asks)
    run(cases, isolate=None, progress=None) -> [Result]   many rows, in order
    counts(results) / summary(results)                    tallies by outcome (OUTCOMES)

From a shell: `python -m tests.reliability.corpus [-k PATTERN] [--quick] [--isolate] [--list]`
prints `N cases: ok ..., wrong-class ..., ...` and one line per case that did not pass; it
exits 1 when any did not. docs/testing.md describes the corpus.
"""
from .case import OUTCOMES, Case, Result
from .runner import counts, run, run_case, run_here, run_isolated, summary
from .tables import all_cases, find, select

__all__ = ["OUTCOMES", "Case", "Result", "all_cases", "counts", "find", "run", "run_case",
           "run_here", "run_isolated", "select", "summary"]
