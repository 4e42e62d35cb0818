"""Large `tack.local_array`s: on the CPU they work at any size up to the engine's limit (a heap
frame per entry call, passes/frames.py), on the pool's threads, on the calling thread and on a
Python thread with a small stack; beyond an engine's limit they are refused before compiling,
naming the size and the limit (docs/language.md, "Scratch storage"). A stack array of 4 MiB
crashed the pool's threads and one of 16 MiB any thread: the runs are subprocesses, so that a
crash is a failed assertion."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.errors import TackError
from tack.passes import frames
from tack.runtime import registry

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KERNELS = '''
import tack

MIB = tack.constant({mib})
N = tack.constant({mib} * (1 << 20) // 4)
PAGES = tack.constant({mib} * (1 << 20) // 4 // 1024)


@tack.kernel
def big(out):
    for i in range(out.shape[0]):
        tmp = tack.local_array(tack.f32, N)
        small = tack.local_array(tack.i32, 4)  # stays on the stack beside the heap frame
        small[0] = i
        for p in range(PAGES):  # every page of the array
            tmp[p * 1024] = tack.f32(i + p)
        tmp[N - 1] = tack.f32(small[0] * 2)
        out[i] = tmp[0] + tmp[(PAGES - 1) * 1024] + tmp[N - 1]


@tack.kernel
def double(x):
    for i in range(x.shape[0]):
        x[i] = x[i] * 2.0
'''

CHILD = '''
import sys, threading
sys.path[:0] = [{python!r}, {kdir!r}]
import numpy as np
import tack
from tack.compiler import specialize
from tack.runtime.cpu.engine import CPUEngine
import bigmod

n, threads, where = {n}, {threads}, {where!r}
pages = {mib} * 256
want = np.array([4 * i + pages - 1 for i in range(n)], np.float32)
if where == "api":
    tack.set_default_device("cpu", num_threads=threads)
    out = tack.zeros(n)
    bigmod.big(out)
    got = out.numpy()
else:
    kir = specialize(bigmod.big, [tack.zeros(n)])
    k = CPUEngine(threads).compile(kir)
    if where == "pool":
        k.set_policy(n_par=2, grain=1)  # every launch over the pool, one index per chunk
    o = np.zeros(n, np.float32)
    run = lambda: k.launch([o.ctypes.data], n)
    if where == "small-stack thread":  # the serial launch on a Python thread of 256 KiB
        threading.stack_size(256 << 10)
        t = threading.Thread(target=run)
        t.start()
        t.join()
    else:
        run()
    got = o
assert np.array_equal(got, want), (got[:4], want[:4])
print("ok")
'''


def _run(tmp_path, mib: int, threads: int, where: str, n: int = 5, extra: str = "") -> str:
    kdir = tmp_path / f"k{mib}"
    kdir.mkdir(exist_ok=True)
    (kdir / "bigmod.py").write_text(KERNELS.format(mib=mib))
    code = extra + CHILD.format(python=os.path.join(ROOT, "python"), kdir=str(kdir), n=n,
                                threads=threads, where=where, mib=mib)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TACK_")}
    env.update(PYTHONDONTWRITEBYTECODE="1", TACK_CACHE="off")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=300, check=False)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), \
        f"{mib} MiB, {threads} threads, {where}: exit {r.returncode}\n{r.stderr[-2000:]}"
    return r.stdout


@pytest.mark.parametrize("mib", [4, 16, 64])
@pytest.mark.parametrize("threads,where", [(1, "serial"), (2, "pool"), (4, "pool"),
                                           (1, "small-stack thread"), (2, "api")])
def test_large_local_arrays_run_on_every_thread(tmp_path, mib, threads, where):
    _run(tmp_path, mib, threads, where, n=7 if where == "pool" else 3)


NOMEM = """
import resource, sys
sys.path[:0] = [{python!r}, {kdir!r}]
import numpy as np
import tack
import bigmod

double = bigmod.double
with open("/proc/self/status") as f:
    vm = next(int(x.split()[1]) * 1024 for x in f if x.startswith("VmSize"))
tack.set_default_device("cpu", num_threads={threads})
x, out = tack.ones(1000), tack.zeros(3)
double(x)  # compiled and loaded before the limit
tack.inspect(bigmod.big, out)  # so is LLVM
resource.setrlimit(resource.RLIMIT_AS, (vm + (384 << 20),) * 2)
try:
    bigmod.big(out)
except MemoryError as exc:
    assert "local arrays" in str(exc), exc
else:
    raise SystemExit("no MemoryError")
