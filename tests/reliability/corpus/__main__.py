"""`python -m tests.reliability.corpus`: run the corpus and print counts by outcome."""
from __future__ import annotations

import argparse
import sys

from .runner import child_main, counts, run, summary
from .tables import select


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.reliability.corpus",
                                description="Run Tack's reliability corpus.")
    p.add_argument("-k", "--pattern", help="only cases whose name matches (glob or substring)")
    p.add_argument("--quick", action="store_true", help="only the short slice the test run covers")
    p.add_argument("--isolate", action="store_true", help="every case in its own subprocess")
    p.add_argument("--list", action="store_true", help="list the selected cases and stop")
    p.add_argument("-v", "--verbose", action="store_true", help="one line per case as it runs")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        return child_main()
    cases = select(a.pattern, a.quick)
    if a.list:
        for c in cases:
            print(f"{c.name}  expect={c.expect}{'  [subprocess]' if c.subprocess else ''}")
        return 0
    show = (lambda r: print(f"{r.outcome:14} {r.seconds:6.2f}s {r.name}", flush=True)) \
        if a.verbose else None
    results = run(cases, isolate=True if a.isolate else None, progress=show)
    print(summary(results))
    return 0 if set(counts(results)) <= {"ok"} else 1


if __name__ == "__main__":
    sys.exit(main())
