"""The disk cache's kernel records (tack.call.records, docs/design/005-disk-cache.md, "Keyed
before the type checker"): a later process launches a kernel from its records without the type
checker, and every change that changes the code — closure values, globals and constant tables
the kernel reads, the source of a library function it calls, the argument dtypes, ranks, scalar
types and baked extents, fastmath, debug mode, Tack's version and code — makes a new key.

Each run is a fresh process over one cache directory; `records` counts the records it used,
`code` what was compiled or mapped from the object cache."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from tack.toolchain import objload

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYPATH = os.path.join(ROOT, "python")

KMOD = """
import tack
import helpers

SCALE = tack.constant({scale})
TABLE = tack.constant({table})


def make(offset):
    OFF = tack.constant(offset)

    @tack.kernel(fastmath={fastmath})
    def transform(x, out, a):
        for i in range(x.shape[0]):
            out[i] = helpers.shape(x[i]) * SCALE + OFF + TABLE[i % 5] + a{extent}

    return transform


transform = make({offset})
"""

HELPERS = """
import tack


@tack.func
def shape(v):
    return {helper}
"""

RUNNER = """
import json, sys
sys.path[:0] = [{pypath!r}, {here!r}]
import numpy as np
import tack
from tack.call import records
from tack.toolchain import objload
{pre}
import kmod

tack.set_default_device("cpu", num_threads=1)
x = tack.array(np.linspace(-4, 4, {n}).astype(np.{dtype}))
out = tack.empty(x.shape, dtype=x.dtype)
kmod.transform(x, out, {a})
print(json.dumps({{"out": out.numpy().tolist(), "code": objload.counts,
                  "records": records.counts,
                  "typecheck": "tack.frontend.typecheck" in sys.modules,
                  "llvm": "llvmlite.binding" in sys.modules}}))
