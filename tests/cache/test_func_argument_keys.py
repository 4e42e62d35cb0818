"""A kernel called with a `@tack.func` argument is kept in the disk cache's records
(tack.call.records): the parse it selects holds the function's inlined body, so a later process
launches it from the records while the function's code is unchanged, another function or an
edited one makes a new key, and the hash seed plays no part (docs/language.md, "Device
functions as arguments")."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

STEPS = """
import tack


@tack.func
def step(a, b):
    return {step}


@tack.func
def other(a, b):
    return a - b


@tack.kernel
def pairwise(x, out, combine):
    for i in range(out.shape[0]):
        out[i] = combine(x[2 * i], x[2 * i + 1])
"""

RUNNER = """
import json, sys
sys.path[:0] = [{pypath!r}, {here!r}]
import numpy as np
import tack
from tack.call import records
from tack.toolchain import objload
import steps

tack.set_default_device("cpu", num_threads=1)
x = tack.array(np.arange(16, dtype=np.float32))
out = tack.zeros(8)
steps.pairwise(x, out, {which})
print(json.dumps({{"out": out.numpy().tolist(), "code": objload.counts,
                  "records": records.counts,
                  "typecheck": "tack.frontend.typecheck" in sys.modules}}))
"""


def run(tmp_path, step="a + b", which="steps.step", env=None):
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "steps.py").write_text(STEPS.format(step=step))
    e = {k: v for k, v in os.environ.items() if not k.startswith("TACK_")}
    e.update({"TACK_CACHE_DIR": str(tmp_path / "cache"), "PYTHONDONTWRITEBYTECODE": "1"})
    e.update(env or {})
    script = RUNNER.format(pypath=os.path.join(ROOT, "python"), here=str(src), which=which)
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=e, timeout=300, check=False)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout.strip().splitlines()[-1])
    v = np.arange(16, dtype=np.float32)
    a, b = v[0::2], v[1::2]
    want = {"steps.other": a - b}.get(which, {"a + b": a + b, "a * b": a * b}[step])
    np.testing.assert_array_equal(got["out"], want)
    return got


def from_records(r) -> bool:
    return r["records"]["variants"] == 1 and r["code"]["compiled"] == 0 and not r["typecheck"]


def test_a_function_argument_is_keyed_by_its_inlined_body(tmp_path):
    first = run(tmp_path)
    assert first["records"] == {"specs": 0, "variants": 0} and first["code"]["compiled"] == 1
    assert from_records(run(tmp_path, env={"PYTHONHASHSEED": "4321"}))
    other = run(tmp_path, which="steps.other")  # another function: another key
    assert other["records"]["variants"] == 0 and other["typecheck"]
    edited = run(tmp_path, step="a * b")  # the same function, edited: another key
    assert edited["records"]["variants"] == 0 and edited["typecheck"]
    assert from_records(run(tmp_path, step="a * b"))
    assert from_records(run(tmp_path, which="steps.other", step="a * b"))
