"""`python -m tack.testing`: run the harness on subjects named in files, and list past runs.

    python -m tack.testing test module.py::subject --reference module.py::ref \\
        --signature "(n),(n)->(n)" --tier fast
    python -m tack.testing runs [--plot history.png]

`test` prints a progress bar, a summary table and, for each failure, the line that reproduces
its minimal case; its exit status is 1 when a subject failed, 2 when the command was wrong (an
option argparse refuses, a dtype, file or name that does not exist, a subject file that does
not import, a records folder that cannot be written): then one line on stderr says why, before
anything runs.
"""
from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime

import tack

from ...errors import TackError, TackValueError
from . import records, summary
from .driver import test as run_test
from .plot import history


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


def _pair(text: str) -> tuple[float, float]:
    parts = text.split(",")
    try:
        if len(parts) == 2:
            return float(parts[0]), float(parts[1])
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"expected ATOL,RTOL, got {text!r}")


def _test_parser(sub) -> None:
    p = sub.add_parser("test", help="check subjects against a reference, then time them")
    p.add_argument("targets", nargs="+", metavar="FILE.py::SUBJECT",
                   help="the functions or kernels to check (a file and a name in it)")
    p.add_argument("--reference", required=True, metavar="FILE.py::NAME",
                   help="the function computing the expected result (NumPy, float64 inside)")
    p.add_argument("--signature", required=True, help='gufunc signature, e.g. "(n),(n)->(n)"')
    p.add_argument("--tier", default="fast", choices=("fast", "exhaustive", "canonical"),
                   help="which shapes: fast (15-19 awkward ones, seconds), exhaustive (about "
                        "60), canonical (3 large ones, timed); default fast")
    p.add_argument("--dtypes", default="float32", help="comma-separated, e.g. float32,float64")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated inputs (0)")
    p.add_argument("--name", help="record name (one subject only)")
    p.add_argument("--op-class", choices=("elementwise", "reduction", "transcendental",
                                          "chained"),
                   help="the tolerance table's row (default: the strict elementwise row)")
    p.add_argument("--fused-ops", default="", help="comma-separated names of fused ops")
    p.add_argument("--tolerance", type=_pair, metavar="ATOL,RTOL",
                   help="replaces the tolerance table")
    p.add_argument("--baseline", metavar="FILE.py::NAME", help="what to beat when timing")
    p.add_argument("--no-timing", action="store_true", help="check correctness only")
    p.add_argument("--shape", help="run one case, e.g. 1025-contiguous-float32 (no timing)")
    p.add_argument("--device", default=None, help="e.g. cpu or cuda (default: Tack's)")
    p.add_argument("--engine", default=None, help="native or julia")
    p.add_argument("--records-dir", default=None, help="default: $TACK_RUNS_DIR or ~/.tack/runs")
    p.add_argument("--no-record", action="store_true", help="write no record")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _runs_parser(sub) -> None:
    p = sub.add_parser("runs", help="list stored records")
    p.add_argument("--records-dir", default=None, help="default: $TACK_RUNS_DIR or ~/.tack/runs")
    p.add_argument("--name", help="only records of this subject")
    p.add_argument("--last", type=_positive, default=None, help="only the last N records")
    p.add_argument("--plot", metavar="OUT.png", help="draw timing history per subject "
                   "(needs matplotlib: pip install '.[plot]' in a clone of Tack)")


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m tack.testing", description=__doc__.split("\n")[0])
    p.add_argument("--version", action="version", version=f"tack {tack.__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    _test_parser(sub)
    _runs_parser(sub)
    return p


def _cmd_test(a) -> int:
    if a.name and len(a.targets) > 1:
        raise TackValueError("--name names one subject's record; give one target or no --name")
    if a.device or a.engine:
        tack.set_default_device(a.device or "cpu", a.engine)
    for spec in (*a.targets, a.reference, a.baseline or ""):
        folder = os.path.dirname(os.path.abspath(spec.partition("::")[0])) if spec else None
        if folder and folder not in sys.path:
            sys.path.insert(0, folder)  # as for a script: the file's siblings import
    recs = []
    for target in a.targets:
        recs.append(run_test(
            target, reference=a.reference, signature=a.signature, tier=a.tier,
            dtypes=tuple(d for d in a.dtypes.split(",") if d), seed=a.seed, name=a.name,
            op_class=a.op_class, fused_ops=tuple(f for f in a.fused_ops.split(",") if f),
            tolerance_override=a.tolerance, baseline=False if a.no_timing else a.baseline,
            records_dir=False if a.no_record else a.records_dir,
            progress=not a.no_progress, shape=a.shape))
    summary.table(summary.HEADERS, [summary.row(r) for r in recs], title="tack.testing")
    for r in recs:
        if not r.passed:
            print(f"{r.summary()}\n  {r.failures[0].message if r.failures else ''}\n"
                  f"  repro: {r.minimal_case.repro}")
        elif r.path:
            print(f"{r.name}: record {r.path}")
    return 0 if all(r.passed for r in recs) else 1


def _when(created: str) -> str:
    return datetime.fromisoformat(created).astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _device(env: dict) -> str:
    engine = env.get("engine")
    return env.get("arch", "?") + ("" if engine in (None, "native") else f" ({engine})")


def _cmd_runs(a) -> int:
    recs, skipped = records.load_all(a.records_dir)
    if a.name:
        recs = [r for r in recs if r.name == a.name]
    if a.last:
        recs = recs[-a.last:]
    for note in skipped:
        print(f"warning: skipped {note}", file=sys.stderr)
    rows = [[_when(r.created), *summary.row(r), _device(r.environment)] for r in recs]
    where = records.runs_dir(a.records_dir)
    summary.table(["when", *summary.HEADERS, "device"], rows,
                  title=f"{len(recs)} record(s) in {where}")
    if a.plot:
        history(recs, a.plot)
        print(f"wrote {a.plot}")
    return 0


def main(argv=None) -> int:
    a = parser().parse_args(argv)
    try:
        return _cmd_test(a) if a.command == "test" else _cmd_runs(a)
    except TackError as exc:
        print(f"python -m tack.testing {a.command}: error: {exc}", file=sys.stderr)
        return 2
