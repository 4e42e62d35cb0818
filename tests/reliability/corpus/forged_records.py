"""Forged kernel records (tack.call.records): a checksum-valid record of kernel `k0` copied under
`k1`'s key, and a spec record whose `written` flags were cleared. Each run is a fresh process over
one cache directory; the scenarios return what the last run saw. Used by table_runtime.py and
tests/cache/test_forged_records.py.

    r = variant_of_another_kernel(tmp)   # r["k1"]: what k1 computed; r["records"]: records used
"""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import tack
from tack import cache

_PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(tack.__file__)))  # has `tack`

KMOD = """
import tack


@tack.kernel
def k0(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + 1.0


@tack.kernel
def k1(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * 3.0
"""

RUNNER = """
import json, sys
sys.path[:0] = [{pypath!r}, {here!r}]
import numpy as np
import tack
from tack.call import records
from tack.toolchain import objload
import kmod

tack.set_default_device("cpu", num_threads=1)
x = tack.array(np.arange(16, dtype=np.float32))
out = tack.zeros(16)
result = {{}}
for name in {names!r}:
    if name == "read-only k1":
        h = np.zeros(16, np.float32)
        h.flags.writeable = False
        ro = tack.from_dlpack(h)
        try:
            kmod.k1(x, ro)
            result["read-only"] = "launched"
        except ValueError as exc:
            result["read-only"] = "refused" if "read-only" in str(exc) else str(exc)
        result["read-only data"] = h.tolist()
        continue
    getattr(kmod, name)(x, out)
    result[name] = out.numpy().tolist()
result.update(code=objload.counts, records=records.counts)
print(json.dumps(result))
"""


def run(tmp_path, *names) -> dict:
    """A fresh process over `tmp_path`'s cache that calls the kernels `names` ("read-only k1":
    k1 on read-only memory)."""
    src = pathlib.Path(tmp_path) / "src"
    src.mkdir(exist_ok=True)
    (src / "kmod.py").write_text(KMOD)
    script = RUNNER.format(pypath=_PKG_PARENT, here=str(src), names=names)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TACK_")}
    env.update(TACK_CACHE_DIR=str(pathlib.Path(tmp_path) / "cache"),
               PYTHONDONTWRITEBYTECODE="1")
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=300, check=False)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def _entries(tmp_path) -> dict:
    """key -> (record kind, payload) of the kernel records."""
    d, out = pathlib.Path(tmp_path) / "cache" / "kernel", {}
    for name in os.listdir(d):
        with open(d / name, "rb") as f:
            got = cache.decode("kernel", name[:-4], f.read())
        out[name[:-4]] = (json.loads(got[1])["record"], got[0])
    return out


def _records_of_each(tmp_path) -> dict:
    """{kernel: {record kind: (key, payload)}}, by calling k0 first and then k1."""
    run(tmp_path, "k0")
    first = _entries(tmp_path)
    run(tmp_path, "k1")
    both = _entries(tmp_path)
    out: dict = {"k0": {}, "k1": {}}
    for key, (kind, payload) in both.items():
        out["k0" if key in first else "k1"][kind] = (key, payload)
    assert all(len(v) == 2 for v in out.values()), out
    return out


def _forge(tmp_path, key: str, payload: bytes, kind: str) -> None:
    with open(pathlib.Path(tmp_path) / "cache" / "kernel" / (key + cache.SUFFIX), "wb") as f:
        f.write(cache.encode("kernel", key, payload, {"record": kind}))


def variant_of_another_kernel(tmp_path) -> dict:
    """k0's variant record under k1's key; then k1 is called."""
    recs = _records_of_each(tmp_path)
    _forge(tmp_path, recs["k1"]["variant"][0], recs["k0"]["variant"][1], "variant")
    return run(tmp_path, "k1")


def spec_of_another_kernel(tmp_path) -> dict:
    """k0's spec record under k1's key; then k1 is called."""
    recs = _records_of_each(tmp_path)
    _forge(tmp_path, recs["k1"]["spec"][0], recs["k0"]["spec"][1], "spec")
    return run(tmp_path, "k1")


def written_flags_cleared(tmp_path) -> dict:
    """k1's spec record saying it writes no parameter; then k1 is called on read-only memory
    (r["read-only"]: "refused" or "launched", r["read-only data"]: that memory after)."""
    recs = _records_of_each(tmp_path)
    key, payload = recs["k1"]["spec"]
    lines = payload.decode().split("\n")
    forged = "\n".join("written 0 0" if ln.startswith("written ") else ln for ln in lines)
    assert forged != payload.decode()
    _forge(tmp_path, key, forged.encode(), "spec")
    return run(tmp_path, "read-only k1")
