"""The CUDA caching allocator's effect (runtime/cuda/alloc.py): per-call time of code that makes
temporaries, with the cache on and with TACK_CUDA_CACHE=off, each in its own process.

    PYTHONPATH=python python3 bench/cuda_alloc.py [--reps 200] [--json out.json]
    PYTHONPATH=python python3 bench/cuda_alloc.py --quick     # 5 calls per run: a smoke run

Cases: a 1 MiB temporary made, written by a kernel and dropped per call (`temporary`); the same
with the result read back (`temporary+read`); `tack.ops.layer_norm` of 64 x 1024 f32 with its
statistics (`layer_norm_stats`: three allocations per call). Prints microseconds per call
(median of 5 runs) and the cache's counters.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, statistics, sys, time
import numpy as np
import tack

tack.set_default_device("cuda")
reps = int(sys.argv[1])

@tack.kernel
def fill(out, v):
    for i in range(out.shape[0]):
        out[i] = v

x = tack.array(np.random.default_rng(0).random((64, 1024)).astype(np.float32))

def temporary():
    t = tack.empty(1 << 18)
    fill(t, 1.0)

def temporary_read():
    t = tack.empty(1 << 18)
    fill(t, 1.0)
    t.numpy()

def layer_norm_stats():
    tack.ops.layer_norm(x, return_stats=True)

check = tack.empty(1 << 18)  # the timed code computes what it should
fill(check, 1.0)
assert (check.numpy() == 1.0).all(), "fill wrote wrong values"
del check

out = {}
for name, fn in (("temporary", temporary), ("temporary+read", temporary_read),
                 ("layer_norm_stats", layer_norm_stats)):
    for _ in range(10):
        fn()
    tack.sync()
    runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        tack.sync()
        runs.append((time.perf_counter() - t0) / reps * 1e6)
    out[name] = statistics.median(runs)
out["stats"] = tack.cuda.memory_stats()
print(json.dumps(out))
"""


def run(reps: int, cache: str) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), str(ROOT)]),
               TACK_CUDA_CACHE=cache)
    with tempfile.TemporaryDirectory() as tmp:  # a file: Tack reads kernels from their source
        child = Path(tmp) / "cuda_alloc_child.py"
        child.write_text(textwrap.dedent(CHILD))
        p = subprocess.run([sys.executable, str(child), str(reps)], env=env,
                           capture_output=True, text=True, timeout=600, check=False)
    if p.returncode:
        raise SystemExit(f"TACK_CUDA_CACHE={cache}: {p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--quick", action="store_true", help="5 calls per run (a smoke run)")
    args = ap.parse_args(argv)
    if args.quick:
        args.reps = 5
    on, off = run(args.reps, "on"), run(args.reps, "off")
    print("| case | cache on (us/call) | TACK_CUDA_CACHE=off (us/call) | off / on |")
    print("|---|---|---|---|")
    for name in ("temporary", "temporary+read", "layer_norm_stats"):
        print(f"| {name} | {on[name]:.1f} | {off[name]:.1f} | {off[name] / on[name]:.2f} |")
    print("cache on:", on["stats"])
    print("cache off:", off["stats"])
    if args.json:
        args.json.write_text(json.dumps({"on": on, "off": off}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
