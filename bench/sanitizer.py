#!/usr/bin/env python
"""Which tool finds which planted bug: `tack.check` on the simulator beside NVIDIA's
compute-sanitizer (racecheck, synccheck, initcheck, memcheck) running the same kernels through
Tack's CUDA engine on a GPU.

    PYTHONPATH=python:. python3 bench/sanitizer.py                 # the table (GPU machine)
    PYTHONPATH=python:. python3 bench/sanitizer.py --json out.json --jobs 4
    PYTHONPATH=python:. python3 bench/sanitizer.py --only histogram,benign_race
    PYTHONPATH=python:. python3 bench/sanitizer.py --case histogram [--fixed]   # one launch
    PYTHONPATH=python:. python3 bench/sanitizer.py --quick        # two cases: a smoke run

The corpus is tests/check/planted.py: each bug kernel with its fixed twin. For every case and
tool, compute-sanitizer runs `bench/sanitizer.py --case NAME` in a child process (one CUDA launch
of the bug kernel, or of its twin with --fixed) and the table says whether the tool reported
anything. Kernels that Tack's workgroup contract refuses for a normal launch (a barrier under a
lane-dependent branch) are launched on the GPU anyway here, specialized without that check, so
that synccheck sees them; such a launch may hang a GPU, hence the per-run timeout. The tack.check
column needs no GPU. The output is a Markdown table for docs/checking.md.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "python"), str(ROOT)]

TOOLS = ("racecheck", "synccheck", "initcheck", "memcheck")
QUICK = "missing_barrier,off_by_one_shared"  # --quick: a race and a bound
_ERRORS = re.compile(r"ERROR SUMMARY: (\d+) error")
_HAZARDS = re.compile(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) "
                      r"warnings?\)")


def cases(only: str | None):
    from tests.check.planted import CASES

    wanted = set(only.split(",")) if only else None
    return [c for c in CASES if wanted is None or c.name in wanted]


def launch_one(name: str, fixed: bool) -> None:
    """One launch of a planted kernel on the CUDA engine (what compute-sanitizer watches)."""
    import tack
    from tack.call import signature
    from tack.check.run import Prepared

    (case,) = [c for c in cases(name)]
    dev = tack.set_default_device("cuda")
    kernel = case.fixed if fixed else case.bug
    args = (case.fixed_args or case.args)() if fixed else case.args()
    prep = Prepared(kernel, args)  # final IR; the contract's refusal is kept as data, not raised
    variant = dev.engine.compile(prep.kir)
    values = signature.launch_values(prep.name, dev, prep.values,
                                     dev.capabilities.takes_pointers)
    variant.launch(values + list(prep.hidden), prep.n)
    tack.sync()


def sanitize(tool: str, name: str, fixed: bool, timeout: float) -> dict:
    """Run one launch under `compute-sanitizer --tool TOOL`: what it reported."""
    cmd = ["compute-sanitizer", "--tool", tool, "--print-limit", "20", sys.executable,
           str(Path(__file__).resolve()), "--case", name] + (["--fixed"] if fixed else [])
    # TACK_CUDA_CACHE=off: each array its own cuMemAlloc, so memcheck sees an array's end
    env = dict(os.environ, PYTHONPATH=f"{ROOT / 'python'}{os.pathsep}{ROOT}", TACK_CUDA_CACHE="off")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout,
                           check=False)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "count": None, "tail": ""}
    out = p.stdout + p.stderr
    hz = _HAZARDS.search(out)
    err = _ERRORS.search(out)
    count = (int(hz.group(2)) + int(hz.group(3))) if hz else int(err.group(1)) if err else None
    status = "found" if count else ("clean" if count == 0 else f"exit {p.returncode}")
    return {"status": status, "count": count, "tail": out[-2000:]}


def tack_check(case, fixed: bool) -> dict:
    import tack

    kernel = case.fixed if fixed else case.bug
    args = (case.fixed_args or case.args)() if fixed else case.args()
    report = tack.check(kernel, *args)
    kinds = sorted({f.kind for f in report.findings})
    return {"status": "found" if report.findings else "clean", "kinds": kinds,
            "verdict": report.verdict}


def cell(r: dict, expected: str | None = None) -> str:
    if r["status"] == "found":
        what = ", ".join(r["kinds"]) if "kinds" in r else f"{r['count']} reported"
        ok = "" if expected is None or expected in r.get("kinds", [expected]) else " (other)"
        return f"**{what}**{ok}"
    return {"clean": "—", "timeout": "timeout (hang)"}.get(r["status"], r["status"])


def table(rows: list[dict], twins: bool) -> str:
    head = ["planted bug", "kind", "tack.check (sim)", *TOOLS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        key = "fixed" if twins else "bug"
        lines.append("| " + " | ".join([r["name"] + (" (twin)" if twins else ""), r["kind"],
                                        cell(r[key]["tack"], r["kind"])]
                                       + [cell(r[key][t]) for t in TOOLS]) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--case", help="run one launch of this case on the CUDA engine and exit")
    p.add_argument("--fixed", action="store_true", help="with --case: the fixed twin")
    p.add_argument("--only", help="comma-separated case names")
    p.add_argument("--jobs", type=int, default=4, help="sanitizer runs at once")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per sanitizer run")
    p.add_argument("--json", metavar="PATH")
    p.add_argument("--quick", action="store_true", help=f"only {QUICK} (unless --only)")
    ns = p.parse_args(argv)
    if ns.quick and not ns.only:
        ns.only = QUICK
    if ns.case:
        launch_one(ns.case, ns.fixed)
        return 0
    if shutil.which("compute-sanitizer") is None:
        print("compute-sanitizer is not on PATH (it comes with the CUDA toolkit); the "
              "tack.check column alone:", file=sys.stderr)
    chosen = cases(ns.only)
    rows = [{"name": c.name, "kind": c.kind, "bug": {"tack": tack_check(c, False)},
             "fixed": {"tack": tack_check(c, True)}} for c in chosen]
    jobs = [(r, key, tool) for r in rows for key in ("bug", "fixed") for tool in TOOLS]
    if shutil.which("compute-sanitizer") is not None:
        with ThreadPoolExecutor(ns.jobs) as pool:
            done = pool.map(lambda j: sanitize(j[2], j[0]["name"], j[1] == "fixed",
                                               ns.timeout), jobs)
            for (r, key, tool), res in zip(jobs, done):
                r[key][tool] = res
    else:
        for r, key, tool in jobs:
            r[key][tool] = {"status": "not run", "count": None}
    print(table(rows, twins=False))
    print()
    print(table(rows, twins=True))
    if ns.json:
        Path(ns.json).write_text(json.dumps(rows, indent=1))
    missed = [r["name"] for r in rows if r["kind"] not in r["bug"]["tack"]["kinds"]
              or r["fixed"]["tack"]["status"] != "clean"]
    if missed:  # the corpus's promise (tests/check): each bug found, each twin clean
        print(f"\ntack.check missed a bug or flagged a twin: {', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
