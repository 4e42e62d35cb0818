"""Checksum-valid cache entries that Tack did not write for this kernel (tack.front_cache, the
CPU loader): a variant or spec record of kernel `k0` re-encoded under `k1`'s key must not make
`k1` run `k0`'s code, a record's `written` flags must not lift the refusal of read-only memory,
and an object whose symbols, sections or relocations point outside themselves is refused before
anything of it runs. Each run is a fresh process over one cache directory."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from tack import cache

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

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
from tack import front_cache
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
result.update(code=objload.counts, front=front_cache.counts)
print(json.dumps(result))
"""


def run(tmp_path, *names):
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "kmod.py").write_text(KMOD)
    script = RUNNER.format(pypath=os.path.join(ROOT, "python"), here=str(src), names=names)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TACK_")}
    env.update(TACK_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=300, check=False)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


X = np.arange(16, dtype=np.float32)


def _entries(tmp_path) -> dict:
    """key -> (record kind, payload) of the kernel records."""
    d, out = tmp_path / "cache" / "kernel", {}
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
    with open(tmp_path / "cache" / "kernel" / (key + cache.SUFFIX), "wb") as f:
        f.write(cache.encode("kernel", key, payload, {"record": kind}))


def test_another_kernels_variant_record_under_this_key_is_refused(tmp_path):
    recs = _records_of_each(tmp_path)
    _forge(tmp_path, recs["k1"]["variant"][0], recs["k0"]["variant"][1], "variant")
    r = run(tmp_path, "k1")
    assert r["k1"] == (X * 3).tolist(), "k1 ran k0's code"
    assert r["front"]["variants"] == 0
    assert run(tmp_path, "k1")["front"]["variants"] == 1  # the record was written again


def test_another_kernels_spec_record_under_this_key_is_refused(tmp_path):
    recs = _records_of_each(tmp_path)
    _forge(tmp_path, recs["k1"]["spec"][0], recs["k0"]["spec"][1], "spec")
    r = run(tmp_path, "k1")
    assert r["k1"] == (X * 3).tolist() and r["front"]["specs"] == 0


def test_forged_written_flags_do_not_lift_the_read_only_refusal(tmp_path):
    recs = _records_of_each(tmp_path)
    key, payload = recs["k1"]["spec"]
    lines = payload.decode().split("\n")
    forged = "\n".join("written 0 0" if ln.startswith("written ") else ln for ln in lines)
    assert forged != payload.decode()
    _forge(tmp_path, key, forged.encode(), "spec")
    r = run(tmp_path, "read-only k1")
    assert r["read-only"] == "refused" and r["read-only data"] == [0.0] * 16


# ---- objects whose fields point outside themselves --------------------------------------------
OBJECT_FAULTS = ["symbol-past-section", "symbol-size-past-section", "symbol-absolute",
                 "function-as-data", "data-word-in-code", "symbol-strtab-not-strings",
                 "section-names-not-strings", "relocation-past-section"]


@pytest.mark.parametrize("fault", OBJECT_FAULTS)
def test_a_forged_object_is_refused_by_the_loader(fault):
    """The loader (toolchain/elf.py, objload.py) raises LoadError: nothing of the object runs.
    Before, a symbol value past its section was called (SIGSEGV)."""
    from tack.testing.reliability import forged_objects as F
    from tack.toolchain import objload

    if not objload.supported():
        pytest.skip("ElfImage maps Linux x86-64 objects only")
    obj, symbols = F.sample_object()
    with pytest.raises(objload.LoadError):
        image = objload.ElfImage(F.forge(obj, fault))
        image.check(symbols)


@pytest.mark.parametrize("fault", ["symbol-past-section", "function-as-data"])
def test_a_forged_kernel_object_in_the_cache_is_compiled_again(fault):
    """End to end: the kernel's checksum-valid cpu/ entry forged, a fresh process recompiles
    it (no crash, the right result) and repairs the entry."""
    from tack.testing.reliability import cache_faults as C
    from tack.testing.reliability import forged_objects as F

    ctx = C.prepare("kernel", "readwrite")
    try:
        F.apply(ctx, fault)
        C.verify(ctx, C.consume(ctx), "recompiled")
    finally:
        C.cleanup(ctx)
