"""The machinery of the disk-cache rows (table_cache.py): a populated cache per row, a fault
applied to one entry or directory, a fresh consumer process, and what it must come to.

    ctx = prepare("kernel", "readwrite")     # a private cache holding the kernel, pool, host
    apply(ctx, "flip-payload-middle")        # the fault, on the target's entry
    r = consume(ctx)                         # a fresh process calls the kernel over the pool
    verify(ctx, r, "recompiled")             # AssertionError if it came to something else

Targets are the kinds of entry a CPU process reads: the kernel's object code ("kernel"),
the thread pool's ("pool", both under cpu/), the host record ("host", under host/) and the
kernel's records ("spec" and "variant", under kernel/: tack.call.records). The consumer runs the
kernel over 4096 elements on 2 threads, so it reads them all, and prints what it compiled, what
it took from records, what the cache counted and which warnings it gave.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import tack
from tack import cache

_PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(tack.__file__)))  # has `tack`
KERNEL = '''import tack


@tack.kernel
def k(x, out):
    for i in range(x.shape[0]):
        # ~10 ms of work in all, so that the launch starts the thread pool (whose code is one
        # of the cache's entries): the CPU engine runs launches cheaper than that serially
        acc = x[i]
        for j in range(20000):
            acc = acc * 0.5 + 0.5
        out[i] = x[i] * 2.0 + 1.0 + acc * 0.0
'''
CONSUMER = '''
import json, sys, warnings
sys.path[:0] = [{pkg!r}, {kdir!r}]
warnings.simplefilter("always")
import numpy as np
import tack
from tack import cache
from tack.call import records
from tack.toolchain import objload
import kmod

tack.set_default_device("cpu", num_threads=2)
x, out = tack.array(np.arange(4096, dtype=np.float32)), tack.empty((4096,))
with warnings.catch_warnings(record=True) as w:
    kmod.k(x, out)
ok = bool(np.array_equal(out.numpy(), np.arange(4096, dtype=np.float32) * 2 + 1))
print(json.dumps({{"ok": ok, "code": objload.counts, "stats": cache.stats(),
                  "records": records.counts, "warnings": [str(m.message) for m in w]}}))
'''


def _env(ctx: dict, extra=()) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TACK_")}
    env.update({"TACK_CACHE_DIR": ctx["root"], "TACK_CACHE": ctx["mode"],
                "PYTHONDONTWRITEBYTECODE": "1"})
    env.update(dict(extra))
    return env


def _run(ctx: dict, mode: str, extra=(), timeout: float = 120) -> dict:
    script = CONSUMER.format(pkg=_PKG_PARENT, kdir=ctx["kdir"])
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=_env(dict(ctx, mode=mode), extra), timeout=timeout, check=False)
    lines = res.stdout.strip().splitlines()
    if res.returncode != 0 or not lines:
        return {"crashed": f"exit {res.returncode}: {res.stderr.strip()[-400:]}"}
    return json.loads(lines[-1])


def _entries(root: str) -> dict:
    """target -> (path, kind, key) of a populated cache."""
    out = {}
    for kind in ("cpu", "host", "kernel"):
        sub = os.path.join(root, kind)
        for name in sorted(os.listdir(sub)) if os.path.isdir(sub) else []:
            if not name.endswith(cache.SUFFIX):
                continue
            path, key = os.path.join(sub, name), name[:-len(cache.SUFFIX)]
            with open(path, "rb") as f:
                got = cache.decode(kind, key, f.read())
            meta = json.loads(got[1]) if got else {}
            target = ("host" if kind == "host" else meta.get("record") if kind == "kernel" else
                      "pool" if meta.get("label") == "tack_pool" else "kernel")
            out[target] = (path, kind, key)
    return out


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def _shared_dir() -> str:
    """This user's directory of the kernel module and of populated caches: the kernel's file
    must be the same for every row, since its path is part of the kernel's cache key. Named by
    the kernel's text too, so that two checkouts with different kernels never share one."""
    tag = cache.make_key("kmod", KERNEL)[:12]
    d = os.path.join(tempfile.gettempdir(), f"tack-cache-faults-{os.getuid()}-{tag}")
    os.makedirs(os.path.join(d, "src"), mode=0o700, exist_ok=True)
    path = os.path.join(d, "src", "kmod.py")
    if not os.path.exists(path) or _read(path) != KERNEL:
        with open(path + f".{os.getpid()}", "w") as f:
            f.write(KERNEL)
        os.replace(path + f".{os.getpid()}", path)
    return d


