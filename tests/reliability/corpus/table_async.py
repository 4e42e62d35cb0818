"""Asynchronous copies (docs/language.md, "Asynchronous copies"): each row is a misuse that must
be refused before anything runs, with its position, or that tack.check must report with its
source lines: a copy on the CPU engine, a size no copy moves, two dtypes, a copy into memory
that is not shared, a wait count not known at compile time, a misaligned copy, a GPU before
sm_80; and the pipeline findings: a read of a copy no wait covered, a wait with the wrong count,
a copy that refills a buffer other lanes still read."""
from __future__ import annotations

from .case import Case

_SETUP = '''
@tack.kernel
def copy(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        tack.async_copy(buf, tid, x, i)
        tack.async_commit()
        tack.async_wait(0)
        tack.barrier()
        out[i] = buf[255 - tid]

@tack.kernel
def twelve_bytes(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        tack.async_copy(buf, 0, x, i, 3)
        out[i] = buf[0]

@tack.kernel
def two_dtypes(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f64, 256)
        tack.async_copy(buf, 0, x, i)
        out[i] = buf[0]

@tack.kernel
def into_global(x, out):
    for i in range(out.shape[0]):
        tack.async_copy(out, i, x, i)

@tack.kernel
def wait_on_argument(x, out, n):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        tack.async_copy(buf, 0, x, i)
        tack.async_commit()
        tack.async_wait(n)
        out[i] = buf[0]

@tack.kernel
def misaligned(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        if tid % 2 == 0:
            tack.async_copy(buf, tid, x, i + 1, 2)
        tack.async_commit()
        tack.async_wait(0)
        tack.barrier()
        out[i] = buf[tid]

@tack.kernel
def no_wait(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        tack.async_copy(buf, tid, x, i)
        tack.async_commit()
        tack.barrier()
        out[i] = buf[255 - tid]

@tack.kernel
def tiles(x, out):
    for g in range(out.shape[0]):
        buf = tack.shared(tack.f32, 512)
        tid = tack.thread_id()
        base = (g // 256) * 1024
        tack.async_copy(buf, tid, x, base + tid)
        tack.async_commit()
        acc = 0.0
        for k in range(4):
            cur = (k % 2) * 256
            if k + 1 < 4:
                tack.async_copy(buf, 256 - cur + tid, x, base + (k + 1) * 256 + tid)
            tack.async_commit()
            tack.async_wait(2)
            tack.barrier()
            acc += buf[cur + (tid + 1) % 256]
            tack.barrier()
        out[g] = acc

@tack.kernel
def refill(x, out):
    for g in range(out.shape[0]):
        buf = tack.shared(tack.f32, 512)
        tid = tack.thread_id()
        base = (g // 256) * 1024
        tack.async_copy(buf, tid, x, base + tid)
        tack.async_commit()
        acc = 0.0
        for k in range(4):
            cur = (k % 2) * 256
            if k + 1 < 4:
                tack.async_copy(buf, 256 - cur + tid, x, base + (k + 1) * 256 + tid)
            tack.async_commit()
            tack.async_wait(1)
            tack.barrier()
            acc += buf[cur + (tid + 1) % 256]
        out[g] = acc

x = tack.array(np.arange(1024, dtype=np.float32), device=DEV)
out = tack.zeros(256, device=DEV)
'''


def _setup(dev: str) -> str:
    return f"DEV = {dev!r}\n" + _SETUP


_PTX = ("from tack.compiler import specialize\nfrom tack.toolchain.nvptx import compile_ptx\n"
        "kir = specialize(copy, [x, out], library_math=False)\n")


def _cases() -> list[Case]:
    sim = _setup("sim")
    return [
        Case("async/cpu-refuses-async-copies", "copy(x, out)", "RuntimeError", _setup("cpu"),
             mentions=("copy", "async_copy", "workgroup"), unchanged=("out",), quick=True,
             note="the CPU engine runs no workgroups: refused before launch, as barriers are"),
        Case("async/twelve-bytes", "twelve_bytes(x, out)", "tack.TackValueError", sim,
             position=True, mentions=("twelve_bytes", "12 bytes", "4, 8 or 16"),
             unchanged=("out",), quick=True,
             note="cp.async moves 4, 8 or 16 bytes; the hint names the counts that fit"),
        Case("async/two-dtypes", "two_dtypes(x, out)", "tack.TackTypeError", sim,
             position=True, mentions=("two_dtypes", "one dtype"), unchanged=("out",)),
        Case("async/into-global-memory", "into_global(x, out)",
             "tack.UnsupportedSyntaxError", sim, position=True, mentions=("shared array",),
             unchanged=("out",)),
        Case("async/wait-count-from-an-argument", "wait_on_argument(x, out, 1)",
             "tack.TackTypeError", sim, position=True,
             mentions=("wait_on_argument", "async_wait"), unchanged=("out",),
             note="cp.async.wait_group takes an immediate: n is known when the kernel compiles"),
        Case("async/misaligned-copy", "misaligned(x, out)", "tack.TackValueError", sim,
             mentions=("misaligned", "8-byte aligned"), unchanged=("out",),
             note="an 8-byte copy from an odd f32 index would fault on a GPU"),
        Case("async/refused-before-sm-80", "compile_ptx(kir, 'sm_75')",
             "NotImplementedError", sim + _PTX, position=True,
             mentions=("copy", "sm_80", "sm_75")),
        Case("async/check-reports-a-read-no-wait-covered", "r = tack.check(no_wait, x, out)",
             None, sim, unchanged=("out",), quick=True,
             check=("f = r.of_kind('pipeline')[0]; assert 'may not have landed' in f.message "
                    "and len(f.locations) == 2, f.message")),
        Case("async/check-reports-a-wait-with-the-wrong-count",
             "r = tack.check(tiles, x, out)", None, sim, unchanged=("out",),
             check=("f = [f for f in r.of_kind('pipeline') if 'left pending' in f.message]; "
                    "assert f and 'tack.async_wait(1) is the wait' in f[0].message, r.text()")),
        Case("async/check-reports-a-refill-while-others-read", "r = tack.check(refill, x, out)",
             None, sim, unchanged=("out",),
             check=("(f,) = r.of_kind('pipeline'); assert 'refills element' in f.message, "
                    "r.text()")),
    ]


CASES = _cases()
