"""One Julia process that evaluates code and calls functions for Python, restarted after a crash.

`JuliaProcess(launcher, julia_dir)` starts `julia julia_dir/tools/pipe_server.jl` (which loads
KernelAbstractions, or Tack's stand-in where it is absent). `eval(code)` and `call(fn, *args)`
return Python values for Julia `nothing`/`Bool`/integers/floats/strings and a `Handle` for
anything else. NumPy arrays travel as raw files (read before the call, written back after it, as
a CPU launch changes them in place); arguments that are the same buffer arrive as one Julia array.

A process that dies (a signal, as Julia 1.5 gives for some macro-hygiene mistakes) or exceeds the
timeout raises `JuliaCrashed`; the next request starts a new process and replays every `eval`
that had succeeded, so earlier handles stay valid. Julia's output goes to `log_path`.
"""
from __future__ import annotations

import itertools
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

JULIA_TYPES = {"bool": "Bool", "int8": "Int8", "int16": "Int16", "int32": "Int32",
               "int64": "Int64", "uint8": "UInt8", "uint16": "UInt16", "uint32": "UInt32",
               "uint64": "UInt64", "float16": "Float16", "float32": "Float32",
               "float64": "Float64"}
_BITS = {np.dtype(np.float16): np.uint16, np.dtype(np.float32): np.uint32,
         np.dtype(np.float64): np.uint64}


class JuliaError(RuntimeError):
    """A Julia exception (its `showerror` text and backtrace)."""


class JuliaCrashed(JuliaError):
    """The Julia process died or timed out; the next request starts a new one."""


class Handle:
    """A Julia value that stays in the Julia process; calling it calls it there."""

    def __init__(self, proc: JuliaProcess, hid: int, type_name: str):
        self.proc, self.id, self.type_name = proc, hid, type_name

    def __call__(self, *args):
        return self.proc.call(self, *args)

    def __repr__(self):
        return f"<Julia {self.type_name} #{self.id}>"


