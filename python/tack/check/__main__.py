"""`python -m tack.check [options] script.py [args...]`: run a program with every kernel launch
executed and checked on the simulator; print the findings per kernel at exit; exit status 1
when any error was found (like `compute-sanitizer python script.py`), 2 when the command was
wrong (an unknown option, `--witnesses` below 1, a `--json` file that cannot be written, a
script that is missing or does not compile): then one line on stderr says why, and nothing
runs."""
from __future__ import annotations

import argparse
import json
import os
import runpy
import sys
import traceback

from ..errors import TackError
from .run import OPTIONS, kinds_of
from .session import ENV, Session, drop_env_session, install, uninstall

PROG = "python -m tack.check"


class UsageError(Exception):
    """The command line is wrong: said in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse's parser with its usage errors on one line (status 2, as argparse's own)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def parse(argv: list[str]) -> argparse.Namespace:
    p = _Parser(prog=PROG, description=__doc__.split("\n")[0])
    for opt in OPTIONS:
        p.add_argument(f"--no-{opt}", dest=opt, action="store_false",
                       help=f"do not check {opt}")
    p.add_argument("--witnesses", type=_positive, default=3, help="instances kept per finding")
    p.add_argument("--json", metavar="PATH", help="also write the reports as JSON to PATH")
    p.add_argument("script", help="the Python program to run")
    p.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    return p.parse_args(argv)


def check_script(path: str) -> None:
    """Refuse, before anything runs, a script that is missing or does not compile (as Python
    would, but in one line). A folder or zip with `__main__.py` is left to runpy."""
    if not os.path.exists(path):
        raise UsageError(f"no such file: {path}")
    if not os.path.isfile(path):
        return
    try:
        with open(path, "rb") as f:
            compile(f.read(), path, "exec", dont_inherit=True)
    except SyntaxError as exc:  # IndentationError and TabError too
        raise UsageError(f"{path}:{exc.lineno}:{exc.offset}: {exc.msg}") from None
    except (OSError, ValueError) as exc:  # unreadable; source with a NUL byte
        raise UsageError(f"cannot run {path}: {exc}") from None


def open_json(path: str | None):
    """The `--json` file, opened for writing now: a path that cannot be written is a usage
    error before the run, not a traceback after it (and a relative path means the folder the
    command was given in, whatever the script changes its own to)."""
    if path is None:
        return None
    try:
        return open(path, "w", encoding="utf-8")  # written and closed by main
    except OSError as exc:
        raise UsageError(f"cannot write --json {path}: {exc.strerror or exc}") from None


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
    try:
        kinds, witnesses = kinds_of({opt: getattr(ns, opt) for opt in OPTIONS} |
                                    {"witnesses": ns.witnesses})
        check_script(ns.script)
        out = open_json(ns.json)
    except (UsageError, TackError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    drop_env_session()
    os.environ[ENV] = ",".join(sorted(kinds)) or "none"  # child Python processes too
    session = install(Session(kinds, witnesses))
    try:
        status = run_script(ns.script, ns.args)
    finally:
        uninstall()
    sys.stdout.flush()
    print(session.summary(), file=sys.stderr)
    if out is not None:
        with out:
            json.dump([r.to_dict() for r in session.reports()], out, indent=1)
    return max(status, 1 if session.failed else 0)


if __name__ == "__main__":
    sys.exit(main())
