"""Run every tutorial with --check on one backend and print a table: the main job.

    python docs/examples/validate.py --arch cpu
    python docs/examples/validate.py --arch cuda            # on an NVIDIA GPU
    python docs/examples/validate.py --arch sim --only heat nbody

Each tutorial runs as its own process (`python docs/examples/NAME.py --arch X --check`) with a
timeout, so one that crashes or hangs cannot take the others down. The backend is started
exactly as asked in each of them (no silent fallback). The table shows each tutorial's first call
(which includes compiling unless the disk cache holds the kernel), its warm median and the
verdict: ok, FAIL (a check or the program failed: its last lines are printed), TIMEOUT, or
not available (the backend or a library cannot start here). The exit status is 0 only when every
tutorial passed.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TUTORIALS = ("heat", "dye", "physarum", "contours", "mpm", "nbody", "isosurface", "array_sizes",
             "kernel_results", "interop")
TIMING = re.compile(r"timing: first call ([\d.]+) ms, warm ([\d.na]+) ms")


def run_one(name: str, arch: str, timeout: float) -> dict:
    cmd = [sys.executable, str(HERE / f"{name}.py"), "--arch", arch, "--check"]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=timeout,
                              env=os.environ.copy())
    except subprocess.TimeoutExpired:
        return {"name": name, "verdict": "TIMEOUT", "wall": timeout, "detail": ""}
    wall = time.perf_counter() - start
    out = proc.stdout + proc.stderr
    found = TIMING.search(proc.stdout)
    verdict = {0: "ok", 2: "not available"}.get(proc.returncode, "FAIL")
    if proc.returncode == 0 and (found is None or "check passed" not in proc.stdout):
        verdict = "FAIL"  # exited 0 without its checks: not a pass
    return {"name": name, "verdict": verdict, "wall": wall,
            "first": found.group(1) if found else "-", "warm": found.group(2) if found else "-",
            "detail": "" if verdict == "ok" else "\n".join(out.strip().splitlines()[-8:])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="cpu", choices=("cpu", "cuda", "sim", "julia"))
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per tutorial")
    ap.add_argument("--only", nargs="+", choices=TUTORIALS, help="a subset of the tutorials")
    args = ap.parse_args(argv)
    names = args.only or TUTORIALS
    print(f"Tutorials on --arch {args.arch}, each with --check (timeout {args.timeout:.0f} s)\n")
    print(f"{'tutorial':16s} {'first call':>12s} {'warm':>12s} {'wall':>8s}  verdict")
    results = []
    for name in names:
        r = run_one(name, args.arch, args.timeout)
        results.append(r)
        first = f"{r['first']} ms" if r.get("first", "-") != "-" else "-"
        warm = f"{r['warm']} ms" if r.get("warm", "-") != "-" else "-"
        print(f"{name:16s} {first:>12s} {warm:>12s} {r['wall']:7.1f}s  {r['verdict']}", flush=True)
        if r["detail"]:
            print("    " + r["detail"].replace("\n", "\n    "))
    ok = sum(r["verdict"] == "ok" for r in results)
    print(f"\n{ok}/{len(results)} passed on {args.arch}")
    return 0 if ok == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
