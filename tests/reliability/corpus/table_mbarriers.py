"""Transaction barriers and bulk copies (docs/language.md, "Transaction barriers";
docs/pipelines.md): each row is a misuse that must be refused before anything runs, with its
position, or that tack.check must report with its source lines instead of hanging: a barrier on
the CPU engine, a bulk copy of a size that is not a multiple of 16 bytes, a barrier that is
data, a count PTX does not take, a misaligned bulk copy, a GPU before sm_90, the same for tensor
copies (a box row that is not a multiple of 16 bytes, a swizzled box off its 1024-byte atom);
and the protocol
findings: a barrier used before its initialization, initialized on every lane, a read before
the wait, a byte count short of the copies, a wait of the same parity every round, a refill
while other lanes read, and a deadlock that a plain launch raises and tack.check reports."""
from __future__ import annotations

from .case import Case

_SETUP = '''
@tack.kernel
def tile(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], 1024)
            tack.async_bulk_copy(buf, 0, x, i + SKEW, 256, bar[0])
        tack.mbarrier_wait(bar[0], 0)
        out[i] = buf[255 - tid]

@tack.kernel
def twenty_bytes(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tack.async_bulk_copy(buf, 0, x, i, 5, bar[0])
        out[i] = buf[0]

@tack.kernel
def barrier_as_data(x, out):
    for i in range(out.shape[0]):
        bar = tack.mbarriers(1)
        bar[0] = 1

@tack.kernel
def too_many(x, out):
    for i in range(out.shape[0]):
        bar = tack.mbarriers(1)
        tack.mbarrier_init(bar[0], 1048576)

@tack.kernel
def no_barrier_after_init(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
            tack.mbarrier_arrive_tx(bar[0], 1024)
            tack.async_bulk_copy(buf, 0, x, i, 256, bar[0])
        tack.mbarrier_wait(bar[0], 0)
        out[i] = buf[255 - tid]

@tack.kernel
def every_lane_inits(x, out):
    for i in range(out.shape[0]):
        bar = tack.mbarriers(1)
        tack.mbarrier_init(bar[0], 256)
        tack.barrier()
        tack.mbarrier_arrive(bar[0])
        tack.mbarrier_wait(bar[0], 0)
        out[i] = x[i]

@tack.kernel
def no_wait(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], 1024)
            tack.async_bulk_copy(buf, 0, x, i, 256, bar[0])
        tack.barrier()
        out[i] = buf[255 - tid]

@tack.kernel
def short_bytes(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], 512)
            tack.async_bulk_copy(buf, 0, x, i, 128, bar[0])
            tack.async_bulk_copy(buf, 128, x, i + 128, 128, bar[0])
        tack.mbarrier_wait(bar[0], 0)
        out[i] = buf[255 - tid]

@tack.kernel
def rounds(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        acc = 0.0
        for t in range(4):
            if tid == 0:
                tack.mbarrier_arrive_tx(bar[0], 1024)
                tack.async_bulk_copy(buf, 0, x, t * 256, 256, bar[0])
            tack.mbarrier_wait(bar[0], PARITY * t)
            acc += buf[255 - tid]
            if RELEASE:
                tack.barrier()
        out[i] = acc

@tack.kernel
def two_expected(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 2)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], 1024)
            tack.async_bulk_copy(buf, 0, x, i, 256, bar[0])
        tack.mbarrier_wait(bar[0], 0)
        out[i] = buf[255 - tid]

@tack.kernel
def box(x2, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 512)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], 1024)
            tack.async_tensor_copy(buf, SKEW, x2, (-3, 4), (8, 32), bar[0], "swizzle128")
        tack.mbarrier_wait(bar[0], 0)
        out[i] = buf[255 - tid]

@tack.kernel
def box_from_column(x2, out, c):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tack.async_tensor_copy(buf, 0, x2, (0, c), (8, 32), bar[0], "swizzle128")
        out[i] = buf[0]

@tack.kernel
def narrow_box(x2, out):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tack.async_tensor_copy(buf, 0, x2, (0, 0), (8, 6), bar[0], "none")
        out[i] = buf[0]

x = tack.array(np.arange(1024, dtype=np.float32), device=DEV)
x2 = tack.array(np.arange(1024, dtype=np.float32).reshape(32, 32), device=DEV)
out = tack.zeros(256, device=DEV)
'''


def _setup(dev: str, skew: int = 0, parity: int = 1, release: bool = True) -> str:
    return (f"DEV = {dev!r}\nSKEW = tack.constant({skew})\nPARITY = tack.constant({parity})\n"
            f"RELEASE = tack.constant({release})\n" + _SETUP)


_PTX = ("from tack.compiler import specialize\nfrom tack.toolchain.nvptx import compile_ptx\n"
        "kir = specialize(tile, [x, out], library_math=False)\n")


def _finding(kind: str, phrase: str, lines: int = 2) -> str:
    return (f"f = [f for f in r.of_kind({kind!r}) if {phrase!r} in f.message]; "
            f"assert f and len(set(f[0].locations)) >= {lines}, r.text()")


