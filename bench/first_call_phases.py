"""Where a cached first call's time goes: the steps of `Kernel`'s first call of the seed's
`transform` (32 f32 elements), timed one by one in fresh processes from a filled disk cache.

    PYTHONPATH=python python bench/first_call_phases.py [--runs 7] [--path records|typed]
        [--site DIR] [--quick]

`records` (the default) is the path a process takes when the kernel's records are in the cache
(tack.call.records): parse, key, spec and variant records, object entry, map. `typed` is the path
without them (what every cached first call took before the records, and still takes when they
are missing): parse, type checker, IR passes, `KernelIR` digest, object key, entry, map. Each step
is the process's CPU time (`time.process_time`, so other processes on a loaded machine add little),
medians over the runs; the steps' imports are timed where the call path first makes them. The
last step is the kernel's own first call, which repeats the path's lookups and launches (so
"total" counts those lookups twice; the prebuilt call path waits for a second call). Like
bench/first_call.py,
the package is byte-compiled first and PYTHONDONTWRITEBYTECODE cleared for the children, and
`--site DIR` measures the Tack installed there (`pip install --no-deps --target DIR .`).
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
from first_call import child_env

SCRIPT = r'''
import json, os, sys, time
T = {}
def tick(name, t0):
    T[name] = T.get(name, 0) + (time.process_time() - t0) * 1e3
    return time.process_time()
import numpy as np
import tack
tack.set_default_device("cpu")
x = tack.array(np.random.default_rng(1).normal(size=32).astype(np.float32))
out = tack.empty(x.shape)

@tack.kernel
def transform(x, out):
    for i in range(x.shape[0]):
        out[i] = sqrt(abs(x[i]))

if os.environ.get("FILL"):  # the first run: fills the cache
    transform(x, out)
    sys.exit(0)
from tack.call import signature
from tack.call.plan import CallPlan
args = [x, out]
start = t = time.process_time()
dev = signature.launch_device("transform", args)
pk = transform.parse_for(args); t = tick("parse", t)
import tack.cache; t = tick("import tack.cache", t)
eng = dev.engine; t = tick("engine start: import runtime.cpu.engine, toolchain", t)
from tack import cache
from tack.toolchain import llvm_host, objload
if {typed}:
    from tack import compiler
    from tack.runtime.cpu import engine as cpu
    import tack.frontend.typecheck; t = tick("import the type checker", t)
    specs = signature.specs("transform", pk.params, args); t = tick("argument specs", t)
    typed = compiler.typecheck(transform, pk, specs); t = tick("type check", t)
    import tack.passes.pipeline; t = tick("import the IR passes", t)
    kir = compiler.lower(typed); t = tick("IR passes", t)
    src = cpu._source(kir, True); t = tick("KernelIR digest", t)
    llvm_host.host_info(); t = tick("host record", t)
    cache.package_digest(); t = tick("package fingerprint", t)
    key = llvm_host.code_key(src); t = tick("object key", t)
else:
    import tack.call.records as fc; t = tick("import tack.call.records", t)
    fc.parse_digest(pk); t = tick("parse digest", t)
    llvm_host.host_fingerprint(); t = tick("host fingerprint (/proc/cpuinfo)", t)
    cache.package_digest(); t = tick("package fingerprint", t)
    plan = CallPlan("transform", dev, pk, False)
    skey = fc.plan_key(transform, plan, args); t = tick("spec key", t)
    fc.load_plan(transform, plan, args); t = tick("spec key again, read spec record", t)
    vkey = fc.variant_key(skey, ())
    rec = cache.load("kernel", vkey); t = tick("read variant record", t)
    from tack.runtime.cpu import record as cpu_record
    head = fc._VARIANT + f"transform {vkey}\n".encode()  # bound to the kernel and its key
    assert rec.data.startswith(head), "the variant record is not the one call/records.py writes"
    key = cpu_record.loads(rec.data[len(head):])[2]; t = tick("parse variant record", t)
entry = cache.load("cpu", key); t = tick("read object entry", t)
objload.map_object(entry.data, fallback=False); t = tick("map the object (ElfImage)", t)
transform(x, out); t = tick("the kernel's first call (the lookups again, the launch)", t)
T["total"] = (time.process_time() - start) * 1e3
print(json.dumps(T))
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--path", choices=("records", "typed"), default="records")
    ap.add_argument("--site", default=None, help="measure the Tack installed in this directory")
    ap.add_argument("--quick", action="store_true", help="one timed run (a smoke run)")
    a = ap.parse_args()
    if a.quick:
        a.runs = 1
    base, note = child_env(a.site)
    with tempfile.TemporaryDirectory(prefix="tack-bench-") as tmp:
        path = os.path.join(tmp, "phases.py")  # kernels are compiled from a file
        with open(path, "w") as f:
            f.write(SCRIPT.replace("{typed}", str(a.path == "typed")))
        env = dict(base, TACK_CACHE_DIR=os.path.join(tmp, "cache"))
        env.pop("TACK_CACHE", None)
        rows = []
        for k in range(a.runs + 1):  # the first run fills the cache
            res = subprocess.run([sys.executable, path], capture_output=True, text=True,
                                 env=dict(env, FILL="1") if k == 0 else env, check=False)
            if res.returncode:
                sys.exit(res.stderr)
            if k:
                rows.append(json.loads(res.stdout.strip().splitlines()[-1]))
    print(f"{a.path} path: CPU time per step, median (min-max) of {a.runs} fresh processes; "
          f"{note}")
    for name in rows[0]:
        xs = [r[name] for r in rows]
        print(f"  {name:58s} {statistics.median(xs):6.2f} ms ({min(xs):.2f}-{max(xs):.2f})")


if __name__ == "__main__":
    main()
