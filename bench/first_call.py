"""First call of the seed's `transform` (32 f32 elements) in fresh processes: cold compile
(TACK_CACHE=off) and loaded from the disk cache, as wall time and as the process's CPU time
(`time.process_time`: what a loaded machine's other processes do not add). `import tack` is
timed separately and not
included; each run is a new interpreter. docs/design/005-disk-cache.md quotes this. A cached run
reports whether it launched from the kernel's records (tack.call.records: no type checker loaded)
and whether LLVM was loaded.

    PYTHONPATH=python python bench/first_call.py [--runs 15] [--threads N] [--cache-dir DIR]
        [--site DIR] [--quick]

Without --cache-dir a temporary cache directory is used (the user's cache is left alone).
`--site DIR` measures the Tack installed in DIR (`pip install --no-deps --target DIR .`, as a
user has it: Tack's code is then fingerprinted by its RECORD, tack.cache.keys) instead of the
checkout on PYTHONPATH (one `stat` per module); the output says which. The
script byte-compiles the package first and clears PYTHONDONTWRITEBYTECODE for its children, as an
installed package has it (bench/_stats.py); otherwise the modules a first call imports would be
compiled from source in every run. The two rows alternate run by run, so machine noise hits both.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _stats import bytecode_env

SCRIPT = r'''
import sys, time
t0 = time.perf_counter()
import numpy as np
import tack
t_import = time.perf_counter() - t0
tack.set_default_device("cpu"{threads})
rng = np.random.default_rng(42)
host_x = rng.normal(size=32).astype(np.float32)
x = tack.array(host_x)
out = tack.empty(host_x.shape)

@tack.kernel
def transform(x, out):
    for i in range(x.shape[0]):
        out[i] = sqrt(abs(x[i]))

start, cpu0 = time.perf_counter(), time.process_time()
transform(x, out)
first, first_cpu = time.perf_counter() - start, time.process_time() - cpu0
for _ in range(5):
    transform(x, out)
times = []
for _ in range(30):
    s = time.perf_counter()
    transform(x, out)
    times.append(time.perf_counter() - s)
np.testing.assert_allclose(out.numpy(), np.sqrt(np.abs(host_x)), rtol=2e-6, atol=1e-7)
try:
    from tack.toolchain.objload import counts
except ImportError:
    try:
        from tack.runtime.objload import counts  # a Tack before the toolchain package
    except ImportError:  # a Tack before the disk cache
        counts = {{"compiled": "?", "cached": "?"}}
try:
    from tack.call.records import counts as records
except ImportError:  # a Tack before the kernel records
    records = {{"variants": "?"}}
import json
fp = getattr(tack.cache, "code_fingerprint", tack.cache.package_fingerprint)()[1]  # (computed)
print(json.dumps({{"fingerprint": "RECORD" if isinstance(fp, str) else f"{{len(fp)}} modules",
                  "tack": tack.__file__, "first_ms": first * 1e3, "first_cpu_ms": first_cpu * 1e3,
                  "import_ms": t_import * 1e3,
                  "warm_us": float(np.median(times)) * 1e6, "code": counts,
                  "records": records["variants"],
                  "typecheck_loaded": "tack.frontend.typecheck" in sys.modules,
                  "llvm_loaded": "llvmlite.binding" in sys.modules}}))
'''


def run(script: str, env: dict) -> dict:
    res = subprocess.run([sys.executable, script], capture_output=True, text=True, env=env,
                         check=False)
    if res.returncode:
        sys.exit(res.stderr)
    return json.loads(res.stdout.strip().splitlines()[-1])


def child_env(site: str | None) -> tuple[dict, str]:
    """The children's environment (bytecode_env) and its note, their Tack the one installed in
    `site` if given, else the one on PYTHONPATH."""
    if site:
        site = os.path.abspath(site)
        env, note = bytecode_env([os.path.join(site, "tack")])
        env["PYTHONPATH"] = os.pathsep.join(
            [site] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        return env, note
    import tack

    return bytecode_env([os.path.dirname(os.path.abspath(tack.__file__))])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--threads", type=int, default=None, help="num_threads (default: all)")
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--site", default=None, help="measure the Tack installed in this directory")
    ap.add_argument("--quick", action="store_true", help="one run per row (a smoke run)")
    a = ap.parse_args()
    if a.quick:
        a.runs = 1
    script = SCRIPT.format(threads="" if a.threads is None else f", num_threads={a.threads}")
    with tempfile.TemporaryDirectory(prefix="tack-bench-") as tmp:
        path = os.path.join(tmp, "seed_transform.py")  # kernels are compiled from a file
        with open(path, "w") as f:
            f.write(script)
        script = path
        base, note = child_env(a.site)
        env = dict(base, TACK_CACHE_DIR=a.cache_dir or os.path.join(tmp, "cache"))
        env.pop("TACK_CACHE", None)
        modes = (("cold (TACK_CACHE=off)", dict(env, TACK_CACHE="off")), ("cached", env))
        rows = {name: [] for name, _ in modes}
        run(script, env)  # fills the cache (and warms the OS file cache for both modes)
        for _ in range(a.runs):  # interleaved, so that machine noise hits both alike
            for name, e in modes:
                rows[name].append(run(script, e))
    import platform

    print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs; "
          f"{a.runs} fresh processes per row, alternating, medians (min-max); {note}")
    print(f"Tack {os.path.dirname(rows['cached'][-1]['tack'])}; its code fingerprinted by "
          f"{rows['cached'][-1]['fingerprint']}")
    for name, rs in rows.items():
        first = [r["first_ms"] for r in rs]
        cpu = [r["first_cpu_ms"] for r in rs]
        imp = [r["import_ms"] for r in rs]
        warm = [r["warm_us"] for r in rs]
        print(f"{name:22s} first call {statistics.median(first):7.2f} ms "
              f"({min(first):.2f}-{max(first):.2f}), CPU time {statistics.median(cpu):6.2f} ms "
              f"({min(cpu):.2f}-{max(cpu):.2f}); import tack "
              f"{statistics.median(imp):6.1f} ms; warm call {statistics.median(warm):5.2f} µs; "
              f"compiled {rs[-1]['code']['compiled']}, from cache {rs[-1]['code']['cached']}, "
              f"from records {rs[-1].get('records', '?')}; type checker loaded: "
              f"{rs[-1].get('typecheck_loaded', '?')}, LLVM loaded: {rs[-1]['llvm_loaded']}")


if __name__ == "__main__":
    main()
