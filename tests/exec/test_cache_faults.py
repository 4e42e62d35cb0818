"""Disk-cache faults found by the reliability probe: a FIFO at an entry path,
an unsafe kind subdirectory, a checksum-valid entry the ELF loader rejects, a huge entry. Each is
refused without blocking, crashing or reading more than the header, and the kernel still runs."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from tack import cache
from tack.toolchain import objload

from tests.exec.disk_cache import PYPATH, entries, run_transform


def _the_entry(cdir):
    run_transform()
    (path,) = entries(cdir)
    return path, os.path.basename(path)[:-len(cache.SUFFIX)]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_at_an_entry_path_never_blocks_and_clear_removes_it(cdir):
    path, key = _the_entry(cdir)
    os.unlink(path)
    os.mkfifo(path, 0o600)
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {PYPATH!r})
        from tack import cache
        print(cache.load("cpu", {key!r}))
    """)
    env = dict(os.environ, TACK_CACHE_DIR=str(cdir))
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=60, check=True)  # before: blocked in open() forever
    assert res.stdout.strip() == "None"
    assert cache.load("cpu", key) is None
    before = dict(objload.counts)
    run_transform()  # compiles; the store replaces the FIFO with an entry
    assert objload.counts["compiled"] == before["compiled"] + 1
    assert cache.load("cpu", key) is not None
    os.unlink(path)
    os.mkfifo(path, 0o600)
    os.symlink(str(cdir / "nowhere"), str(cdir / "cpu" / ("0" * 64 + cache.SUFFIX)))
    (cdir / "cpu" / "notes.txt").write_text("not Tack's")
    res = subprocess.run([sys.executable, "-m", "tack.cache", "--clear"], capture_output=True,
                         text=True, env=dict(env, PYTHONPATH=PYPATH), timeout=60, check=True)
    left = sorted(os.listdir(cdir / "cpu"))
    assert left == ["notes.txt"], (left, res.stdout)


@pytest.mark.parametrize("problem", ["world-writable", "group-writable", "symlink",
                                     "another owner"])
def test_the_kind_subdirectory_is_checked_on_load(cdir, monkeypatch, tmp_path, problem):
    path, key = _the_entry(cdir)
    sub = os.path.dirname(path)
    monkeypatch.setattr(cache.config, "_checked", {})
    monkeypatch.setattr(cache.config, "_warned", set())
    assert cache.load("cpu", key) is not None
    monkeypatch.setattr(cache.config, "_checked", {})
    if problem == "world-writable":
        os.chmod(sub, 0o777)
    elif problem == "group-writable":
        os.chmod(sub, 0o770)
    elif problem == "symlink":
        os.replace(sub, tmp_path / "elsewhere")
        os.symlink(tmp_path / "elsewhere", sub)
    else:
        real = cache.config._insecure

        def foreign(p, st):
            return "owned by another user (uid 12345)" if p == sub else real(p, st)

        monkeypatch.setattr(cache.config, "_insecure", foreign)
        monkeypatch.setattr(cache.storage, "_insecure", foreign)
    with pytest.warns(RuntimeWarning, match="not reading from"):
        assert cache.load("cpu", key) is None


def test_a_checksum_valid_entry_the_elf_loader_rejects_is_recompiled_not_given_to_mcjit(
        cdir, monkeypatch):
    _, key = _the_entry(cdir)
    arm = bytearray(b"\x7fELF\x02\x01\x01" + bytes(9)) + (1).to_bytes(2, "little") + \
        (183).to_bytes(2, "little") + bytes(44)
    for bad in (bytes(arm), b"\x7fELF" + os.urandom(300), bytes(400)):
        assert cache.store("cpu", key, bad, {"symbols": ["x"]})  # checksum-valid, forged

        def no_mcjit(*a, **k):
            raise AssertionError("a cache entry was handed to MCJIT")

        monkeypatch.setattr(objload, "MCJITImage", no_mcjit)
        before = dict(objload.counts)
        run_transform()
        assert objload.counts["compiled"] == before["compiled"] + 1
        monkeypatch.undo()
        monkeypatch.setenv("TACK_CACHE_DIR", str(cdir))
        assert cache.load("cpu", key).data[:4] == b"\x7fELF"  # replaced by the fresh object


def test_elf_loader_turns_malformed_fields_into_load_error(cdir):
    _, key = _the_entry(cdir)
    good = cache.load("cpu", key).data
    rng = np.random.default_rng(15)
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {PYPATH!r})
        import numpy as np
        from tack.toolchain import objload
        from tack import cache
        good = cache.load("cpu", {key!r}).data
        rng, kinds = np.random.default_rng(int(sys.argv[1])), set()
        for _ in range(150):
            b = bytearray(good)
            for _ in range(int(rng.integers(1, 6))):
                b[int(rng.integers(0, min(len(b), 4096)))] ^= 1 << int(rng.integers(0, 8))
            try:
                objload.ElfImage(bytes(b))
                kinds.add("mapped")
            except objload.LoadError:
                kinds.add("refused")
        print(sorted(kinds))
    """)
    if not objload.supported():
        pytest.skip("ElfImage maps Linux x86-64 objects only")
    env = dict(os.environ, TACK_CACHE_DIR=str(cdir))
    res = subprocess.run([sys.executable, "-c", script, str(int(rng.integers(1 << 30)))],
                         capture_output=True, text=True, env=env, timeout=120, check=False)
    assert res.returncode == 0, res.stderr[-2000:]  # no other exception, no crash
    assert "refused" in res.stdout and len(good) > 0


def test_a_huge_entry_is_refused_after_reading_its_header(cdir, monkeypatch):
    path, key = _the_entry(cdir)
    with open(path, "r+b") as f:
        f.truncate(3 << 30)  # sparse: 3 GiB on paper, nothing written
    read = []
    real_read = os.read

    def counting_read(fd, n):
        b = real_read(fd, n)
        read.append(len(b))
        return b

    monkeypatch.setattr(cache.storage.os, "read", counting_read)
    t0 = time.perf_counter()
    assert cache.load("cpu", key) is None
    assert time.perf_counter() - t0 < 1.0
    monkeypatch.setattr(cache.storage.os, "read", real_read)
    assert sum(read) <= cache.entry.HEADER_SIZE
    before = dict(objload.counts)
    run_transform()
    assert objload.counts["compiled"] == before["compiled"] + 1
    assert os.path.getsize(path) < 1 << 20 and cache.load("cpu", key) is not None


def test_a_size_that_disagrees_with_the_header_is_refused(cdir):
    path, key = _the_entry(cdir)
    with open(path, "ab") as f:
        f.write(b"\0" * 10)
    assert cache.load("cpu", key) is None
    with open(path, "r+b") as f:
        f.truncate(cache.entry.HEADER_SIZE - 1)
    assert cache.load("cpu", key) is None