def _template(shared: str) -> str:
    """A cache populated by one process, made once per version of Tack's code (its entries'
    keys depend on it) and copied for each row."""
    tag = cache.make_key("faults", cache.package_fingerprint())[:24]
    done = os.path.join(shared, f"cache-{tag}")
    if not os.path.isdir(done):
        fresh = tempfile.mkdtemp(dir=shared)
        ctx = {"kdir": os.path.join(shared, "src"), "root": os.path.join(fresh, "cache")}
        first = _run(ctx, "on")
        assert first.get("ok") and first["code"]["compiled"] >= 2, f"populating: {first}"
        try:
            os.rename(ctx["root"], done)
        except OSError:  # another run made it first
            pass
        shutil.rmtree(fresh, ignore_errors=True)
    return done


def prepare(target: str, mode: str = "readwrite") -> dict:
    """A private copy of a populated cache (the kernel, the pool and the host record)."""
    shared = _shared_dir()
    template = _template(shared)
    base = tempfile.mkdtemp(prefix="tack-cache-fault-")
    ctx = {"base": base, "kdir": os.path.join(shared, "src"),
           "root": os.path.join(base, "cache"), "target": target, "mode": mode}
    shutil.copytree(template, ctx["root"])
    ctx["entries"] = _entries(ctx["root"])
    ctx["path"], ctx["kind"], ctx["key"] = ctx["entries"][target]
    with open(ctx["path"], "rb") as f:
        ctx["good"] = f.read()
    return ctx


def consume(ctx: dict, extra=()) -> dict:
    """What a fresh process comes to with the (faulted) cache."""
    return _run(ctx, ctx["mode"], extra)


def cleanup(ctx: dict) -> None:
    for dirpath, dirnames, _ in os.walk(ctx["base"]):  # faults may have removed permissions
        for d in dirnames:
            p = os.path.join(dirpath, d)
            if not os.path.islink(p):
                os.chmod(p, 0o700)
    shutil.rmtree(ctx["base"], ignore_errors=True)


# ---- faults ------------------------------------------------------------------------------------
H = cache.entry.HEADER_SIZE


def _rewrite(ctx: dict, blob: bytes) -> None:
    with open(ctx["path"], "wb") as f:
        f.write(blob)


def _flip(ctx: dict, at: int) -> None:
    b = bytearray(ctx["good"])
    b[at % len(b)] ^= 0x10
    _rewrite(ctx, bytes(b))


def _store_forged(ctx: dict, payload: bytes, meta=None, kind=None) -> None:
    """A checksum-valid entry under the target's name with another payload (or kind)."""
    _rewrite(ctx, cache.encode(kind or ctx["kind"], ctx["key"], payload,
                               meta if meta is not None else {"symbols": ["tack_k"]}))


def _payload(ctx: dict) -> bytes:
    got = cache.decode(ctx["kind"], ctx["key"], ctx["good"])
    return got[0]


def _offsets(ctx: dict) -> dict:
    _, _, klen, keylen, mlen, dlen, _ = struct.unpack_from("<8sIHHIQ32s", ctx["good"])
    meta_at = H + klen + keylen
    pay_at = meta_at + mlen
    return {"magic": 0, "format": 8, "kind-len": 12, "key-len": 14, "meta-len": 16,
            "payload-len": 20, "digest": 40, "kind": H, "key": H + klen + 3, "meta": meta_at + 2,
            "payload-first": pay_at, "payload-middle": pay_at + dlen // 2,
            "payload-last": pay_at + dlen - 1}


