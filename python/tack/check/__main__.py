"""`python -m tack.check [options] script.py [args...]`: run a program with every kernel launch
executed and checked on the simulator; print the findings per kernel at exit; exit status 1
when any error was found (like `compute-sanitizer python script.py`)."""
from __future__ import annotations

import argparse
import json
import os
import runpy
import sys
import traceback

from .run import OPTIONS, kinds_of
from .session import ENV, Session, drop_env_session, install, uninstall


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m tack.check", description=__doc__.split("\n")[0])
    for opt in OPTIONS:
        p.add_argument(f"--no-{opt}", dest=opt, action="store_false",
                       help=f"do not check {opt}")
    p.add_argument("--witnesses", type=int, default=3, help="instances kept per finding")
    p.add_argument("--json", metavar="PATH", help="also write the reports as JSON to PATH")
    p.add_argument("script", help="the Python program to run")
    p.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    return p.parse_args(argv)


def run_script(path: str, args: list[str]) -> int:
    """Run `path` as __main__ with `args`; its exit status (1 for an uncaught exception)."""
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        runpy.run_path(path, run_name="__main__")  # its file name as given, in messages
    except SystemExit as exc:
        code = exc.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    except Exception:  # noqa: BLE001 - the program's own failure, shown as Python shows it
        traceback.print_exc()
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    ns = parse(sys.argv[1:] if argv is None else argv)
    kinds, witnesses = kinds_of({opt: getattr(ns, opt) for opt in OPTIONS} |
                                {"witnesses": ns.witnesses})
    drop_env_session()
    os.environ[ENV] = ",".join(sorted(kinds)) or "none"  # child Python processes too
    session = install(Session(kinds, witnesses))
    try:
        status = run_script(ns.script, ns.args)
    finally:
        uninstall()
    sys.stdout.flush()
    print(session.summary(), file=sys.stderr)
    if ns.json:
        with open(ns.json, "w") as f:
            json.dump([r.to_dict() for r in session.reports()], f, indent=1)
    return max(status, 1 if session.failed else 0)


if __name__ == "__main__":
    sys.exit(main())
