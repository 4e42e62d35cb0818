"""Memory of a process that compiles many kernels: RSS after N distinct specializations, and
after they are dropped (docs/performance.md, "Memory of many compiles").

    PYTHONPATH=python python bench/compile_rss.py --n 2000
    TACK_COMPILE_IN_PROCESS=all PYTHONPATH=python python bench/compile_rss.py --n 2000  # before
    PYTHONPATH=python python bench/compile_rss.py --quick     # 10 compiles: a smoke run

Each kernel has its own literal, so each is a fresh LLVM compile (the disk cache is off).
"""
from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
import tempfile
import time


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def kernels_module(n: int, where: str) -> str:
    src = ["import tack", ""]
    for j in range(n):
        src += ["@tack.kernel", f"def k{j}(x, out):", "    for i in range(x.shape[0]):",
                f"        out[i] = x[i] * {j}.5 + 1.0", ""]
    with open(os.path.join(where, "rss_kernels.py"), "w") as f:
        f.write("\n".join(src))
    return "rss_kernels"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--quick", action="store_true", help="10 compiles after 2 warm ones")
    a = ap.parse_args()
    warm = 2 if a.quick else 50
    if a.quick:
        a.n = 10
    os.environ["TACK_CACHE"] = "off"
    import numpy as np
    import tack
    from tack.toolchain import compile_worker

    tmp = tempfile.mkdtemp()
    sys.path.insert(0, tmp)
    mod = importlib.import_module(kernels_module(a.n + warm, tmp))
    x, out = tack.array(np.ones(64, np.float32)), tack.empty((64,))
    for j in range(warm):  # warm: LLVM loaded, first compiles done
        getattr(mod, f"k{j}")(x, out)
    gc.collect()
    base, t0 = rss_mb(), time.perf_counter()
    for j in range(warm, a.n + warm):
        getattr(mod, f"k{j}")(x, out)
        if (j - warm + 1) % 500 == 0:
            print(f"  {j - warm + 1:5d} compiles: RSS {rss_mb():7.1f} MB", flush=True)
    if out.numpy()[0] != (a.n + warm - 1) + 1.5:  # the last kernel's x * j.5 + 1.0 of ones
        raise SystemExit(f"wrong result {out.numpy()[0]} of k{a.n + warm - 1}")
    dt = time.perf_counter() - t0
    after = rss_mb()
    del mod
    sys.modules.pop("rss_kernels", None)
    gc.collect()
    dropped = rss_mb()
    print(f"in-process limit {compile_worker.in_process_limit()}: {a.n} compiles, "
          f"{dt / a.n * 1e3:.1f} ms each; RSS {base:.1f} MB -> {after:.1f} MB "
          f"(+{after - base:.1f}, {(after - base) * 1024 / a.n:.1f} KB per compile); "
          f"after dropping the kernels {dropped:.1f} MB")


if __name__ == "__main__":
    main()