CONTENT = ["empty", "truncate-1", "truncate-header-1", "truncate-header", "truncate-half",
           "truncate-last", "append-1", "append-64k", "flip-magic", "flip-format",
           "format-next", "flip-kind-len", "flip-key-len", "flip-meta-len", "flip-payload-len",
           "flip-digest", "flip-kind", "flip-key", "flip-meta", "flip-payload-first",
           "flip-payload-middle", "flip-payload-last", "garbage", "zeros", "foreign-entry",
           "other-kind", "forged-garbage", "forged-half-object", "forged-flipped-object",
           "huge-claimed", "sparse-3g", "forged-meta-not-json"]
TYPES = ["fifo", "symlink-to-copy", "symlink-dangling", "symlink-loop", "directory", "socket",
         "mode-0666", "mode-0620", "mode-0644", "foreign-owner", "hardlink"]
DIRS = ["kind-0777", "kind-0770", "kind-symlink", "kind-is-file", "kind-foreign-owner"]
ROOTS = ["root-0777", "root-0770", "root-foreign-owner", "root-is-file", "root-symlink",
         "root-missing"]


def apply(ctx: dict, fault: str) -> None:
    """Apply one fault of CONTENT, TYPES, DIRS or ROOTS to the target's entry or directory."""
    if fault in CONTENT:
        return _content(ctx, fault)
    if fault in TYPES:
        return _file_type(ctx, fault)
    return _directory(ctx, fault)


