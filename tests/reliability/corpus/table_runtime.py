"""The CPU runtime's limits and state: large local arrays (stack overflow), Ctrl-C in every loop
shape that once escaped the polls, `with tack.device` blocks ended on another thread, and forged
cache entries (an object pointing outside itself, another kernel's record, cleared `written`
flags). Rows that could crash or need a process of their own run isolated."""
from __future__ import annotations

from .case import Case

# ---- local arrays: 4, 16 and 64 MiB per iteration, on every kind of thread ----------------------
_LOCAL = '''
import threading
from tack.compiler import specialize
from tack.runtime.cpu.engine import CPUEngine
N = tack.constant({mib} * (1 << 18))
PAGES = tack.constant({mib} * 256)


@tack.kernel
def big(out):
    for i in range(out.shape[0]):
        tmp = tack.local_array(tack.f32, N)
        for p in range(PAGES):
            tmp[p * 1024] = tack.f32(i + p)
        out[i] = tmp[0] + tmp[(PAGES - 1) * 1024]


n = 6
o = np.zeros(n, np.float32)
k = CPUEngine({threads}).compile(specialize(big, [tack.zeros(n)]))
if {threads} > 1:
    k.set_policy(n_par=2, grain=1)  # every launch over the pool, one index per chunk


def run():
    k.launch([o.ctypes.data], n)
'''
_WHERE = {"serial": (1, "run()"), "pool-2": (2, "run()"), "pool-4": (4, "run()"),
          "small-stack-thread": (1, ("threading.stack_size(256 << 10)\n"
                                    "t = threading.Thread(target=run)\nt.start()\nt.join()"))}
_LOCAL_CHECK = "assert o.tolist() == [2 * i + {mib} * 256 - 1 for i in range(n)], o\n"

_OVER = '''
N = tack.constant({n})


@tack.kernel
def over(out):
    for i in range(out.shape[0]):
        tmp = tack.local_array(tack.f32, N)
        tmp[0] = 1.0
        out[i] = tmp[0]


out = tack.zeros(3)
'''

_NOMEM = '''
import resource
N = tack.constant(128 << 20)  # 512 MiB of f32
PAGES = tack.constant(128 << 10)


@tack.kernel
def over(out):
    for i in range(out.shape[0]):
        tmp = tack.local_array(tack.f32, N)
        for p in range(PAGES):  # every page: the frame cannot be optimized away
            tmp[p * 1024] = tack.f32(i + p)
        out[i] = tmp[0] + tmp[(PAGES - 1) * 1024]


out = tack.zeros(3)
tack.inspect(over, out)  # LLVM is loaded before the limit
with open("/proc/self/status") as f:
    vm = next(int(x.split()[1]) * 1024 for x in f if x.startswith("VmSize"))
resource.setrlimit(resource.RLIMIT_AS, (vm + (384 << 20),) * 2)
'''


