#!/usr/bin/env python
"""The GPU scans side by side at 2^28 f32: torch.cumsum, the two-pass scan and the single-pass
look-back scan at several block spans, sub-tiles per tile, with and without tickets, the write
unrolled or a loop (`tack.algorithms.tuning`'s window, sub, tickets and lean); a variant is
span/sub/tickets/lean. Each is checked first (integers exact, f32 the same
bits twice and within 1e-3 of Σ|x|), then timed in interleaved rounds (median of `--reps`
synchronized calls per round).

    PYTHONPATH=python:. python3 bench/scan_variants.py --out results.json
    PYTHONPATH=python:. python3 bench/scan_variants.py --variants 16/2/1/0,16/2/1/1
    PYTHONPATH=python:. python3 bench/scan_variants.py --quick [--device sim]   # a smoke run

The exit status is 1 when a variant's check fails.

Prints one line per variant as it goes (a hung variant leaves the earlier lines) and the
look-back kernel's registers, local and shared bytes (`tack.inspect(..., mode="resources")`).
"""
from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys

import numpy as np
import tack
from _stats import median_time
from tack import algorithms as A
from tack.algorithms import lookback as LB
from tack.algorithms import scans
from tack.algorithms.settings import DEFAULT


def _variant(look_back: bool, span: int = 16, sub: int = 2, tickets: int = 1, lean: int = 0):
    settings = A.tuning(scan="look_back" if look_back else "two_pass", window=span, sub=sub,
                        tickets=bool(tickets), lean=bool(lean))

    def run(a, d, n):
        with settings:
            return A.inclusive_scan(a, d, n)
    return run


def _check(run, name: str, sizes=(4097, 3 * 4096 * 256 + 5, 10 ** 7)) -> str:
    """Integers exact at awkward sizes (three blocks of 256 tiles and more); f32 repeatable and
    close at the last size."""
    rng = np.random.default_rng(1)
    for n in sizes:
        k = rng.integers(0, 1000, n).astype(np.int32)
        d = tack.zeros(n, tack.i32)
        want = np.cumsum(k, dtype=np.int32)  # wrapping at 32 bits, as the scan does
        if run(tack.array(k), d, n) != int(want[-1]) or not np.array_equal(d.numpy(), want):
            return f"{name}: i32 scan wrong at n={n}"
    x = rng.standard_normal(sizes[-1]).astype(np.float32)
    d1, d2 = tack.zeros(x.size, tack.f32), tack.zeros(x.size, tack.f32)
    t1, t2 = run(tack.array(x), d1, x.size), run(tack.array(x), d2, x.size)
    if t1 != t2 or not np.array_equal(d1.numpy().view(np.uint32), d2.numpy().view(np.uint32)):
        return f"{name}: f32 bits differ between runs"
    err = float(np.abs(d1.numpy() - np.cumsum(x, dtype=np.float64)).max())
    if err > 1e-3 * float(np.abs(x).sum()):
        return f"{name}: f32 error {err}"
    return "ok"


def _resources(n: int) -> dict:
    src, dst = tack.zeros(n, tack.f32), tack.zeros(n, tack.f32)
    tiles = -(-n // scans.TILE)
    words = tack.zeros(LB.layout(tiles, 256)[0], tack.u64)
    cfg = DEFAULT  # the kernel the defaults choose
    text = tack.inspect(LB.scan_kernel("f32", cfg.sub, cfg.lean), src, dst, words, n, tiles, 0,
                        cfg.window, cfg.patience, 1, *scans.steps(dst)[1:], mode="resources")
    return json.loads(text)


def _torch_row(x, device: str):
    """torch.cumsum's row and a synchronize of both (none without a GPU or without torch)."""
    if device != "cuda":
        return {}, tack.sync
    try:
        import torch
    except ImportError:
        print("torch is not installed: no torch.cumsum row", flush=True)
        return {}, tack.sync

    tx = torch.from_numpy(x).cuda()

    def sync():
        tack.sync()
        torch.cuda.synchronize()

    return {"torch.cumsum": lambda: torch.cumsum(tx, 0)}, sync


def _parts(a, d, n: int) -> dict:
    """What the scans are made of, timed alone: the two-pass scan's second kernel (the tile
    scan a single pass also does, without the look-back) and the look-back's fixed costs (the
    clear launch and the one-word read of the total)."""
    tiles = -(-n // scans.TILE)
    part = tack.zeros(tiles, tack.f32)
    tree, scan, _ = scans.steps(d)
    scans.tile_totals(a, d, part, n, tree)
    scans._scan(part, part, tiles, 0)
    size, total = LB.layout(tiles, 256)
    words = tack.zeros(size, tack.u64)

    def fixed():
        LB.clear(words)
        return words[total]

    return {"two-pass tile_scan alone": lambda: scans.tile_scan(a, d, part, n, 0, scan),
            "look-back clear + total read": fixed}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2", type=int, default=28)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--variants", default="16/2/1/0,16/2/1/1,32/2/1/1,16/4/1/1,16/1/1/0",
                    help="look-back variants: span/sub/tickets/lean, comma-separated")
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-check", action="store_true", help="time only (a profiler's run)")
    ap.add_argument("--device", default="cuda", help="'sim' for a dry run without a GPU")
    ap.add_argument("--quick", action="store_true",
                    help="2^12 elements, two variants, one round of one call (a smoke run)")
    args = ap.parse_args()
    if args.quick:
        args.log2, args.reps, args.rounds, args.variants = 12, 1, 1, "16/2/1/0,16/2/1/1"
    tack.set_default_device(*(("cpu", "sim") if args.device == "sim" else ("cuda",)))
    sizes = ((4097, 3 * 4096 * 256 + 5, 10 ** 7) if args.device == "cuda" and not args.quick
             else (4097, 9000))
    n = 1 << args.log2
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    a, d = tack.array(x), tack.zeros(n, tack.f32)
    rows, sync = _torch_row(x, args.device)
    variants = {"two-pass": _variant(False)}
    for v in args.variants.split(","):
        span, sub, tk, lean = (int(x) for x in (v + "/0").split("/")[:4])
        variants[f"look-back {span}/{sub}/{tk}/{lean}"] = _variant(True, span, sub, tk, lean)
    result = {"n": n, "checks": {}, "ms": {}, "resources": None}
    for name, run in variants.items():
        status = "not checked" if args.no_check else _check(run, name, sizes)
        result["checks"][name] = status
        print(name, status, flush=True)
        rows[name] = functools.partial(run, a, d, n)  # timed even if wrong: the check says so
    rows.update(_parts(a, d, n))
    try:
        result["resources"] = _resources(n) if args.device == "cuda" else None
    except Exception as exc:  # noqa: BLE001 - a report, not a result: say what failed
        result["resources"] = repr(exc)
    print("resources", result["resources"], flush=True)
    times = {name: [] for name in rows}
    for rnd in range(args.rounds):
        order = list(rows)[rnd % len(rows):] + list(rows)[:rnd % len(rows)]
        for name in order:
            rows[name]()
            sync()
            times[name].append(median_time(rows[name], sync, args.reps))
    base = statistics.median(times.get("torch.cumsum", times["two-pass"]))
    for name, ts in times.items():
        ms = statistics.median(ts) * 1e3
        result["ms"][name] = ms
        print(f"{name:40s} {ms:7.3f} ms {8 * n / ms / 1e6:7.0f} GB/s "
              f"torch/this {base * 1e3 / ms:5.2f}x", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
    wrong = [name for name, status in result["checks"].items()
             if status not in ("ok", "not checked")]
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
