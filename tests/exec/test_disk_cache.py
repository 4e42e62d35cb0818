"""The disk cache (tack.cache, docs/design/005-disk-cache.md): a later process loads kernels
instead of compiling them; keys follow the code; damaged, foreign or unsafe entries and
directories are never used; concurrent writers never corrupt an entry; nothing is unpickled."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import tack
from tack import cache
from tack.toolchain import llvm_host, objload

from tests.exec.disk_cache import PYPATH, entries, run_transform

# ---- a kernel in its own file, run in fresh processes ------------------------------------------
KERNEL_FILE = """
import numpy as np
import tack

SCALE = tack.constant({scale})


@tack.func
def shape(v):
    return {helper}


@tack.kernel
def transform(x, out):
    for i in range(x.shape[0]):
        out[i] = shape(x[i]) * SCALE
"""

RUNNER = """
import json, sys, time
sys.path[:0] = [{pypath!r}, {here!r}]
import numpy as np
import tack
from tack import cache
from tack.toolchain import objload
import kmod

tack.set_default_device("cpu"{threads})
host = np.linspace(-4, 4, {n}).astype(np.{dtype})
x = tack.array(host)
out = tack.empty(host.shape, dtype=tack.{tdtype})
t0 = time.perf_counter()
kmod.transform(x, out)
first = time.perf_counter() - t0
print(json.dumps({{"out": out.numpy().tolist(), "first_ms": first * 1e3,
                  "cache": cache.stats(), "code": objload.counts,
                  "llvm_loaded": "llvmlite.binding" in sys.modules}}))