"""

BASE = {"scale": 2.0, "table": (0.0, 1.0, 2.0, 3.0, 4.0), "offset": 0.5, "fastmath": False,
        "extent": "", "helper": "sqrt(abs(v))", "n": 16, "dtype": "float32", "a": 1}
HELPERS_NP = {"sqrt(abs(v))": lambda v: np.sqrt(np.abs(v)), "abs(v)": np.abs}


def run(tmp_path, env=None, pre="", **changes):
    """One fresh process with the kernel as `changes` make it: (its report, the expected out)."""
    p = dict(BASE, **changes)
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "kmod.py").write_text(KMOD.format(**p))
    (src / "helpers.py").write_text(HELPERS.format(helper=p["helper"]))
    script = RUNNER.format(pypath=PYPATH, here=str(src), pre=pre, **p)
    e = {k: v for k, v in os.environ.items() if not k.startswith("TACK_")}
    e.update({"TACK_CACHE_DIR": str(tmp_path / "cache"), "PYTHONDONTWRITEBYTECODE": "1"})
    e.update(env or {})
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=e, timeout=300, check=False)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout.strip().splitlines()[-1])
    x = np.linspace(-4, 4, p["n"]).astype(p["dtype"])
    want = (HELPERS_NP[p["helper"]](x) * p["scale"] + p["offset"]
            + np.array(p["table"])[np.arange(p["n"]) % 5] + p["a"])
    if p["extent"]:
        want = want + p["n"]
    np.testing.assert_allclose(got["out"], want, rtol=1e-5)
    return got


def from_records(r) -> bool:
    """The process launched the kernel from its records: no type checker, nothing compiled."""
    return r["records"]["variants"] == 1 and r["code"]["compiled"] == 0 and not r["typecheck"]


def test_a_later_process_launches_from_the_records_without_the_type_checker(tmp_path):
    first = run(tmp_path)
    assert first["code"]["compiled"] == 1 and first["records"] == {"specs": 0, "variants": 0}
    second = run(tmp_path, env={"PYTHONHASHSEED": "4321"})  # keys do not follow the hash seed
    assert from_records(second) and second["records"]["specs"] == 1
    if objload.supported():
        assert not second["llvm"]
    assert {f for f in os.listdir(tmp_path / "cache" / "kernel")} and len(
        os.listdir(tmp_path / "cache" / "kernel")) == 2  # the spec record and the variant


@pytest.mark.parametrize("change", [
    {"scale": 3.0},  # a module-level tack.constant
    {"table": (0.0, 1.0, 2.0, 3.0, 5.0)},  # a constant table's entry
    {"offset": 0.25},  # a closure value
    {"helper": "abs(v)"},  # the source of a @tack.func in another module
    {"fastmath": True},
    {"dtype": "float64"},
    {"a": 2 ** 40},  # a scalar argument's type: i32 -> i64
    {"a": 1.5},  # int -> float
], ids=["global-constant", "constant-table", "closure", "library-function", "fastmath",
        "dtype", "scalar-i64", "scalar-float"])
def test_a_change_to_what_the_code_depends_on_makes_a_new_key(tmp_path, change):
    run(tmp_path)
    changed = run(tmp_path, **change)
    assert changed["records"]["variants"] == 0 and changed["typecheck"], changed
    again = run(tmp_path, **change)
    assert from_records(again), again
    assert from_records(run(tmp_path))  # the first kernel's records are still there


def test_baked_extents_key_their_own_variants(tmp_path):
    """`x.shape[0]` in the body is baked into the code: another length is another variant,
    found from the same spec record; a length the body does not read shares one variant."""
    run(tmp_path, extent=" + x.shape[0]")
    other = run(tmp_path, extent=" + x.shape[0]", n=24)
    assert other["records"] == {"specs": 1, "variants": 0} and other["code"]["compiled"] == 1
    assert from_records(run(tmp_path, extent=" + x.shape[0]", n=24))
    run(tmp_path)
    assert from_records(run(tmp_path, n=40))  # nothing baked: any length


def test_debug_mode_and_the_cache_off_never_use_records(tmp_path):
    run(tmp_path)
    debug = run(tmp_path, env={"TACK_DEBUG": "1"})
    assert debug["records"] == {"specs": 0, "variants": 0} and debug["typecheck"]
    off = run(tmp_path, env={"TACK_CACHE": "off"})
    assert off["records"] == {"specs": 0, "variants": 0} and off["code"]["compiled"] == 1


@pytest.mark.parametrize("pre", [
    "import tack.cache.keys as K; K.__version__ = '0.0.0+another'",  # another Tack release
    "import tack.cache.keys as K; K._package_digest = 'f' * 64",  # Tack's own code changed
], ids=["version", "package-code"])
def test_another_tack_makes_new_keys(tmp_path, pre):
    run(tmp_path)
    other = run(tmp_path, pre=pre)
    assert other["records"]["variants"] == 0 and other["code"]["compiled"] == 1


def _records(tmp_path, kind):
    from tack import cache

    d = tmp_path / "cache" / "kernel"
    for name in os.listdir(d):
        with open(d / name, "rb") as f:
            got = cache.decode("kernel", name[:-4], f.read())
        if got and json.loads(got[1]).get("record") == kind:
            yield d / name, name[:-4], got


@pytest.mark.parametrize("kind", ["spec", "variant"])
@pytest.mark.parametrize("payload", [b"", b"tack-record/1\n", b"tack-record/1\nname  x\n",
                                     b"garbage \xff\n", b"tack-record/1\nrange 1 2 3\n"])
def test_a_forged_record_is_ignored_and_replaced(tmp_path, kind, payload):
    """A checksum-valid record that is not one Tack wrote: the kernel is typechecked and
    compiled (its code comes from the object cache), and the record rewritten."""
    from tack import cache

    run(tmp_path)
    (path, key, _), = _records(tmp_path, kind)
    with open(path, "wb") as f:
        f.write(cache.encode("kernel", key, payload, {"record": kind}))
    r = run(tmp_path)
    assert r["records"]["variants"] == 0 and r["code"] == {"compiled": 0, "cached": 1}
    assert from_records(run(tmp_path))


def test_a_record_whose_code_is_gone_compiles_it_again(tmp_path):
    run(tmp_path)
    for name in os.listdir(tmp_path / "cache" / "cpu"):
        os.unlink(tmp_path / "cache" / "cpu" / name)
    r = run(tmp_path)
    assert r["records"] == {"specs": 1, "variants": 0} and r["code"]["compiled"] == 1
    assert from_records(run(tmp_path))


def test_a_variant_record_that_does_not_match_the_parameters_is_ignored(tmp_path):
    """A well-formed record whose parameters differ from what the type checker would give
    (one dropped, a dtype changed) is not launched: its layout would not fit the arguments."""
    from tack import cache

    run(tmp_path)
    (path, key, (payload, _)), = _records(tmp_path, "variant")
    lines = payload.decode().split("\n")
    params = [k for k, line in enumerate(lines) if line.startswith("param ")]
    for forged in (lines[:params[-1]] + lines[params[-1] + 1:],
                   [ln.replace(" f32 ", " f64 ") for ln in lines]):
        with open(path, "wb") as f:
            f.write(cache.encode("kernel", key, "\n".join(forged).encode(), {"record": "x"}))
        r = run(tmp_path)
        assert r["records"]["variants"] == 0 and r["code"] == {"compiled": 0, "cached": 1}
