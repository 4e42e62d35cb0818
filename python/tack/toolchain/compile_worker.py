"""LLVM compiles in a bounded worker process, so that a long-lived process's memory stays bounded.

Each O3 run through llvmlite keeps about 70 KB that nothing frees: llvmlite's
`LLVMPY_RunNewModulePassManager` registers a fresh `StandardInstrumentations`' callbacks into the
pass builder's `PassInstrumentationCallbacks` on every run, and `LLVMPY_CreatePassBuilder`
allocates those callbacks with `new` and never deletes them
(https://github.com/numba/llvmlite/blob/main/ffi/newpassmanagers.cpp). Reusing one pass builder
does not help (the callbacks then pile up in it, and point at destroyed instrumentations), so
the fix is where the memory lives: the first `IN_PROCESS` compiles of a process run here (a
first call stays as fast as before: no process to start), later ones in a worker subprocess
that is replaced after `PER_WORKER` compiles, taking its leaked memory with it.

`TACK_COMPILE_IN_PROCESS=N` changes the number compiled here (`all`: never use a worker). A
worker that cannot start or dies is reported once and compiling continues in this process.
Protocol on the worker's stdin/stdout: a request is a u64 length and the LLVM IR text; a reply
is one status byte (`O` object code, `E` an error message) and a u64 length and the bytes.
"""
from __future__ import annotations

import atexit
import os
import struct
import subprocess
import sys
import warnings

IN_PROCESS = 200  # compiles in this process before the worker takes over (~14 MB kept)
PER_WORKER = 500  # compiles per worker process before it is replaced (~35 MB, then freed)
_LEN = struct.Struct("<Q")


def in_process_limit() -> float:
    v = os.environ.get("TACK_COMPILE_IN_PROCESS", "").strip().lower()
    if v in ("all", "inf", "always"):
        return float("inf")
    try:
        return max(0, int(v)) if v else IN_PROCESS
    except ValueError:
        return IN_PROCESS


class _Worker:
    """One worker subprocess and how many compiles it did."""

    def __init__(self):
        pkg_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        code = (f"import sys; sys.path.insert(0, {pkg_parent!r}); "
                "from tack.toolchain import compile_worker, llvm_host; "
                "compile_worker.serve(llvm_host.compile_here)")
        # The worker only compiles: the disk cache is this process's business (its checks,
        # e.g. of the directory's owner, hold here, not in another process).
        env = dict(os.environ, TACK_COMPILE_IN_PROCESS="all", TACK_CACHE="off")
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env, close_fds=True)
        self.done = 0

    def compile(self, llvm_ir: str) -> bytes:
        text = llvm_ir.encode()
        self.proc.stdin.write(_LEN.pack(len(text)) + text)
        self.proc.stdin.flush()
        status = _read_exact(self.proc.stdout, 1)
        body = _read_exact(self.proc.stdout, _LEN.unpack(_read_exact(self.proc.stdout, 8))[0])
        self.done += 1
        if status == b"O":
            return body
        raise RuntimeError(f"LLVM failed in the compile worker: {body.decode(errors='replace')}")

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()


def _read_exact(f, n: int) -> bytes:
    b = f.read(n)
    if len(b) != n:
        raise EOFError("the compile worker exited")
    return b


_state = {"here": 0, "worker": None, "broken": False}


def compile_object(llvm_ir: str, compile_here) -> bytes:
    """`compile_here(llvm_ir)` for the first compiles of this process, then the worker's (the
    caller holds llvm_host.compile_lock: one exchange at a time)."""
    if _state["broken"] or _state["here"] < in_process_limit():
        _state["here"] += 1
        return compile_here(llvm_ir)
    w = _state["worker"]
    try:
        if w is None or w.done >= PER_WORKER:
            if w is not None:
                w.close()
            w = _state["worker"] = _Worker()
        return w.compile(llvm_ir)
    except (OSError, EOFError, struct.error) as exc:
        _state["broken"], _state["worker"] = True, None
        warnings.warn(f"tack: the LLVM compile worker failed ({exc}); compiling in this "
                      "process from now on (memory grows by ~70 KB per compile)", RuntimeWarning,
                      stacklevel=3)
        return compile_here(llvm_ir)


def _close_worker() -> None:
    # At exit the worker is told to stop (its stdin closes) and waited for, so that no
    # process outlives this one and no "subprocess is still running" warning is printed.
    w, _state["worker"] = _state["worker"], None
    if w is not None:
        w.close()


atexit.register(_close_worker)

_orphans: list = []  # the parent's workers, as a forked child sees them: kept, never used


def _forget_worker_in_child() -> None:
    # The child shares the parent's pipes to the worker: it must never talk to it (it starts
    # its own when it needs one). It closes its copies of the pipe ends (nothing is buffered:
    # fork waits for llvm_host.compile_lock, so no exchange is in flight).
    w, _state["worker"] = _state["worker"], None
    if w is not None:
        _orphans.append(w)
        for f in (w.proc.stdin, w.proc.stdout):
            try:
                f.close()
            except OSError:
                pass


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_worker_in_child)


def serve(compile_here) -> None:
    """The worker's loop: compile each request with `compile_here` until stdin closes."""
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write to the reply stream
    while True:
        head = inp.read(8)
        if len(head) < 8:
            return
        text = _read_exact(inp, _LEN.unpack(head)[0]).decode()
        try:
            status, body = b"O", compile_here(text)
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which raises it
            status, body = b"E", f"{type(exc).__name__}: {exc}".encode()
        out.write(status + _LEN.pack(len(body)) + body)
        out.flush()