def _content(ctx: dict, fault: str) -> None:
    good, offs = ctx["good"], _offsets(ctx)
    cut = {"empty": 0, "truncate-1": 1, "truncate-header-1": H - 1, "truncate-header": H,
           "truncate-half": len(good) // 2, "truncate-last": len(good) - 1}
    if fault in cut:
        return _rewrite(ctx, good[:cut[fault]])
    if fault.startswith("append-"):
        return _rewrite(ctx, good + b"\0" * (1 if fault == "append-1" else 65536))
    if fault.startswith("flip-"):
        return _flip(ctx, offs[fault[5:]])
    if fault == "format-next":
        return _rewrite(ctx, good[:8] + struct.pack("<I", cache.FORMAT + 1) + good[12:])
    if fault in ("garbage", "zeros"):
        return _rewrite(ctx, os.urandom(len(good)) if fault == "garbage" else bytes(len(good)))
    if fault == "foreign-entry":
        other = cache.make_key(ctx["kind"], "another entry")
        return _rewrite(ctx, cache.encode(ctx["kind"], other, _payload(ctx)))
    if fault == "other-kind":
        return _store_forged(ctx, _payload(ctx), kind="cpu" if ctx["kind"] == "host" else "host")
    if fault == "forged-garbage":
        return _store_forged(ctx, os.urandom(600))
    if fault == "forged-half-object":
        return _store_forged(ctx, _payload(ctx)[:len(_payload(ctx)) // 2])
    if fault == "forged-flipped-object":
        p = bytearray(_payload(ctx))
        for at in range(0x28, min(len(p), 0x40)):  # the ELF header's section-table fields
            p[at] ^= 0x5A
        return _store_forged(ctx, bytes(p))
    if fault == "huge-claimed":  # a header claiming 3 GiB of payload, on a small file
        b = bytearray(good)
        struct.pack_into("<Q", b, 20, 3 << 30)
        return _rewrite(ctx, bytes(b))
    if fault == "sparse-3g":
        with open(ctx["path"], "r+b") as f:
            f.truncate(3 << 30)
        return None
    if fault == "forged-meta-not-json":
        head = ctx["kind"].encode() + ctx["key"].encode() + b"{not json"
        fixed = [cache.MAGIC, cache.FORMAT, len(ctx["kind"]), len(ctx["key"]), 9,
                 len(_payload(ctx))]
        digest = cache.entry._digest(fixed[1:], head, _payload(ctx))
        return _rewrite(ctx, struct.pack("<8sIHHIQ32s", *fixed, digest) + head + _payload(ctx))
    raise ValueError(f"unknown content fault {fault!r}")


def _file_type(ctx: dict, fault: str) -> None:
    path = ctx["path"]
    if fault.startswith("mode-"):
        return os.chmod(path, int(fault[5:], 8))
    if fault == "foreign-owner":
        return os.chown(path, 12345, 12345) if os.geteuid() == 0 else _skip(ctx)
    if fault == "hardlink":
        os.link(path, path + ".link")
        return None
    elsewhere = os.path.join(ctx["base"], "elsewhere.bin")
    os.replace(path, elsewhere)
    if fault == "fifo":
        os.mkfifo(path, 0o600)
    elif fault == "symlink-to-copy":
        os.symlink(elsewhere, path)
    elif fault == "symlink-dangling":
        os.symlink(os.path.join(ctx["base"], "nowhere"), path)
    elif fault == "symlink-loop":
        os.symlink(path, path)
    elif fault == "directory":
        os.mkdir(path)
        ctx["unrepairable"] = True  # os.replace cannot put a file over a directory
    elif fault == "socket":
        s, cwd = socket.socket(socket.AF_UNIX), os.getcwd()
        os.chdir(os.path.dirname(path))  # a socket's path is limited to 107 bytes
        try:
            s.bind(os.path.basename(path))
        finally:
            os.chdir(cwd)
        ctx["socket"] = s
    return None


def _skip(ctx: dict) -> None:
    ctx["skipped"] = "needs root to give a file another owner"


def _directory(ctx: dict, fault: str) -> None:
    sub = os.path.dirname(ctx["path"]) if fault.startswith("kind-") else ctx["root"]
    what = fault.split("-", 1)[1]
    if what in ("0777", "0770"):
        return os.chmod(sub, int(what, 8))
    if what == "foreign-owner":
        return os.chown(sub, 12345, 12345) if os.geteuid() == 0 else _skip(ctx)
    moved = sub + ".moved"
    os.replace(sub, moved)
    if what == "symlink":
        os.symlink(moved, sub)
    elif what == "is-file":
        with open(sub, "w") as f:
            f.write("not a directory")
    elif what != "missing":
        raise ValueError(f"unknown directory fault {fault!r}")
    return None


# ---- what a fault must come to -----------------------------------------------------------------
def _intact(ctx: dict) -> bool:
    try:
        with open(ctx["path"], "rb") as f:
            return cache.decode(ctx["kind"], ctx["key"], f.read()) is not None
    except OSError:
        return False


def verify(ctx: dict, r: dict, expect: str) -> None:
    """Assert that the consumer's result `r` is what `expect` says:
    `used` (the entry was fine: nothing compiled), `recompiled` (the target's entry refused and
    rebuilt — repaired on disk when the cache writes; `repaired`: the same, whatever was
    compiled), `refused` (a directory refused with a warning; the kernel still right)."""
    if ctx.get("skipped"):
        return
    assert "crashed" not in r, r.get("crashed")
    assert r["ok"], f"wrong result: {r}"
    code, writes = r["code"], ctx["mode"] in ("readwrite", "on")
    record = {"spec": "specs", "variant": "variants"}.get(ctx["target"])
    if expect == "used":
        assert code == {"compiled": 0, "cached": 2}, f"expected every entry used: {r}"
        assert record is None or r["records"][record] == 1, f"expected the record used: {r}"
    elif expect in ("recompiled", "repaired"):
        if expect == "recompiled":  # (a record: the kernel typechecked, its code cached)
            want = ({"compiled": 0, "cached": 2} if ctx["target"] == "host" or record else
                    {"compiled": 1, "cached": 1})
            assert code == want, f"expected only the {ctx['target']} rebuilt: {r}"
            assert record is None or r["records"][record] == 0, f"a refused record used: {r}"
        if writes and not ctx.get("unrepairable"):
            assert _intact(ctx), f"the {ctx['target']} entry was not repaired: {r}"
        if not writes:
            assert r["stats"]["stores"] == 0, f"a read-only cache was written: {r}"
    elif expect == "ok":
        pass
    elif expect == "refused":
        assert any("not " in w and "cache" in w or "not reading" in w or "not writing" in w
                   for w in r["warnings"]), f"expected a warning refusing the directory: {r}"
    else:
        raise ValueError(f"unknown expectation {expect!r}")


# ---- faults of processes and settings ----------------------------------------------------------
def _stale_tmp(ctx: dict, age: float) -> str:
    tmp = os.path.join(os.path.dirname(ctx["path"]), f".tmp-{ctx['key'][:16]}-1-dead")
    with open(tmp, "wb") as f:
        f.write(ctx["good"][:100])
    os.utime(tmp, (os.path.getmtime(tmp) - age,) * 2)
    return tmp


def _killed_writer(ctx: dict) -> None:
    code = (f"import sys, os; sys.path.insert(0, {_PKG_PARENT!r}); from tack import cache\n"
            "while True: cache.store('cpu', 'ab' * 32, os.urandom(64 << 20))\n")
    proc = subprocess.Popen([sys.executable, "-c", code], env=_env(dict(ctx, mode="on")))
    time.sleep(1.0)
    proc.kill()
    proc.wait()


def _concurrent(ctx: dict, n: int) -> dict:
    with ThreadPoolExecutor(n) as ex:
        results = list(ex.map(lambda _: consume(ctx), range(n)))
    bad = [r for r in results if "crashed" in r or not r.get("ok")]
    assert not bad, bad[:2]
    assert _intact(ctx), "the entry is not intact after concurrent writers"
    return results[0]


def run_process_fault(ctx: dict, fault: str) -> dict:
    """The faults of processes and settings (PROCESS): apply, consume, check; returns the
    consumer's result (the row then checks it is right)."""
    extra: tuple = ()
    if fault == "tmp-fresh":
        tmp = _stale_tmp(ctx, 0)
        r = consume(ctx)
        assert os.path.exists(tmp), "a fresh temporary file of a live writer was removed"
        verify(ctx, r, "used")
        return r
    if fault == "tmp-stale-pruned":
        tmp = _stale_tmp(ctx, 3600)
        os.unlink(ctx["path"])
        r = consume(ctx)
        assert not os.path.exists(tmp), "a stale temporary file survived a store"
        verify(ctx, r, "recompiled")
        return r
    if fault == "killed-writer":
        _killed_writer(ctx)
        r = consume(ctx)
        verify(ctx, r, "used")
        return r
    if fault in ("concurrent-cold-8", "concurrent-corrupt-8"):
        if fault == "concurrent-cold-8":
            shutil.rmtree(ctx["root"])
        else:
            _flip(ctx, _offsets(ctx)["payload-middle"])
        return _concurrent(ctx, 8)
    if fault == "cache-off":
        ctx["mode"] = "off"
        r = consume(ctx)
        assert r["code"] == {"compiled": 2, "cached": 0}, r
        return r
    if fault == "loader-elf-forged":
        _store_forged(ctx, os.urandom(600))
        extra = (("TACK_CPU_LOADER", "elf"),)
    elif fault == "loader-mcjit":
        extra = (("TACK_CPU_LOADER", "mcjit"),)
    elif fault == "size-tiny":
        os.unlink(ctx["path"])
        extra = (("TACK_CACHE_SIZE", "1K"),)
    elif fault == "size-garbage":
        extra = (("TACK_CACHE_SIZE", "lots"),)
    elif fault == "host-forged-fields":
        _store_forged(ctx, b"x86_64-unknown-linux-gnu\nnot-a-cpu\n+sse2\n1.0", meta={})
    r = consume(ctx, extra)
    if fault == "size-tiny":  # stored, then pruned: a 1 KiB cache cannot keep a 4 KiB entry
        verify(ctx, r, "ok")
        total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(ctx["root"])
                    for f in fs)
        assert r["stats"]["stores"] >= 1 and total <= 1024, (total, r)
        return r
    expect = {"loader-elf-forged": "recompiled", "loader-mcjit": "used",
              "size-garbage": "used", "host-forged-fields": "repaired"}[fault]
    verify(ctx, r, expect)
    return r


PROCESS = ["tmp-fresh", "tmp-stale-pruned", "killed-writer", "concurrent-cold-8",
           "concurrent-corrupt-8", "cache-off", "loader-elf-forged", "loader-mcjit", "size-tiny",
           "size-garbage", "host-forged-fields"]
