"""A kernel's entry as a Python builtin function: the warm launch without ctypes.

A ctypes call converts each argument through its argtypes and builds a call frame (~1.2 µs on
the 2-core test VM, more than the rest of a 1-element launch together). Each CPU kernel's module
therefore also defines `tack_call_<name>`, a C function with CPython's METH_O convention
(https://docs.python.org/3/c-api/structures.html#c.PyMethodDef), wrapped as a builtin function
object by `PyCFunction_NewEx`. Python calls it like any builtin:

    caller(block)       # block: bytes, the kernel's 8-byte argument slots, then n (struct.pack)

It reads n from the block's last slot; where the record holds the SIGINT count's address (a
kernel with polled loops, passes/polls.py, or one the pool runs), it reads the count as the
launch's `sig0` and then runs Python's pending signal handlers (`PyErr_CheckSignals`): the
handler that counts calls Python's first (pool_ir.py), so a signal either is in Python's hands
now — the call raises KeyboardInterrupt before anything runs — or moves the count during the
launch, which stops it. It then releases the GIL (as a ctypes call does), runs the entry over
[0, n) serially when n < n_par and through `tack_pool_launch` otherwise, takes the GIL back and
returns its `self`, or None when a SIGINT stopped the launch (the count differs from `sig0` at
the end): the inline launch lines then call `CPUKernel.interrupted`. `self` is the record below,
a bytearray the engine updates in place when the policy changes; the block is a fresh bytes
object per call, so two threads launching the same kernel never share one (no lock). Built where
objload maps ELF objects (Linux x86-64; both of its loaders resolve the C-API from the process);
elsewhere launches keep the ctypes path.
"""
from __future__ import annotations

import ctypes
import struct

from ...toolchain import objload
from .threads import NEVER

ABI = "tack_call/3"  # part of the disk-cache key of the code that holds a caller
# n_par, grain, pool, tack_pool_launch (0, 0 while serial), the SIGINT count's address (0: none)
RECORD = struct.Struct("@qqQQQ")
# The entry itself, `void tack_<name>(i64 begin, i64 end, ptr args, i64 sig0)`, as a ctypes
# function type: the serial launch before the caller exists, and the calibration's timed prefixes.
ENTRY = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64)
_METH_O = 0x0008
_API = ("PyBytes_AsString", "PyByteArray_AsString", "PyEval_SaveThread", "PyEval_RestoreThread",
        "Py_IncRef", "_Py_NoneStruct", "PyErr_CheckSignals")

_IR = """
declare ptr @PyBytes_AsString(ptr)
declare ptr @PyByteArray_AsString(ptr)
declare ptr @PyEval_SaveThread()
declare void @PyEval_RestoreThread(ptr)
declare void @Py_IncRef(ptr)
declare i32 @PyErr_CheckSignals()
@_Py_NoneStruct = external global i8

define ptr @{caller}(ptr %self, ptr %block) {{
entry:
  %args = call ptr @PyBytes_AsString(ptr %block)
  %bad = icmp eq ptr %args, null
  br i1 %bad, label %fail, label %ok
ok:
  %rec = call ptr @PyByteArray_AsString(ptr %self)
  %np = getelementptr inbounds i64, ptr %args, i64 {slots}
  %n = load i64, ptr %np, align 8
  %npar = load i64, ptr %rec, align 8
  %cpp = getelementptr inbounds i64, ptr %rec, i64 4
  %cp = load ptr, ptr %cpp, align 8
  %counted = icmp ne ptr %cp, null
  br i1 %counted, label %count, label %run
count:
  %s = load atomic i64, ptr %cp seq_cst, align 8
  %pending = call i32 @PyErr_CheckSignals()
  %raised = icmp ne i32 %pending, 0
  br i1 %raised, label %fail, label %run
run:
  %sig0 = phi i64 [0, %ok], [%s, %count]
  %ts = call ptr @PyEval_SaveThread()
  %serial = icmp slt i64 %n, %npar
  br i1 %serial, label %one, label %pool
one:
{serial}  br label %done
pool:
  %gp = getelementptr inbounds i64, ptr %rec, i64 1
  %grain = load i64, ptr %gp, align 8
  %pp = getelementptr inbounds i64, ptr %rec, i64 2
  %poolp = load ptr, ptr %pp, align 8
  %fp = getelementptr inbounds i64, ptr %rec, i64 3
  %fn = load ptr, ptr %fp, align 8
  %r2 = call i64 %fn(ptr %poolp, ptr @{entry}, ptr %args, i64 0, i64 %n, i64 %npar, i64 %grain,
                     i64 %sig0)
  br label %done
done:
  %r = phi i64 [%r1, %one], [%r2, %pool]
  call void @PyEval_RestoreThread(ptr %ts)
  %stopped = icmp ne i64 %r, 0
  %out = select i1 %stopped, ptr @_Py_NoneStruct, ptr %self
  call void @Py_IncRef(ptr %out)
  ret ptr %out
fail:
  ret ptr null
}}
"""
_SERIAL = """  call void @{entry}(i64 0, i64 %n, ptr %args, i64 %sig0)
  %r1 = add i64 0, 0
"""
# A kernel with polled loops (its record holds the count's address): whether the SIGINT count
# differs from the launch's sig0 after the entry ran.
_SERIAL_POLLED = """  call void @{entry}(i64 0, i64 %n, ptr %args, i64 %sig0)
  %s1 = load atomic i64, ptr %cp seq_cst, align 8
  %moved = icmp ne i64 %s1, %sig0
  %r1 = zext i1 %moved to i64
"""


def available() -> bool:
    """Whether kernels get a caller: objload's ELF loader maps them and finds the C-API."""
    if not objload.supported():  # (MCJIT, its fallback there, resolves them as well)
        return False
    return all(hasattr(ctypes.pythonapi, name) for name in _API)  # the process's global scope


def caller_symbol(entry: str) -> str:
    return f"tack_call_{entry}"


def caller_ir(entry: str, slots: int, polled: bool = False) -> str:
    """The caller of `entry`, whose argument block has `slots` slots before n, as LLVM IR to
    append to the entry's module; `polled`: a kernel with polled loops (its record always holds
    the SIGINT count's address)."""
    serial = (_SERIAL_POLLED if polled else _SERIAL).format(entry=entry)
    return _IR.format(caller=caller_symbol(entry), entry=entry, slots=slots, serial=serial)


class _MethodDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("meth", ctypes.c_void_p), ("flags", ctypes.c_int),
                ("doc", ctypes.c_char_p)]


_new = ctypes.pythonapi.PyCFunction_NewEx
_new.restype, _new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.py_object, ctypes.c_void_p]


class Caller:
    """The builtin function over the C caller at `address` and its record. The owner keeps this
    object (the method definition the function points to) as long as it keeps the code mapped."""

    def __init__(self, name: str, address: int, count: int = 0):
        self.record = bytearray(RECORD.size)
        self.set_policy(NEVER, 1, 0, 0, count)
        self._def = _MethodDef(name.encode(), address, _METH_O, None)
        self.fn = _new(ctypes.addressof(self._def), self.record, None)

    def set_policy(self, n_par: int, grain: int, pool: int, pool_launch: int,
                   count: int) -> None:
        """Launches of n >= n_par go to `pool` in chunks of at least `grain` (n_par: NEVER for
        always serial); `count`: the SIGINT count's address, 0 while nothing can stop a launch
        (a kernel without polled loops, always serial)."""
        RECORD.pack_into(self.record, 0, n_par, grain, pool, pool_launch, count)
