"""Robust ratios for bench/cpu.py and bench/first_call.py: per-round ratios of interleaved
measurements, their median and spread, and a verdict only where the spread is smaller than the gap.

Each round times Tack and a peer back to back (one block of calls each, or one fresh process
each), so a burst of load from another process mostly hits both sides of one ratio. The ratio is
Tack's speed relative to the peer's (peer time / Tack time: >= 1 means Tack is at least as fast).
Over the rounds we report the median ratio and the interquartile range (25th-75th percentile); the
verdict "faster" or "slower" is given only when the whole range lies on one side of 1.0, i.e. the
spread is smaller than the gap. Otherwise: "parity (within noise)".
"""
from __future__ import annotations

import compileall
import os
import statistics
import time

import numpy as np


def median_time(fn, sync, reps: int) -> float:
    """The median wall time of `reps` calls of `fn`, each ended by `sync` (a device wait)."""
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        sync()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def ratio_stats(tack_times, peer_times) -> dict | None:
    """Per-round speed ratios peer/tack of two equally long lists of per-round times."""
    pairs = [(t, p) for t, p in zip(tack_times, peer_times) if t and p]
    if not pairs:
        return None
    r = np.array([p / t for t, p in pairs])
    q25, med, q75 = (float(v) for v in np.percentile(r, [25, 50, 75]))
    if q25 > 1.0:
        verdict = "tack faster"
    elif q75 < 1.0:
        verdict = "tack slower"
    else:
        verdict = "parity (within noise)"
    return {"median": med, "q25": q25, "q75": q75, "rounds": len(r), "verdict": verdict}


def fmt_ratio(st: dict | None) -> str:
    if st is None:
        return "-"
    return (f"{st['median']:.2f}x (IQR {st['q25']:.2f}-{st['q75']:.2f}, {st['rounds']} rounds) "
            f"{st['verdict']}")


def bytecode_env(package_dirs) -> tuple[dict, str]:
    """Byte-compile `package_dirs` (as `pip install` does) and return the environment for child
    processes without PYTHONDONTWRITEBYTECODE, so a cold start imports cached bytecode like an
    installed package; plus a sentence saying so."""
    for d in package_dirs:
        compileall.compile_dir(d, quiet=1, force=False)
    env = dict(os.environ)
    had = env.pop("PYTHONDONTWRITEBYTECODE", None)
    note = ("package byte-compiled (compileall) and PYTHONDONTWRITEBYTECODE "
            + ("cleared" if had is not None else "unset") + " for the child processes, as an "
            "installed package imports")
    return env, note
