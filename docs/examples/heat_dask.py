"""The 2-D heat equation of heat.py over a chunked Dask array: each step is one Tack kernel call
per chunk with a one-row/one-column overlap (tack.dask.map_blocks, halo=1), on a local cluster.

    python docs/examples/heat_dask.py --check            # 2 workers, compared with heat.py
    python docs/examples/heat_dask.py --size 2048 --chunk 512 --steps 20

Each worker runs its chunks on its default device (the CPU here; on GPU workers,
`client.run(tack.set_default_device, "cuda:0")`). The overlap gives every chunk its neighbours'
edge values and the kernel's own boundary rule applies at the array's edges, so --check finds
the result equal bit for bit to heat.py's single-array run. Needs dask and distributed:
pip install '.[dask]' in a clone of Tack.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import tack
import tack.dask

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heat import heat_step, initial  # the shared kernel and initial field

try:
    import dask.array as da
    import distributed
except ImportError:  # pragma: no cover - the message is the point
    sys.exit("heat_dask.py needs dask and distributed: pip install '.[dask]' in a clone of Tack")


def single(u0: np.ndarray, steps: int) -> np.ndarray:
    u, v = tack.array(u0), tack.zeros(u0.shape)
    for _ in range(steps):
        heat_step(u, v)
        u, v = v, u
    return u.numpy()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--size", type=int, default=None, help="grid side (default 1024, 64 checked)")
    ap.add_argument("--chunk", type=int, default=None, help="chunk side (default size / 2)")
    ap.add_argument("--steps", type=int, default=None, help="steps (default 10, 5 checked)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--check", action="store_true", help="compare with heat.py bit for bit")
    args = ap.parse_args(argv)
    n = args.size or (64 if args.check else 1024)
    steps = args.steps or (5 if args.check else 10)
    u0 = initial(n)
    with distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        u = da.from_array(u0, chunks=args.chunk or max(n // 2, 1))
        t = time.perf_counter()
        for _ in range(steps):  # each step a graph of one kernel call per chunk
            u = tack.dask.map_blocks(heat_step, u, out_dtype=tack.f32, halo=1).persist()
        got = u.compute()
        per_step = (time.perf_counter() - t) / steps
    print(f"{n}x{n} in chunks of {u.chunksize}, {args.workers} workers: "
          f"{per_step * 1e3:.2f} ms per step")
    if args.check:
        if not np.array_equal(got, single(u0, steps)):
            print("check FAILED: the chunked result differs from heat.py's run")
            return 1
        print("check: the chunked result equals the single-array run bit for bit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