double(x)
assert np.all(x.numpy() == 4.0)
print("ok")
"""


@pytest.mark.parametrize("threads", [1, 2])
def test_a_frame_that_cannot_be_allocated_raises_memory_error(tmp_path, threads):
    """malloc fails under an address-space limit below the frame (512 MiB): MemoryError, no
    crash, and the process goes on."""
    (tmp_path / "bigmod.py").write_text(KERNELS.format(mib=512))
    code = NOMEM.format(python=os.path.join(ROOT, "python"), kdir=str(tmp_path), threads=threads)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TACK_")}
    env.update(PYTHONDONTWRITEBYTECODE="1", TACK_CACHE="off")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=300, check=False)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


N_GIB2 = tack.constant((2 << 30) // 4)
N_MIB1 = tack.constant((1 << 20) // 4)


@tack.kernel
def over_cpu(out):
    for i in range(out.shape[0]):
        tmp = tack.local_array(tack.f32, N_GIB2)
        tmp[0] = 1.0
        out[i] = tmp[0]


@tack.kernel
def over_gpu(out):
    for i in range(out.shape[0]):
        tmp = tack.local_array(tack.f32, N_MIB1)
        tmp[0] = 1.0
        out[i] = tmp[0]


def test_cpu_refuses_local_arrays_over_its_limit_before_compiling():
    tack.set_default_device("cpu")
    out = tack.zeros(3)
    with pytest.raises(RuntimeError, match=r"2 GiB \(2147483648 bytes\) per iteration, more "
                                           r"than the native:cpu engine allows \(1 GiB"):
        over_cpu(out)
    assert out.numpy().tolist() == [0.0, 0.0, 0.0]
    over_gpu(out)  # 1 MiB: far below the CPU's limit
    assert out.numpy().tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("name", ["cuda", "sim"])
def test_gpu_engines_refuse_more_than_512_kib_per_thread(name):
    """CUDA's local memory per thread is 512 KB on every compute capability
    (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html
    #features-and-technical-specifications-technical-specifications-per-compute-capability);
    the simulator models it. Refused at specialization, so no GPU is needed."""
    dev = tack.device(name)
    assert dev.capabilities.local_bytes == 512 << 10
    with pytest.raises(TackError, match=r"1 MiB \(1048576 bytes\) per iteration, more than the "
                                        rf"native:{name} engine allows \(512 KiB, 524288 bytes\)"):
        specialize(over_gpu, [tack.zeros(3)], device=dev)


def test_sim_runs_and_refuses_at_the_limit():
    tack.set_default_device("sim")
    out = tack.zeros(3)
    with pytest.raises(RuntimeError, match="512 KiB"):
        over_gpu(out)


def test_every_engine_declares_a_limit():
    for (name, arch), kind in registry._KINDS.items():
        caps = kind.capabilities[arch]
        assert 0 < caps.local_bytes <= registry.CPU_LOCAL_BYTES, (name, arch)


def test_heap_layout_keeps_small_arrays_on_the_stack():
    from tack import dtypes as D
    from tack.ir.nodes import KernelIR, Loc, Scratch

    loc = Loc("t.py", 1, 1, 1, 2)
    sc = {"a": Scratch("a", D.f32, 16, "local"), "b": Scratch("b", D.f64, 1000, "local"),
          "c": Scratch("c", D.u8, 20000, "local"), "d": Scratch("d", D.i32, 3000, "local")}
    kir = KernelIR("k", [], [], {}, loc, scratch=sc)
    offsets, size = frames.heap_layout(kir)
    # a (64 B) and b (8000 B) fit 16 KiB; d (12000 B) would not: d and c go to the heap
    assert offsets == {"d": 0, "c": 12032} and size == 12032 + 20032
    assert frames.heap_layout(KernelIR("k", [], [], {}, loc, scratch=dict(
        list(sc.items())[:2]))) == ({}, 0)


def test_symbol_names_agree_with_the_engine():
    from tack.passes.polls import sigints_symbol
    from tack.runtime.cpu import symbols as cpu_symbols

    assert cpu_symbols.NOMEM.format("tack_k") == frames.nomem_symbol("tack_k")
    assert cpu_symbols.SIGINTS.format("tack_k") == sigints_symbol("tack_k")


def test_small_local_arrays_render_as_stack_arrays():
    """Below STACK_BYTES nothing changes: no frame, no malloc (the arrays may become
    registers)."""
    @tack.kernel
    def small(out):
        for i in range(out.shape[0]):
            tmp = tack.local_array(tack.f32, 8)
            tmp[i % 8] = 2.0
            out[i] = tmp[i % 8]

    out = tack.zeros(9)
    small(out)
    assert np.all(out.numpy() == 2.0)
    text = tack.inspect(small, out, mode="source")
    assert "malloc" not in text and "alloca [8 x float]" in text


def test_kernels_named_like_the_engines_data_words_still_load():
    """The engine says which symbols are data words (objload.ElfImage.check): a kernel whose
    entry, `tack_<name>`, looks like one is still a function."""
    @tack.kernel
    def nomem_k(out):
        for i in range(out.shape[0]):
            tmp = tack.local_array(tack.f32, N_MIB1)
            tmp[i] = 2.0
            out[i] = tmp[i]

    @tack.kernel
    def sigints_k(out, m):
        for i in range(out.shape[0]):
            s = 0.0
            for _ in range(m):
                s += 1.0
            out[i] = s

    tack.set_default_device("cpu")
    out = tack.zeros(5)
    nomem_k(out)
    assert out.numpy().tolist() == [2.0] * 5
    sigints_k(out, 3)
    assert out.numpy().tolist() == [3.0] * 5