class JuliaProcess:
    def __init__(self, launcher: str | Path, julia_dir: str | Path, timeout: float = 600.0,
                 log_path: str | Path | None = None):
        self.launcher, self.julia_dir = str(launcher), Path(julia_dir)
        self.timeout = timeout
        self.scratch = tempfile.mkdtemp(prefix="tack-julia-", dir=_fast_tmp())
        self.log_path = Path(log_path or Path(self.scratch) / "julia.log")
        self.ids = itertools.count(1)
        self.evals: list[tuple[int, bytes]] = []  # replayed after a restart
        self.proc = None
        self.starts = 0  # processes started, restarts included
        self.banner = ""

    # -- process ---------------------------------------------------------------------------
    def _start(self) -> None:
        cmd_r, cmd_w = os.pipe()
        rep_r, rep_w = os.pipe()
        server = self.julia_dir / "tools" / "pipe_server.jl"
        # -O0: a kernel's first call is mostly LLVM's time, and the rendered code contracts
        # nothing (`fma`, never `muladd`: tests/julia/test_julia153_runtests.py checks), so the
        # bits are those of the default level
        with open(self.log_path, "ab") as log:  # the child keeps its own descriptor
            self.proc = subprocess.Popen(
                [self.launcher, "--startup-file=no", "--history-file=no", "-O0", str(server),
                 str(cmd_r), str(rep_w), self.scratch], stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, pass_fds=(cmd_r, rep_w))
        os.close(cmd_r)
        os.close(rep_w)
        self._to, self._from = os.fdopen(cmd_w, "wb"), rep_r
        self._buf = b""
        self.starts += 1
        self.banner = self._line()
        for _, request in self.evals:
            head, _ = self._request(request)
            if not head.startswith("OK"):
                raise JuliaCrashed(f"replaying an earlier eval failed after a restart: {head}")

    def close(self) -> None:
        """End the process (it exits at the end of its input) and remove the scratch folder."""
        if self.proc is not None:
            self._to.close()
            os.close(self._from)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
        shutil.rmtree(self.scratch, ignore_errors=True)

    def _crash(self, why: str) -> JuliaCrashed:
        proc, self.proc = self.proc, None
        if proc.poll() is None:
            proc.kill()
        code = proc.wait()
        os.close(self._from)
        self._to.close()
        sig = f" (signal {-code})" if code < 0 else f" (exit {code})"
        tail = self.log_path.read_text(errors="replace")[-3000:]
        return JuliaCrashed(f"the Julia process {why}{sig}; a new one starts on the next "
                            f"request. Its log ends:\n{tail}")

    # -- wire ------------------------------------------------------------------------------
    def _read(self, n: int | None = None) -> bytes:
        """n bytes, or one line (without its newline) when n is None."""
        deadline = time.monotonic() + self.timeout
        while (n is None and b"\n" not in self._buf) or (n is not None and len(self._buf) < n):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from], [], [], left)[0]:
                raise self._crash(f"gave no answer within {self.timeout:.0f} s")
            chunk = os.read(self._from, 1 << 16)
            if not chunk:
                raise self._crash("died")
            self._buf += chunk
        if n is None:
            line, self._buf = self._buf.split(b"\n", 1)
            return line
        data, self._buf = self._buf[:n], self._buf[n:]
        return data

    def _line(self) -> str:
        return self._read().decode()

    def _request(self, data: bytes) -> tuple[str, str | None]:
        try:
            self._to.write(data)
            self._to.flush()
        except BrokenPipeError:
            raise self._crash("died") from None
        head = self._line()
        words = head.split()
        if words[0] == "ERR" or words[:2] == ["OK", "T"]:
            return head, self._read(int(words[-1])).decode(errors="replace")
        return head, None

    def _ask(self, data: bytes):
        if self.proc is None:
            self._start()
        head, payload = self._request(data)
        words = head.split()
        if words[0] == "ERR":
            raise JuliaError(payload)
        kind = words[1]
        if kind == "R":
            return Handle(self, int(words[2]), " ".join(words[3:]))
        if kind == "B":
            return words[2] == "1"
        if kind == "I":
            return int(words[2])
        if kind == "F":
            return float(np.uint64(int(words[2])).view(np.float64))
        if kind == "T":
            return payload
        return None

    # -- requests --------------------------------------------------------------------------
    def eval(self, code: str, module: Handle | None = None):
        """Evaluate `code` (any number of top-level statements) in `module` (a Julia module's
        handle; by default the server's module `TackJL`)."""
        hid = next(self.ids)
        where = "" if module is None else f" {module.id}"
        lines = code.split("\n")
        request = (f"EVAL {hid} {len(lines)}{where}\n" + "".join(f"{ln}\n" for ln in lines)).encode()
        value = self._ask(request)
        self.evals.append((hid, request))
        return value

    def call(self, fn: Handle, *args):
        hid = next(self.ids)
        lines, back = [], []
        for k, a in enumerate(args):
            lines.append(self._arg(k, a, args, back))
        head = f"CALL {hid} {fn.id} {len(lines)}\n"
        try:
            return self._ask((head + "".join(line + "\n" for line in lines)).encode())
        finally:
            for arr, path in back:  # the arrays as the call left them (in place on the CPU)
                if os.path.exists(path):
                    new = np.fromfile(path, arr.dtype)
                    if new.tobytes() != arr.tobytes():  # unchanged read-only arrays stay so
                        arr[...] = new.reshape(arr.shape)
                    os.unlink(path)

    def _arg(self, k: int, a, args, back) -> str:
        if isinstance(a, Handle):
            return f"R {a.id}"
        if isinstance(a, np.ndarray):
            for j in range(k):
                b = args[j]
                if isinstance(b, np.ndarray) and _same_buffer(a, b):
                    return f"D {j + 1}"
                if isinstance(b, np.ndarray) and np.shares_memory(a, b):
                    raise NotImplementedError("partially overlapping array arguments")
            if not a.flags.c_contiguous:
                raise ValueError("arrays must be C-contiguous")
            path = os.path.join(self.scratch, f"a{k}.bin")
            a.tofile(path)
            back.append((a, path))
            return f"A {JULIA_TYPES[a.dtype.name]} {a.size} {path}"
        return _scalar(a)


def _scalar(v) -> str:
    if isinstance(v, np.bool_) and int(np.__version__.split(".")[0]) >= 2:
        # as juliacall: its rule `numpy:bool_` misses NumPy 2's `numpy.bool` (PythonCall
        # src/Convert/numpy.jl), so the value would arrive as a 0-d PyArray, not a Bool
        raise TypeError("juliacall under NumPy 2 passes numpy.bool as a 0-d array, not Bool")
    if isinstance(v, bool):
        return f"S Bool {int(v)}"
    if isinstance(v, np.generic):
        t = v.dtype
        bits = v.view(_BITS[t]) if t in _BITS else v
        return f"S {JULIA_TYPES[t.name]} {int(bits)}"
    if isinstance(v, int):
        return f"S Int64 {v}"
    if isinstance(v, float):
        return f"S Float64 {int(np.float64(v).view(np.uint64))}"
    raise TypeError(f"cannot pass {type(v).__name__} to Julia")


def _same_buffer(a: np.ndarray, b: np.ndarray) -> bool:
    return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
            and a.nbytes == b.nbytes and a.dtype == b.dtype)


def _fast_tmp() -> str | None:
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