def _cases() -> list[Case]:
    sim = _setup("sim")
    return [
        Case("mbarriers/cpu-refuses-them", "tile(x, out)", "RuntimeError", _setup("cpu"),
             mentions=("tile", "mbarrier_init", "workgroup"), unchanged=("out",), quick=True,
             note="the CPU engine runs no workgroups: refused before launch, as barriers are"),
        Case("mbarriers/twenty-bytes", "twenty_bytes(x, out)", "tack.TackValueError", sim,
             position=True, mentions=("twenty_bytes", "20 bytes", "multiple of 16"),
             unchanged=("out",), quick=True,
             note="cp.async.bulk moves a multiple of 16 bytes; the hint names the counts"),
        Case("mbarriers/a-barrier-is-not-data", "barrier_as_data(x, out)",
             "tack.TackTypeError", sim, position=True, mentions=("transaction barriers",),
             unchanged=("out",)),
        Case("mbarriers/count-beyond-ptx", "too_many(x, out)", "tack.TackValueError", sim,
             position=True, mentions=("1048576", "1048575"), unchanged=("out",)),
        Case("mbarriers/misaligned-bulk-copy", "tile(x, out)", "tack.TackValueError",
             _setup("sim", skew=1), mentions=("tile", "16-byte aligned"), unchanged=("out",),
             note="a bulk copy from an f32 index that is not a multiple of 4 would fault"),
        Case("mbarriers/refused-before-sm-90", "compile_ptx(kir, 'sm_80')",
             "NotImplementedError", sim + _PTX, position=True,
             mentions=("tile", "sm_90", "sm_80")),
        Case("mbarriers/cpu-refuses-tensor-copies", "box(x2, out)", "RuntimeError",
             _setup("cpu"), mentions=("box", "workgroup"), unchanged=("out",),
             note="tensor copies are refused on the CPU engine as bulk copies are"),
        Case("mbarriers/tensor-box-of-24-byte-rows", "narrow_box(x2, out)",
             "tack.TackValueError", sim, position=True,
             mentions=("narrow_box", "24 bytes", "multiple of 16"), unchanged=("out",),
             note="a tensor map's box rows are a multiple of 16 bytes"),
        Case("mbarriers/tensor-copy-from-an-unproven-column", "box_from_column(x2, out, 4)",
             "tack.TackValueError", sim, position=True,
             mentions=("box_from_column", "multiple of 4 elements", "16 bytes"),
             unchanged=("out",),
             note="a GPU stops a tensor copy whose first column is not at a 16-byte boundary "
                  "(CUDA_ERROR_ILLEGAL_INSTRUCTION): the column must be provably a multiple"),
        Case("mbarriers/tensor-copy-off-the-swizzle-atom", "box(x2, out)",
             "tack.TackValueError", _setup("sim", skew=32), mentions=("box", "1024-byte"),
             unchanged=("out",),
             note="the 128-byte swizzle is computed from address bits 7..9: a swizzled box "
                  "starts at a multiple of 1024 bytes"),
        Case("mbarriers/tensor-copy-refused-before-sm-90", "compile_ptx(kir, 'sm_80')",
             "NotImplementedError", sim + _PTX.replace("tile, [x, out]", "box, [x2, out]"),
             position=True, mentions=("box", "sm_90", "sm_80")),
        Case("mbarriers/check-use-before-init", "r = tack.check(no_barrier_after_init, x, out)",
             None, sim, unchanged=("out",), quick=True,
             check=_finding("pipeline", "with no tack.barrier() between")),
        Case("mbarriers/check-init-on-every-lane", "r = tack.check(every_lane_inits, x, out)",
             None, sim, unchanged=("out",), check=_finding("pipeline", "256 lanes at once", 1)),
        Case("mbarriers/check-read-before-wait", "r = tack.check(no_wait, x, out)", None, sim,
             unchanged=("out",), check=_finding("pipeline", "may not have landed")),
        Case("mbarriers/check-short-byte-count", "r = tack.check(short_bytes, x, out)", None,
             sim, unchanged=("out",), check=_finding("pipeline", "bytes more than")),
        Case("mbarriers/check-same-parity-every-round", "r = tack.check(rounds, x, out)", None,
             _setup("sim", parity=0), unchanged=("out",),
             check=_finding("pipeline", "already waited for", 1)),
        Case("mbarriers/check-refill-while-reading", "r = tack.check(rounds, x, out)", None,
             _setup("sim", release=False), unchanged=("out",),
             check=_finding("pipeline", "refills element")),
        Case("mbarriers/check-reports-a-deadlock", "r = tack.check(two_expected, x, out)", None,
             sim, unchanged=("out",), quick=True,
             check=_finding("barrier", "1 of its 2 expected arrivals never came", 3),
             note="a phase that never completes is reported with who waits, instead of hanging"),
        Case("mbarriers/a-launch-raises-at-a-deadlock", "two_expected(x, out)",
             "tack.TackRuntimeError", sim, mentions=("two_expected", "deadlock", "bar[0]"),
             isolate=True, timeout=60.0,
             note="run in a subprocess: a hang would be the bug"),
    ]


CASES = _cases()
