"""Kernels of other shapes through the disk cache's records (tack.call.records): launch ranges
with hidden start and step parameters, an ndrange, vector arrays, scalars of several types, and
the IR of a kernel taken from records (`llvm_ir`, `tack.inspect`). Each run is a fresh process;
the second must launch from the records and give the first one's results."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYPATH = os.path.join(ROOT, "python")

KMOD = '''
import tack


@tack.kernel
def strided(x, out, lo, step):
    for i in range(lo, x.shape[0], step):
        out[i] = x[i] * 2.0 + lo


@tack.kernel
def grid(a, out, k):
    for i, j in tack.ndrange(a.shape[0], a.shape[1]):
        out[i, j] = a[i, j] * k + i - j


@tack.kernel
def lengths(v, out):
    for i in range(v.shape[0]):
        out[i] = sqrt(v[i].x * v[i].x + v[i].y * v[i].y + v[i].z * v[i].z)
'''

RUNNER = '''
import json, sys
sys.path[:0] = [{pypath!r}, {here!r}]
import numpy as np
import tack
from tack.call import records
from tack.toolchain import objload
import kmod

tack.set_default_device("cpu", num_threads=1)
x = tack.array(np.arange(20, dtype=np.float64))
s = tack.zeros(20, dtype=tack.f64)
kmod.strided(x, s, 3, 4)
a = tack.array(np.arange(12, dtype=np.float32).reshape(3, 4))
g = tack.zeros((3, 4))
kmod.grid(a, g, np.float32(0.5))
v = tack.array(np.arange(15, dtype=np.float32).reshape(5, 3), dtype=tack.vec3)
n = tack.zeros(5)
kmod.lengths(v, n)
plan = next(iter(kmod.grid._plans.values()))
ir = next(iter(plan.variants.values())).launchable.llvm_ir
src = tack.inspect(kmod.lengths, v, n, mode="source")
print(json.dumps({{"s": s.numpy().tolist(), "g": g.numpy().tolist(), "n": n.numpy().tolist(),
                  "records": records.counts, "code": objload.counts,
                  "ir": "define" in ir and "tack_grid" in ir, "src": "tack_lengths" in src}}))
'''


def run(tmp_path):
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "kmod.py").write_text(KMOD)
    e = {k: v for k, v in os.environ.items() if not k.startswith("TACK_")}
    e.update({"TACK_CACHE_DIR": str(tmp_path / "cache"), "PYTHONDONTWRITEBYTECODE": "1"})
    res = subprocess.run([sys.executable, "-c", RUNNER.format(pypath=PYPATH, here=str(src))],
                         capture_output=True, text=True, env=e, timeout=300, check=False)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_ranges_ndranges_vectors_and_ir_from_records(tmp_path):
    first = run(tmp_path)
    second = run(tmp_path)
    assert first["records"] == {"specs": 0, "variants": 0}
    assert second["records"] == {"specs": 3, "variants": 3}, second
    assert second["code"]["compiled"] == 0
    want_s = np.zeros(20)
    want_s[3::4] = np.arange(20)[3::4] * 2.0 + 3
    i, j = np.indices((3, 4))
    want_g = np.arange(12).reshape(3, 4) * 0.5 + i - j
    want_n = np.linalg.norm(np.arange(15).reshape(5, 3), axis=1)
    for r in (first, second):
        np.testing.assert_allclose(r["s"], want_s)
        np.testing.assert_allclose(r["g"], want_g, rtol=1e-6)
        np.testing.assert_allclose(r["n"], want_n, rtol=1e-6)
        assert r["ir"] and r["src"]
