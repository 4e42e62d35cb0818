"""LLVM compiles beyond a process's first ones run in a bounded worker process
(llvmlite keeps ~70 KB of every O3 run), giving the same object code."""
from __future__ import annotations

import numpy as np
import pytest
import tack
from tack.toolchain import compile_worker, llvm_host

IR = """
define void @tack_f(i64 %a, i64 %b, ptr %p) {{
entry:
  %c0 = icmp slt i64 %a, %b
  br i1 %c0, label %loop, label %done
loop:
  %i = phi i64 [%a, %entry], [%i1, %loop]
  %q = getelementptr float, ptr %p, i64 %i
  %v = load float, ptr %q
  %w = fmul float %v, {c}.0
  store float %w, ptr %q
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %b
  br i1 %c, label %loop, label %done
done:
  ret void
}}
"""


@pytest.fixture
def worker_after(monkeypatch):
    def set_limits(here: int, per_worker: int):
        monkeypatch.setenv("TACK_COMPILE_IN_PROCESS", str(here))
        monkeypatch.setattr(compile_worker, "PER_WORKER", per_worker)
        monkeypatch.setattr(compile_worker, "_state", {"here": 0, "worker": None,
                                                       "broken": False})
    yield set_limits
    w = compile_worker._state["worker"]
    if w is not None:
        w.close()


def test_the_worker_compiles_the_same_object_code_and_is_replaced(worker_after):
    worker_after(1, 2)
    pids = set()
    for c in range(5):
        obj = llvm_host.compile_object(IR.format(c=c))
        assert obj == llvm_host.compile_here(IR.format(c=c))
        w = compile_worker._state["worker"]
        if c >= 1:
            assert w is not None and w.proc.poll() is None
            pids.add(w.proc.pid)
    assert compile_worker._state["here"] == 1 and len(pids) == 2  # 2 + 2 compiles, 2 workers


def test_kernels_run_when_compiled_by_the_worker(worker_after, monkeypatch):
    monkeypatch.setenv("TACK_CACHE", "off")
    worker_after(0, 100)

    @tack.kernel
    def affine(x, out):
        for i in range(x.shape[0]):
            out[i] = x[i] * 3.0 - 1.0

    tack.set_default_device("cpu")
    x, out = tack.array(np.arange(100, dtype=np.float32)), tack.empty((100,))
    affine(x, out)
    np.testing.assert_array_equal(out.numpy(), np.arange(100, dtype=np.float32) * 3 - 1)
    assert compile_worker._state["worker"] is not None


def test_an_llvm_error_in_the_worker_is_raised_here(worker_after):
    worker_after(0, 100)
    with pytest.raises(RuntimeError, match="compile worker"):
        llvm_host.compile_object("this is not LLVM IR")
    assert compile_worker.compile_object(IR.format(c=7), llvm_host.compile_here)[:4] == b"\x7fELF"


def test_a_dead_worker_falls_back_to_compiling_here(worker_after):
    worker_after(0, 100)
    llvm_host.compile_object(IR.format(c=1))
    compile_worker._state["worker"].proc.kill()
    compile_worker._state["worker"].proc.wait()
    with pytest.warns(RuntimeWarning, match="compile worker failed"):
        obj = llvm_host.compile_object(IR.format(c=2))
    assert obj[:4] == b"\x7fELF" and compile_worker._state["broken"]


def test_the_worker_never_touches_the_disk_cache(worker_after, monkeypatch, tmp_path):
    """The cache's checks (the directory's owner, the mode) hold in this process only."""
    monkeypatch.setenv("TACK_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("TACK_CACHE", "on")
    worker_after(0, 100)
    assert llvm_host.compile_object(IR.format(c=3))[:4] == b"\x7fELF"
    assert not (tmp_path / "c").exists()