def _local_arrays() -> list[Case]:
    rows = []
    for mib in (4, 16, 64):
        for where, (threads, call) in _WHERE.items():
            rows.append(Case(
                f"runtime/local-array/{mib}MiB/{where}", call, None,
                _LOCAL.format(mib=mib, threads=threads), check=_LOCAL_CHECK.format(mib=mib),
                isolate=True, timeout=300, quick=(mib, where) == (16, "pool-2"),
                note="a stack array of 4 MiB crashed the pool's threads, 16 MiB any thread",
                tags=("runtime",)))
    rows += [
        Case("runtime/local-array/over-cpu-limit", "over(out)", "RuntimeError",
             _OVER.format(n=(2 << 30) // 4), mentions=("2 GiB", "1 GiB", "'over'"),
             position=True, unchanged=("out",), quick=True,
             note="beyond the CPU's 1 GiB per iteration: refused before compiling"),
        Case("runtime/local-array/over-sim-limit", "over(out)", "RuntimeError",
             "tack.set_default_device('sim')\n" + _OVER.format(n=(1 << 20) // 4),
             mentions=("1 MiB", "512 KiB"), unchanged=("out",),
             check="tack.set_default_device('cpu')\n",
             note="the simulator models CUDA's 512 KiB of local memory per thread"),
        Case("runtime/local-array/over-cuda-limit",
             "specialize(over, [out], device=tack.device('cuda'))", "NotImplementedError",
             "from tack.compiler import specialize\n" + _OVER.format(n=(1 << 20) // 4),
             mentions=("1 MiB", "512 KiB", "native:cuda"), position=True,
             note="CUDA's local memory per thread is 512 KB: refused with no GPU needed"),
        Case("runtime/local-array/frame-not-allocated", "over(out)", "MemoryError", _NOMEM,
             mentions=("'over'", "local arrays"), tack_error=False, isolate=True, timeout=300,
             note="malloc of the heap frame fails: MemoryError, and the process goes on"),
    ]
    return rows


# ---- Ctrl-C: each loop shape that ran under a strip per launch index --------------------------
_SHAPES = '''
import faulthandler, os, signal, threading, time
faulthandler.dump_traceback_later(100)  # a launch that never stops: where every thread is
# A child inherits an ignored or blocked SIGINT from whoever started it (a test runner's worker
# may hold one): Python then leaves Ctrl-C off, and so does Tack. Say so, and test Tack with
# Ctrl-C on, as a terminal gives it.
inherited = (signal.getsignal(signal.SIGINT), signal.SIGINT in signal.pthread_sigmask(
    signal.SIG_BLOCK, []))
os.write(2, f"SIGINT inherited: handler {{inherited[0]!r}}, blocked {{inherited[1]}}\\n".encode())
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
signal.signal(signal.SIGINT, signal.default_int_handler)
LONG = tack.constant(60000)


@tack.func
def recur(x, m):
    for _ in range(m):
        x = x * 0.999 + 0.5
    return x


@tack.kernel
def shape(out, n, m):
    for i in range(n):
        x = tack.f32(i % 7 + m * 0)
{body}
        out[i % 64] = x


tack.set_default_device("cpu", num_threads={threads})
out = tack.zeros(64)
shape(out, 3, 5)  # compiled: the signal finds it running
sent = []


def interrupt():
    time.sleep(0.3)
    sent.append(time.perf_counter())
    os.kill(os.getpid(), signal.SIGINT)
    os.write(2, b"SIGINT sent\\n")  # stderr: stdout holds the result line


def call():
    threading.Thread(target=interrupt, daemon=True).start()
    try:
        shape(out, (1 << 31) - 1, 45000)
    except KeyboardInterrupt:
        return time.perf_counter() - sent[0]
    return None
'''
_BODIES = {
    "inner-runtime": "        for _ in range(m):\n            x = x * 0.999 + 0.5",
    "nested-runtime": ("        for a in range(m // 212):\n            for b in range(212 + a * 0):\n"
                       "                x = x * 0.999 + 0.5"),
    "while-in-for": ("        for a in range(m // 212):\n            j = 0\n"
                     "            while j < 212:\n                x = x * 0.999 + 0.5\n"
                     "                j += 1"),
    "short-while": ("        j = 0\n        while j < m:\n            x = x * 0.999 + 0.5\n"
                    "            j += 1"),
    "in-func": "        x = recur(x, m)",
    "constant-loop": "        for _ in range(LONG):\n            x = x * 0.999 + 0.5",
}


def _interrupts() -> list[Case]:
    return [Case(f"runtime/interrupt/{shape}/{threads}-threads", "took = call()", None,
                 _SHAPES.format(body=body, threads=threads),
                 check="assert took is not None and took < 0.1, took\n", isolate=True,
                 timeout=120, quick=(shape, threads) == ("inner-runtime", 2),
                 note="Ctrl-C reached the caller seconds late: the loops ran under a strip per "
                      "launch index and the launch loop never polled", tags=("runtime",))
            for shape, body in _BODIES.items() for threads in (1, 2)]


# ---- Ctrl-C: a SIGINT counted between the launcher's baseline and the launch's own start --------
# The count moves by hand (what the native handler does; Python's own handler is not involved, so
# no KeyboardInterrupt follows on the main thread): each launch must stop at once, where it
# once took the count as it found it at its own start as the baseline and ran on for minutes.
_WINDOW = '''
import ctypes, time
from tack.compiler import specialize
from tack.runtime.cpu import pool as cpu_pool
from tack.runtime.cpu.engine import CPUEngine


@tack.kernel
def spin(out, n, m):  # polled: a runtime-bound inner loop per index
    for i in range(n):
        x = tack.f32(i % 7)
        for _ in range(m):
            x = x * 0.999 + 0.5
        out[i % 64] = x


N, M = (1 << 31) - 1, 45000  # hours of work, unless the launch stops
o = np.zeros(64, np.float32)
k = CPUEngine({threads}).compile(specialize(spin, [tack.zeros(64), 3, 5]))
buf = ctypes.create_string_buffer(3 * 8)
k._pack(buf, 0, o.ctypes.data, N, M)
addr = ctypes.addressof(buf)
count = ctypes.c_int64.from_address(cpu_pool.native().sigint_count)


def call():
    t0 = time.perf_counter()
{step}
    return time.perf_counter() - t0
'''
_WINDOW_STEPS = {
    # the entry's baseline is its parameter: the count moved after the launcher read it
    "entry": (1, "    k._entry(0, N, addr, count.value - 1)"),
    # the pool launch's baseline is its argument, not the count when its job starts
    "pool": (2, ("    nat = cpu_pool.native()\n"
                "    assert nat.launch(cpu_pool.get_pool(2).ptr, k.entry_address, addr, 0, N, "
                "0, 1, count.value - 1) == 1")),
    # the calibrating launch reads one baseline before its timed prefixes; a signal counted
    # while Python picks the policy (between the prefixes and the pool) stops the parallel rest
    "calibration": (2, ("    real = type(k)._apply\n"
                       "    def counted(self, c):\n"
                       "        count.value += 1\n"
                       "        real(self, c)\n"
                       "    type(k)._apply = counted\n"
                       "    k.launch([o.ctypes.data, N, M], N)")),
}


def _windows() -> list[Case]:
    return [Case(f"runtime/interrupt/window/{where}", "took = call()", None,
                 _WINDOW.format(threads=threads, step=step),
                 check="assert took < 1.0, took\n", isolate=True, timeout=60,
                 note="a signal counted after the launcher's baseline was absorbed into a later "
                      "reading, and an endless launch ran on", tags=("runtime",))
            for where, (threads, step) in _WINDOW_STEPS.items()]


# ---- `with tack.device` blocks across threads -------------------------------------------------
_BLOCKS = '''
import threading
A, B = tack.device("sim:1"), tack.device("sim:2")
before = tack.default_device()


def blocks():
    with A:
        yield tack.default_device()
        yield tack.default_device()


g = blocks()
assert next(g) is A
seen = {}


def other():
    with B:
        {step}
        seen["inside"] = tack.default_device()
    seen["after"] = tack.default_device()


def call():
    t = threading.Thread(target=other)
    t.start()
    t.join()
'''
_BLOCKS_CHECK = ("assert seen == {'inside': B, 'after': before}, seen\n"
                 "assert tack.default_device() is before, tack.default_device()\n")


def _device_blocks() -> list[Case]:
    steps = {"generator-closed-elsewhere": "g.close()",
             "generator-finished-elsewhere": "next(g)\n        next(g, None)"}
    rows = [Case(f"runtime/device-block/{name}", "call()", None, _BLOCKS.replace("{step}", step),
                 check=_BLOCKS_CHECK, quick=name.startswith("generator-closed"),
                 note="a block exited on another thread popped that thread's own block",
                 tags=("runtime",)) for name, step in steps.items()]
    rows.append(Case("runtime/device-block/exit-without-block",
                     "tack.device('sim:1').__exit__(None, None, None)", "RuntimeError",
                     mentions=("no open block",), note="an unmatched exit is a clear error"))
    return rows


# ---- forged cache entries ---------------------------------------------------------------------
def _forged() -> list[Case]:
    rows = [Case(f"runtime/cache/object/{fault}",
                 "objload.ElfImage(F.forge(obj, " + repr(fault) + ")).check(symbols, symbols[1:])",
                 "RuntimeError",
                 "from tests.reliability.corpus import forged_objects as F\n"
                 "from tack.toolchain import objload\nobj, symbols = F.sample_object()\n",
                 mentions=("ELF",) if "strings" in fault else (), isolate=True,
                 quick=fault == "symbol-past-section",
                 note="a forged object's field pointing outside itself was followed (a symbol "
                      "past its section was called: SIGSEGV)", tags=("cache",))
            for fault in ("symbol-past-section", "symbol-size-past-section", "symbol-absolute",
                          "function-as-data", "data-word-in-code", "symbol-strtab-not-strings",
                          "section-names-not-strings", "relocation-past-section")]
    for fault in ("symbol-past-section", "function-as-data", "data-word-in-code"):
        rows.append(Case(
            f"runtime/cache/kernel-object/{fault}", "r = C.consume(ctx)", None,
            "from tests.reliability.corpus import cache_faults as C\n"
            "from tests.reliability.corpus import forged_objects as F\n"
            f"ctx = C.prepare('kernel', 'readwrite')\nF.apply(ctx, {fault!r})\n",
            check="try:\n    C.verify(ctx, r, 'recompiled')\nfinally:\n    C.cleanup(ctx)\n",
            timeout=300, note="the forged object in the cache is compiled again, no crash",
            tags=("cache",)))
    setup = ("import tempfile\nfrom tests.reliability.corpus import forged_records as R\n"
             "tmp = tempfile.mkdtemp(prefix='tack-forged-records-')\n"
             "want = (np.arange(16, dtype=np.float32) * 3).tolist()\n")
    done = "import shutil\nshutil.rmtree(tmp, ignore_errors=True)\n"
    rows += [
        Case("runtime/cache/record/variant-of-another-kernel",
             "r = R.variant_of_another_kernel(tmp)", None, setup,
             check=done + "assert r['k1'] == want and r['records']['variants'] == 0, r\n",
             timeout=300, quick=True, tags=("cache",),
             note="k0's valid variant record under k1's key made k1 run k0's code"),
        Case("runtime/cache/record/spec-of-another-kernel",
             "r = R.spec_of_another_kernel(tmp)", None, setup,
             check=done + "assert r['k1'] == want and r['records']['specs'] == 0, r\n",
             timeout=300, tags=("cache",), note="k0's spec record under k1's key was used"),
        Case("runtime/cache/record/written-flags-cleared",
             "r = R.written_flags_cleared(tmp)", None, setup,
             check=done + "assert r['read-only'] == 'refused', r\n"
                          "assert r['read-only data'] == [0.0] * 16, r\n",
             timeout=300, tags=("cache",),
             note="a spec record's cleared `written` flags lifted the read-only refusal"),
    ]
    return rows


CASES: list[Case] = [*_local_arrays(), *_interrupts(), *_windows(), *_device_blocks(),
                     *_forged()]
