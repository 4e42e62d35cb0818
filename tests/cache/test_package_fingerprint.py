"""Tack's own code in cache keys (tack.cache.keys.code_fingerprint): a checkout is
fingerprinted by the size and mtime of every module but the top layer's (test harnesses, the
Julia bridges: nothing else imports them), so an edit in place of a module that a cached first
call never imports (the renderer) makes the next process compile anew; an installed package by
its RECORD, which an upgrade rewrites; an editable install's RECORD, which lists no module,
counts as a checkout (docs/design/005-disk-cache.md, "What is cached").

Each run is a fresh process over one cache directory, importing a copy of the package."""
from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys

from tack import __version__
from tack.cache import keys

from tests.architecture import arch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = os.path.join(ROOT, "python", "tack")

KERNEL = """
import json, sys
import numpy as np
import tack
from tack import cache
from tack.call import records
from tack.toolchain import objload

tack.set_default_device("cpu", num_threads=1)


@tack.kernel
def transform(x, out):
    for i in range(x.shape[0]):
        out[i] = sqrt(abs(x[i])) + 1.0


x = tack.array(np.linspace(-4, 4, 16).astype(np.float32))
out = tack.empty(x.shape)
transform(x, out)
np.testing.assert_allclose(out.numpy(), np.sqrt(np.abs(x.numpy())) + 1, rtol=1e-6)
fp = cache.code_fingerprint()
print(json.dumps({"tack": tack.__file__, "compiled": objload.counts["compiled"],
                  "records": records.counts["variants"],
                  "fingerprint": "RECORD" if isinstance(fp[1], str) else len(fp[1])}))
"""


def copy_package(site) -> str:
    """A copy of the tack package in `site` (its own directory, so keys name it)."""
    dst = os.path.join(site, "tack")
    shutil.copytree(PACKAGE, dst, ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def run(tmp_path, site) -> dict:
    script = tmp_path / "kernel.py"
    script.write_text(KERNEL)
    env = dict(os.environ, PYTHONPATH=str(site), TACK_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("TACK_CACHE", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # the copy's bytecode: later runs start faster
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env, cwd=tmp_path, check=False)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout.strip().splitlines()[-1])
    assert got["tack"].startswith(str(site))
    return got


def write_record(site, pkg: str, extra: str = "") -> None:
    """The RECORD an installer writes: every file with its sha256 and size."""
    rows = []
    for d, _, files in os.walk(pkg):
        for name in sorted(files):
            p = os.path.join(d, name)
            with open(p, "rb") as f:
                data = f.read()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            rows.append(f"{os.path.relpath(p, site)},sha256={digest.decode()},{len(data)}")
    info = os.path.join(site, f"{keys.DISTRIBUTION}-{__version__}.dist-info")
    os.makedirs(info, exist_ok=True)
    rows.sort()
    rows.append(f"{os.path.relpath(info, site)}/RECORD,,")
    with open(os.path.join(info, "RECORD"), "w") as f:
        f.write("\n".join(rows) + "\n" + extra)


def test_an_edit_in_place_in_a_checkout_compiles_anew(tmp_path):
    site = tmp_path / "checkout"
    pkg = copy_package(site)
    first = run(tmp_path, site)
    assert first["compiled"] == 1 and first["fingerprint"] > 100
    assert run(tmp_path, site)["records"] == 1  # the next process launches from the records
    with open(os.path.join(pkg, "render", "llvm", "printer.py"), "a") as f:  # the same file, written in
        f.write("# an edit of the renderer, a module a cached first call never imports\n")
    after = run(tmp_path, site)
    assert after["compiled"] == 1 and after["records"] == 0
    assert run(tmp_path, site)["records"] == 1
    with open(os.path.join(pkg, "testing", "__init__.py"), "a") as f:  # the top layer
        f.write("# an edit of the test harness, which no compiled code depends on\n")
    assert run(tmp_path, site)["records"] == 1


def test_the_skipped_packages_are_the_top_layer():
    """Nothing below the top layer imports it (tests/test_architecture.py), so no code or record
    depends on it: what `code_fingerprint` may leave out of a checkout's key."""
    assert {f"tack.{name}" for name in keys.TOP_LAYER} == set(arch.LAYERS[-1])
    paths = [p for p, _, _ in keys._module_stats(PACKAGE, keys.TOP_LAYER)]
    assert paths and not any(p.split("/")[0] in keys.TOP_LAYER for p in paths)
    assert len(paths) < len(keys._module_stats(PACKAGE))


def test_an_installed_package_is_fingerprinted_by_its_record(tmp_path):
    site = tmp_path / "site"
    pkg = copy_package(site)
    write_record(site, pkg)
    first = run(tmp_path, site)
    assert first["compiled"] == 1 and first["fingerprint"] == "RECORD"
    assert run(tmp_path, site)["records"] == 1
    write_record(site, pkg, extra="tack/new_module.py,sha256=AAAA,10\n")  # an upgrade
    after = run(tmp_path, site)
    assert after["compiled"] == 1 and after["records"] == 0
    assert run(tmp_path, site)["records"] == 1


def test_an_editable_install_record_counts_as_a_checkout(tmp_path):
    root = tmp_path / "tack"
    root.mkdir()
    info = tmp_path / f"{keys.DISTRIBUTION}-{__version__}.dist-info"
    info.mkdir()
    (info / "RECORD").write_text(f"__editable__.{keys.DISTRIBUTION}-{__version__}.pth,"
                                 "sha256=x,18\n")
    assert keys._installed_record(str(root)) is None  # it names a path hook, not the modules
    (info / "RECORD").write_text("tack/__init__.py,sha256=x,10\ntack/a.py,sha256=y,5\n")
    one = keys._installed_record(str(root))
    (info / "RECORD").write_text("tack/__init__.py,sha256=x,10\ntack/a.py,sha256=z,5\n")
    assert one is not None and keys._installed_record(str(root)) not in (None, one)


def test_module_stats_list_every_module_once_sorted():
    files = keys._module_stats(PACKAGE)
    paths = [p for p, _, _ in files]
    assert paths == sorted(paths) and len(set(paths)) == len(paths)
    assert "__init__.py" in paths and "render/llvm/printer.py" in paths and "cache/keys.py" in paths
    assert not any("__pycache__" in p or not p.endswith(".py") for p in paths)
    on_disk = sum(f.endswith(".py") for d, _, fs in os.walk(PACKAGE) if "__pycache__" not in d
                  for f in fs)
    assert len(paths) == on_disk