"""


def write_kernel(path, helper="sqrt(abs(v))", scale=1.0):
    path.mkdir(exist_ok=True)
    (path / "kmod.py").write_text(KERNEL_FILE.format(helper=helper, scale=scale))


def run_fresh(path, cache_dir, n=32, dtype="float32", threads=None, env=None):
    script = RUNNER.format(pypath=PYPATH, here=str(path), n=n, dtype=dtype,
                           tdtype={"float32": "f32", "float64": "f64"}[dtype],
                           threads="" if threads is None else f", num_threads={threads}")
    e = {k: v for k, v in os.environ.items() if not k.startswith("TACK_")}
    e.update({"TACK_CACHE_DIR": str(cache_dir), "PYTHONDONTWRITEBYTECODE": "1"})
    e.update(env or {})
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=e, timeout=300, check=False)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def expect(helper_np, n=32, scale=1.0, dtype=np.float32):
    v = np.linspace(-4, 4, n).astype(dtype)
    return helper_np(v) * dtype(scale)


def test_a_second_process_loads_the_kernel_instead_of_compiling(tmp_path, cdir):
    write_kernel(tmp_path / "k")
    want = expect(lambda v: np.sqrt(np.abs(v)))
    first = run_fresh(tmp_path / "k", cdir)
    np.testing.assert_allclose(first["out"], want, rtol=2e-6)
    assert first["code"]["compiled"] >= 1 and first["cache"]["stores"] >= 1
    # a different hash seed: rendering must not depend on set/dict order of strings
    second = run_fresh(tmp_path / "k", cdir, env={"PYTHONHASHSEED": "12345"})
    np.testing.assert_allclose(second["out"], want, rtol=2e-6)
    assert second["code"] == {"compiled": 0, "cached": 1}
    assert second["cache"]["stores"] == 0 and second["cache"]["rejected"] == 0
    if objload.supported():  # mapped by ElfImage: LLVM (llvmlite.binding) is never imported
        assert first["llvm_loaded"] and not second["llvm_loaded"]
    assert len(entries(cdir)) == 1 and len(entries(cdir, "host")) == 1


def test_the_thread_pool_code_is_cached_too(tmp_path, cdir):
    """A launch big enough to go parallel needs the pool's code: a later process maps it. (The
    pool starts once a launch's serial rest would cost more than starting it, ~2 ms: four libm
    calls per element make this one ~10 ms.)"""
    write_kernel(tmp_path / "k", helper="sin(cos(sin(cos(v))))")
    want = expect(lambda v: np.sin(np.cos(np.sin(np.cos(v)))), n=300_000)
    first = run_fresh(tmp_path / "k", cdir, n=300_000, threads=2)
    np.testing.assert_allclose(first["out"], want, rtol=2e-6)
    assert first["code"]["compiled"] == 2  # the kernel and the pool
    second = run_fresh(tmp_path / "k", cdir, n=300_000, threads=2)
    np.testing.assert_allclose(second["out"], want, rtol=2e-6)
    assert second["code"] == {"compiled": 0, "cached": 2}


def test_cache_off_compiles_and_writes_nothing(tmp_path, cdir):
    write_kernel(tmp_path / "k")
    for _ in range(2):
        r = run_fresh(tmp_path / "k", cdir, env={"TACK_CACHE": "off"})
        assert r["code"] == {"compiled": 1, "cached": 0} and r["llvm_loaded"]
    assert not os.path.exists(cdir)


@pytest.mark.parametrize("change", ["inlined function", "constant", "dtype", "length"])
def test_the_key_follows_the_code(tmp_path, cdir, change):
    """Editing a @tack.func the kernel inlines, or a tack.constant it reads, or calling it with
    another dtype compiles anew; going back finds the old entry. Another array length is the
    same code here (the extent is a runtime value), so the same entry serves it."""
    k = tmp_path / "k"
    write_kernel(k)
    base = run_fresh(k, cdir)
    kw = {}
    if change == "inlined function":
        write_kernel(k, helper="sqrt(abs(v)) + 1.0")
        want = expect(lambda v: np.sqrt(np.abs(v)) + 1)
    elif change == "constant":
        write_kernel(k, scale=3.0)
        want = expect(lambda v: np.sqrt(np.abs(v)), scale=3.0)
    elif change == "dtype":
        kw = {"dtype": "float64"}
        want = expect(lambda v: np.sqrt(np.abs(v)), dtype=np.float64)
    else:
        kw = {"n": 33}
        want = expect(lambda v: np.sqrt(np.abs(v)), n=33)
    changed = run_fresh(k, cdir, **kw)
    np.testing.assert_allclose(changed["out"], want, rtol=2e-6)
    assert changed["code"] == ({"compiled": 0, "cached": 1} if change == "length" else
                               {"compiled": 1, "cached": 0})
    write_kernel(k)
    again = run_fresh(k, cdir)
    assert again["out"] == base["out"] and again["code"] == {"compiled": 0, "cached": 1}


def test_debug_kernels_are_separate_entries_and_still_report(tmp_path, cdir):
    script = tmp_path / "dbg.py"
    script.write_text(textwrap.dedent(f"""
        import sys, json
        sys.path.insert(0, {PYPATH!r})
        import numpy as np, tack
        from tack.toolchain import objload
        tack.set_default_device("cpu")

        @tack.kernel
        def shift(a, out):
            for i in range(a.shape[0]):
                out[i] = a[i + 1]

        a, out = tack.array(np.arange(8, dtype=np.float32)), tack.empty((8,))
        shift(a, out)
        tack.set_debug(True)
        try:
            shift(a, out)
            msg = None
        except IndexError as exc:
            msg = str(exc)
        print(json.dumps({{"msg": msg, "code": objload.counts}}))
    """))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TACK_")}
    env["TACK_CACHE_DIR"] = str(cdir)
    runs = [json.loads(subprocess.run([sys.executable, str(script)], capture_output=True,
                                      text=True, env=env, check=True).stdout) for _ in range(2)]
    assert runs[0]["code"]["compiled"] == 2 and runs[1]["code"] == {"compiled": 0, "cached": 2}
    assert runs[0]["msg"] == runs[1]["msg"] and "index 8 of dimension 0" in runs[1]["msg"]


# ---- damaged entries: ignored and rebuilt -------------------------------------------------------
def _corrupt(path, how):
    with open(path, "rb") as f:
        blob = bytearray(f.read())
    n = cache.entry._FIXED.size
    if how == "truncated":
        blob = blob[:len(blob) // 2]
    elif how == "empty":
        blob = b""
    elif how == "payload byte flipped":
        blob[-100] ^= 0x40
    elif how == "header byte flipped":
        blob[n + 70] ^= 0x01
    elif how == "garbage":
        blob = os.urandom(len(blob))
    elif how == "wrong format version":
        blob[8:12] = (cache.FORMAT + 1).to_bytes(4, "little")
    elif how == "appended bytes":
        blob += b"\0"
    with open(path, "wb") as f:
        f.write(blob)


@pytest.mark.parametrize("how", ["truncated", "empty", "payload byte flipped",
                                 "header byte flipped", "garbage", "wrong format version",
                                 "appended bytes", "foreign entry"])
def test_a_damaged_entry_is_ignored_and_rebuilt(cdir, how):
    run_transform()
    (path,) = entries(cdir)
    if how == "foreign entry":  # a valid entry of another key, under this key's name
        other = cache.make_key("cpu", "something else")
        assert cache.store("cpu", other, b"\x7fELF not this kernel")
        os.replace(os.path.join(cdir, "cpu", other + ".bin"), path)
    else:
        _corrupt(path, how)
    key = os.path.basename(path)[:-4]
    assert cache.load("cpu", key) is None
    before = dict(objload.counts)
    run_transform()
    assert objload.counts["compiled"] == before["compiled"] + 1
    entry = cache.load("cpu", key)  # rebuilt, intact
    assert entry is not None and entry.data[:4] == b"\x7fELF"
    run_transform()
    assert objload.counts["cached"] == before["cached"] + 1


def test_an_entry_with_unsafe_permissions_or_a_symlink_is_ignored(cdir, tmp_path):
    run_transform()
    (path,) = entries(cdir)
    key = os.path.basename(path)[:-4]
    os.chmod(path, 0o666)
    assert cache.load("cpu", key) is None
    os.chmod(path, 0o600)
    assert cache.load("cpu", key) is not None
    target = tmp_path / "elsewhere.bin"
    os.replace(path, target)
    os.symlink(target, path)
    assert cache.load("cpu", key) is None


def test_entry_format_is_header_json_payload_no_pickle(cdir):
    key = cache.make_key("cpu", "x")
    assert cache.store("cpu", key, b"payload", {"symbols": ["a"]})
    e = cache.load("cpu", key)
    assert e.data == b"payload" and e.meta["symbols"] == ["a"] and "created" in e.meta
    with open(e.path, "rb") as f:
        blob = f.read()
    assert blob.startswith(cache.MAGIC) and blob.endswith(b"payload")
    assert b'"symbols": ["a"]' in blob
    cache_dir = os.path.dirname(cache.__file__)
    for path in [*(os.path.join(cache_dir, f) for f in os.listdir(cache_dir) if f.endswith(".py")),
                 objload.__file__, llvm_host.__file__]:
        with open(path) as f:
            src = f.read()
        assert "pickle" not in src.replace("Nothing is unpickled", "").replace("unpickled", "")
    with pytest.raises(ValueError):
        cache.load("cpu", "../../etc/passwd")
    with pytest.raises(ValueError):
        cache.store("../x", key, b"")


def test_key_encoding_is_canonical_and_unambiguous():
    k = cache.make_key
    assert k("cpu", {"a": 1, "b": [2, "x"]}) == k("cpu", {"b": [2, "x"], "a": 1})
    assert k("cpu", "ab", "c") != k("cpu", "a", "bc")
    assert k("cpu", ["a", "b"]) != k("cpu", "a", "b")
    assert k("cpu", 1) != k("cpu", 1.0) != k("cpu", True) != k("cpu", "1")
    assert k("cpu", b"ab") != k("cpu", "ab")
    assert k("cpu", "x") != k("cuda", "x")
    with pytest.raises(TypeError):
        k("cpu", object())


# ---- unsafe directories -------------------------------------------------------------------------
@pytest.mark.parametrize("problem", ["world-writable", "group-writable", "another owner"])
def test_an_unsafe_directory_is_refused_with_a_warning(cdir, monkeypatch, problem):
    os.makedirs(cdir, mode=0o700)
    if problem == "world-writable":
        os.chmod(cdir, 0o777)
    elif problem == "group-writable":
        os.chmod(cdir, 0o770)
    else:
        uid = os.stat(cdir).st_uid
        monkeypatch.setattr(os, "geteuid", lambda: uid + 1)
    monkeypatch.setattr(cache.config, "_warned", set())
    before = dict(objload.counts)
    with pytest.warns(RuntimeWarning, match="not using the cache directory") as rec:
        run_transform()
    assert ("writable by other users" if "writable" in problem else "owned by another user") \
        in str(rec[0].message)
    assert objload.counts["compiled"] == before["compiled"] + 1
    assert os.listdir(cdir) == [] and cache.directory() is None
    assert "refused" in cache.info()["state"]


def test_an_unwritable_cache_warns_once_and_kernels_still_run(cdir, monkeypatch):
    os.makedirs(cdir / "cpu", mode=0o700)
    monkeypatch.setattr(cache.config, "_warned", set())
    real_open = os.open

    def failing_open(path, flags, *a, **kw):
        if os.path.basename(str(path)).startswith(".tmp-"):
            raise OSError(28, "No space left on device")
        return real_open(path, flags, *a, **kw)

    monkeypatch.setattr(os, "open", failing_open)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        run_transform()
        run_transform()
    msgs = [str(w.message) for w in rec if "cannot write" in str(w.message)]
    assert len(msgs) == 1 and "No space left" in msgs[0]
    assert entries(cdir) == [] and not [f for f in os.listdir(cdir / "cpu")
                                        if f.startswith(".tmp-")]


def test_modes(cdir, monkeypatch):
    assert cache.mode() == "readwrite"
    monkeypatch.setenv("PMI_SIZE", "4")  # an MPI job of 4 ranks: only read
    assert cache.mode() == "read"
    assert not cache.store("cpu", cache.make_key("cpu", 1), b"x")
    monkeypatch.setenv("TACK_CACHE", "on")
    assert cache.mode() == "readwrite"
    monkeypatch.delenv("PMI_SIZE")
    for v, m in (("off", "off"), ("0", "off"), ("read", "read"), ("AUTO", "readwrite")):
        monkeypatch.setenv("TACK_CACHE", v)
        assert cache.mode() == m
    monkeypatch.setenv("TACK_CACHE", "sometimes")
    monkeypatch.setattr(cache.config, "_warned", set())
    with pytest.warns(RuntimeWarning, match="not one of"):
        assert cache.mode() == "readwrite"


def test_read_only_mode_uses_entries_but_writes_none(cdir, monkeypatch):
    run_transform()
    n = len(entries(cdir))
    monkeypatch.setenv("TACK_CACHE", "read")
    before = dict(objload.counts)
    run_transform()
    assert objload.counts["cached"] == before["cached"] + 1

    @tack.kernel
    def other(x, out):
        for i in range(x.shape[0]):
            out[i] = x[i] * 2.0

    other(tack.array(np.ones(4, np.float32)), tack.empty((4,)))
    assert len(entries(cdir)) == n


def test_directory_resolution(monkeypatch, tmp_path):
    monkeypatch.setenv("TACK_CACHE_DIR", str(tmp_path / "a"))
    assert cache.default_directory() == str(tmp_path / "a")
    monkeypatch.delenv("TACK_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.default_directory() == str(tmp_path / "xdg" / "tack")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.default_directory() == str(tmp_path / "home" / ".cache" / "tack")


# ---- concurrency --------------------------------------------------------------------------------
STRESS = """
import os, sys
sys.path.insert(0, {pypath!r})
from tack import cache
key = cache.make_key("stress", "one key")
tag = b"%d:" % os.getpid()
bad = 0
for i in range({rounds}):
    body = tag * (1000 + 37 * (i % 50))
    cache.store("stress", key, body, {{"pid": os.getpid()}})
    e = cache.load("stress", key)
    if e is None:
        bad += 1  # never: some intact entry is always in place once the first write is done
    else:
        t = e.data.split(b":", 1)[0] + b":"
        if e.data != t * (len(e.data) // len(t)) or e.meta["pid"] != int(t[:-1]):
            bad += 1000
print(bad)
"""


def test_concurrent_writers_never_corrupt_an_entry(cdir):
    os.makedirs(cdir, mode=0o700)
    assert cache.store("stress", cache.make_key("stress", "one key"), b"0:", {"pid": 0})
    env = dict(os.environ, TACK_CACHE_DIR=str(cdir))
    procs = [subprocess.Popen([sys.executable, "-c", STRESS.format(pypath=PYPATH, rounds=300)],
                              stdout=subprocess.PIPE, text=True, env=env) for _ in range(6)]
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [0] * 6
    assert [int(o) for o in outs] == [0] * 6
    assert len(entries(cdir, "stress")) == 1
    assert not [f for f in os.listdir(cdir / "stress") if f.startswith(".tmp-")]


def test_processes_compiling_the_same_kernel_at_once(tmp_path, cdir):
    write_kernel(tmp_path / "k")
    script = RUNNER.format(pypath=PYPATH, here=str(tmp_path / "k"), n=32, dtype="float32",
                           tdtype="f32", threads="")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TACK_")}
    env["TACK_CACHE_DIR"] = str(cdir)
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(6)]
    results = [p.communicate(timeout=300) for p in procs]
    want = expect(lambda v: np.sqrt(np.abs(v)))
    for p, (out, err) in zip(procs, results):
        assert p.returncode == 0, err
        np.testing.assert_allclose(json.loads(out)["out"], want, rtol=2e-6)
    (path,) = entries(cdir)
    assert cache.load("cpu", os.path.basename(path)[:-4]) is not None
    assert run_fresh(tmp_path / "k", cdir)["code"] == {"compiled": 0, "cached": 1}


# ---- size bound and maintenance -----------------------------------------------------------------
def test_the_cache_is_bounded_least_recently_used_first(cdir, monkeypatch):
    monkeypatch.setenv("TACK_CACHE_SIZE", "40K")
    keys = [cache.make_key("cpu", i) for i in range(30)]
    for i, key in enumerate(keys):
        assert cache.store("cpu", key, bytes(4000))
        os.utime(os.path.join(cdir, "cpu", key + ".bin"), (1e9 + i, 1e9 + i))
    cache.prune()
    total = sum(os.path.getsize(p) for p in entries(cdir))
    assert total <= 40 * 1024
    left = {os.path.basename(p)[:-4] for p in entries(cdir)}
    assert left and left == set(keys[-len(left):])  # the newest survive


def test_command_line_info_and_clear(cdir):
    run_transform()
    os.makedirs(cdir / "notes")
    (cdir / "README.txt").write_text("mine")
    (cdir / "cpu" / "keep.txt").write_text("mine too")
    env = dict(os.environ, TACK_CACHE_DIR=str(cdir), PYTHONPATH=PYPATH)

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "tack.cache", *args], capture_output=True,
                              text=True, env=env, check=True).stdout

    info = cli("--info")
    assert str(cdir) in info and "state:     ok" in info and "cpu: 1 entries" in info
    assert cli("--path").strip() == str(cdir)
    n = len(entries(cdir)) + len(entries(cdir, "host")) + len(entries(cdir, "kernel"))
    assert f"removed {n} files" in cli("--clear")
    assert entries(cdir) == [] and "entries:   0" in cli()
    assert (cdir / "README.txt").exists() and (cdir / "cpu" / "keep.txt").exists()


# ---- the object loader --------------------------------------------------------------------------
def test_loader_rejects_what_it_does_not_understand():
    for blob in (b"", b"garbage" * 20, b"\x7fELF" + bytes(60)):
        with pytest.raises(objload.LoadError):
            objload.ElfImage(blob)
    arm = bytearray(b"\x7fELF\x02\x01\x01" + bytes(9)) + (1).to_bytes(2, "little") + \
        (183).to_bytes(2, "little") + bytes(44)
    with pytest.raises(objload.LoadError, match="not an x86-64"):
        objload.ElfImage(bytes(arm))


@pytest.mark.skipif(not objload.supported(), reason="ElfImage maps Linux x86-64 objects only")
def test_loader_matches_mcjit_on_libm_calls_constants_and_switches(cdir, monkeypatch):
    """Both loaders run the same object: libm calls (tanf, atan2), constant pools, a loop."""
    ir_text = r"""
declare float @tanf(float)
declare double @atan2(double, double)
@table = internal constant [4 x double] [double 1.5, double -2.0, double 3.25, double 0.0]
define void @k(i64 %n, ptr %x, ptr %y) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %p = getelementptr inbounds float, ptr %x, i64 %i
  %v = load float, ptr %p
  %t = call float @tanf(float %v)
  %j = and i64 %i, 3
  %q = getelementptr inbounds [4 x double], ptr @table, i64 0, i64 %j
  %c = load double, ptr %q
  %vd = fpext float %t to double
  %a = call double @atan2(double %vd, double %c)
  %r = getelementptr inbounds double, ptr %y, i64 %i
  store double %a, ptr %r
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}
"""
    import ctypes

    obj = llvm_host.compile_object(ir_text)
    x = np.linspace(-1, 1, 64).astype(np.float32)
    want = np.arctan2(np.tan(x).astype(np.float64), np.array([1.5, -2.0, 3.25, 0.0])[
        np.arange(64) % 4])
    sig = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p)
    for image in (objload.ElfImage(obj), objload.MCJITImage(obj)):
        y = np.zeros(64)
        sig(image.address("k"))(64, x.ctypes.data, y.ctypes.data)
        np.testing.assert_allclose(y, want, rtol=1e-6)


def test_forced_mcjit_loader_runs_kernels(cdir, monkeypatch):
    monkeypatch.setenv("TACK_CPU_LOADER", "mcjit")
    run_transform()
    assert len(entries(cdir)) == 1
    run_transform()  # and from the cache
    assert len(entries(cdir)) == 1


def test_digest_object_is_by_value_and_refuses_unknown_objects():
    from dataclasses import dataclass, field

    from tack.ir.nodes import Loc

    a = Loc("k.py", 3, 1, 3, 9, source=("x = 1",))
    b = Loc("k.py", 3, 1, 3, 9, source=("something else",))  # not compared, not digested
    assert cache.digest_object(a) == cache.digest_object(b)
    assert cache.digest_object(a) != cache.digest_object(Loc("k.py", 4, 1, 4, 9))
    assert cache.digest_object([tack.f32, np.float32(1.5)]) != \
        cache.digest_object([tack.f64, np.float32(1.5)])
    assert cache.digest_object({"b": 1, "a": (2, None)}) == \
        cache.digest_object({"a": (2, None), "b": 1})
    assert cache.digest_object(1) != cache.digest_object(1.0) != cache.digest_object(True)

    @dataclass
    class D:
        x: object = None
        y: list = field(default_factory=list)

    assert cache.digest_object(D(1, [2])) != cache.digest_object(D(1, [3]))
    for bad in (object(), D(x=object()), {object(): 1}, lambda: 0):
        with pytest.raises(TypeError):
            cache.digest_object(bad)


def test_a_kernel_ir_that_cannot_be_digested_is_keyed_on_its_llvm_ir(cdir, monkeypatch):
    def refuse(obj):
        raise TypeError("no")

    monkeypatch.setattr(cache, "digest_object", refuse)
    before = dict(objload.counts)
    run_transform()
    run_transform()
    assert objload.counts["compiled"] == before["compiled"] + 1
    assert objload.counts["cached"] == before["cached"] + 1
