"""Object code for the CPU engine: compiled from LLVM IR or taken from the disk cache, and mapped
into this process.

    code = load_ir(llvm_ir, ["tack_saxpy"], label="saxpy")   # cache hit: no LLVM at all
    code.address("tack_saxpy")                                # an int, for ctypes

`compile_object` (toolchain/llvm_host.py) gives a relocatable ELF object in the code model MCJIT
uses (x86-64 large: code reaches data and functions through 64-bit absolute addresses). On Linux
x86-64 `ElfImage` maps it itself, in four phases: map (lay the allocated sections out in three
segments of fresh pages and copy them in), resolve (external symbols — libm, libc, libpthread —
through dlsym), relocate, protect (code read+execute, constants read-only). That takes well under
a millisecond and needs neither llvmlite nor LLVM, so a process whose kernels come from the cache
never loads them. Elsewhere, or for an object that uses something the loader does not handle
(toolchain/elf.py says what, and never guesses), MCJIT loads the same object
(`TACK_CPU_LOADER=mcjit` forces that; `=elf` makes such a fallback an error, for tests). Unwind
tables (.eh_frame) are not loaded: kernels never unwind.
"""
from __future__ import annotations

import ctypes
import functools
import os
import struct
import sys
import weakref
from typing import ClassVar

from .. import cache
from . import llvm_host
from .elf import (
    GOT_TYPES,
    MALFORMED,
    R_32,
    R_32S,
    R_64,
    R_NONE,
    R_PC32,
    R_PC64,
    R_PLT32,
    RODATA,
    SHN_ABS,
    SHN_UNDEF,
    SHT_NOBITS,
    STB_GLOBAL,
    STB_WEAK,
    STT_FUNC,
    STT_OBJECT,
    TEXT,
    ElfObject,
    LoadError,
    parse,
)

_PROT_R, _PROT_W, _PROT_X = 1, 2, 4
_STUB = b"\xff\x25\x00\x00\x00\x00"  # jmp *0(%rip); the 8-byte target follows


def supported() -> bool:
    """Whether ElfImage can map objects of this process's platform."""
    return (sys.platform.startswith("linux") and ctypes.sizeof(ctypes.c_void_p) == 8
            and os.uname().machine in ("x86_64", "amd64"))


class _Libc:
    def __init__(self):
        libc = ctypes.CDLL(None, use_errno=True)
        vp, sz = ctypes.c_void_p, ctypes.c_size_t
        self.mmap = libc.mmap
        self.mmap.restype, self.mmap.argtypes = vp, [vp, sz, ctypes.c_int, ctypes.c_int,
                                                     ctypes.c_int, ctypes.c_long]
        self.mprotect = libc.mprotect
        self.mprotect.restype, self.mprotect.argtypes = ctypes.c_int, [vp, sz, ctypes.c_int]
        self.munmap = libc.munmap
        self.munmap.restype, self.munmap.argtypes = ctypes.c_int, [vp, sz]
        self.page = os.sysconf("SC_PAGE_SIZE")
        try:  # one C call per symbol (looking `lib[name]` up builds a ctypes function object)
            self._dlsym = libc.dlsym
            self._dlsym.restype, self._dlsym.argtypes = vp, [vp, ctypes.c_char_p]
        except AttributeError:  # no dlsym in the global scope (a libc without it)
            self._dlsym = None
        self.libs = [libc]  # the process's global scope: libc, libm, libpthread...
        self._more = ["libm.so.6", "libc.so.6", "libpthread.so.0"]  # opened when first needed

    def symbol(self, name: str) -> int | None:
        k = 0
        while True:
            while k < len(self.libs):
                v = self._lookup(self.libs[k], name)
                if v is not None:
                    return v
                k += 1
            if not self._more:
                return None
            try:  # a symbol the global scope lacks (libm's, when Python does not link it)
                self.libs.append(ctypes.CDLL(self._more.pop(0)))
            except OSError:
                pass

    def _lookup(self, lib, name: str) -> int | None:
        if self._dlsym is not None:
            return self._dlsym(lib._handle, name.encode()) or None
        try:
            return ctypes.cast(lib[name], ctypes.c_void_p).value
        except (AttributeError, ValueError):
            return None


_libc: _Libc | None = None


def _lib() -> _Libc:
    global _libc
    if _libc is None:
        _libc = _Libc()
    return _libc


def _unmap(base: int, size: int) -> None:
    if not sys.is_finalizing():  # at exit a daemon thread may still be running this code
        _lib().munmap(base, size)


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a if a > 1 else x


# ---- phase 1: map ------------------------------------------------------------------------------
class _Layout:
    """Where everything goes, as offsets from the image's base: three page-aligned segments
    (TEXT, RODATA, DATA, in that order); the jump stubs end TEXT, the GOT ends RODATA. (A plain
    class: see elf.ElfObject.)"""

    __slots__ = ("got_off", "offs", "seg_size", "seg_start", "stub_off", "total")

    def __init__(self, offs: dict, seg_start: list, seg_size: list, stub_off: int,
                 got_off: int, total: int):
        self.offs = offs  # section index -> offset in its segment
        self.seg_start, self.seg_size = seg_start, seg_size
        self.stub_off, self.got_off, self.total = stub_off, got_off, total  # stubs: in TEXT

    def section(self, i: int, seg: int) -> int:
        return self.seg_start[seg] + self.offs[i]

    def stub(self, j: int) -> int:
        return self.seg_start[TEXT] + self.stub_off + 16 * j

    def got(self, j: int) -> int:
        return self.seg_start[RODATA] + self.got_off + 8 * j


def _layout(elf: ElfObject, page: int) -> _Layout:
    seg_size, offs = [0, 0, 0], {}
    for i, seg in elf.load.items():
        a = max(1, elf.secs[i][8])
        if a > page:
            raise LoadError(f"section {elf.names[i]} wants {a}-byte alignment")
        offs[i] = _align(seg_size[seg], a)
        seg_size[seg] = offs[i] + elf.secs[i][5]
    stub_off = _align(seg_size[TEXT], 16)
    seg_size[TEXT] = stub_off + 16 * len(elf.stubs)
    got_off = _align(seg_size[RODATA], 8)
    seg_size[RODATA] = got_off + 8 * len(elf.got)
    seg_start, total = [], 0
    for size in seg_size:
        seg_start.append(total)
        total += _align(size, page)
    if total == 0:
        raise LoadError("the object has no code")
    return _Layout(offs, seg_start, seg_size, stub_off, got_off, total)


class ElfImage:
    """One relocatable ELF64 x86-64 object mapped into this process. `symbols`: name → address
    of its global definitions. The pages are unmapped when the image is collected, unless
    `keep` (code that threads outside Python's control run, like the pool's workers)."""

    def __init__(self, obj: bytes, keep: bool = False):
        elf = parse(obj)
        layout = _layout(elf, _lib().page)
        self._map(layout.total, keep)
        try:
            link = _Link(elf, layout, self.base)
            link.relocate()
            link.protect()
            self.symbols, self.kinds = link.exports()
        except BaseException as exc:
            if self._finalizer is not None:
                self._finalizer()
            else:
                _lib().munmap(self.base, self.size)
            if isinstance(exc, MALFORMED):  # a field of a forged object pointing nowhere
                raise LoadError(f"malformed ELF object: {exc}") from None
            raise

    def _map(self, total: int, keep: bool) -> None:
        base = _lib().mmap(None, total, _PROT_R | _PROT_W, 0x2 | 0x20, -1, 0)  # private, anonymous
        if base in (None, ctypes.c_void_p(-1).value):
            raise MemoryError(f"mmap failed: {os.strerror(ctypes.get_errno())}")
        self.base, self.size = base, total
        self._finalizer = None
        if not keep:
            self._finalizer = weakref.finalize(self, _unmap, base, total)
            self._finalizer.atexit = False

    def address(self, name: str) -> int:
        try:
            return self.symbols[name]
        except KeyError:
            raise LoadError(f"the object defines no symbol {name!r}") from None

    def check(self, names, words=()) -> None:
        """LoadError unless each of `names` is what the engine takes it for: a function in
        code, or, for those in `words` (8-byte words the engine reads or writes), an object of
        at least 8 bytes outside code. A forged object must not get a data word called or a
        function's code written."""
        for name in names:
            self.address(name)
            seg, typ, size = self.kinds[name]
            data = name in words
            if (typ, seg == TEXT) != ((STT_OBJECT, False) if data else (STT_FUNC, True)) or \
                    data and size < 8:
                raise LoadError(f"symbol {name!r} is not the {'word' if data else 'function'} "
                                "the engine expects")



class _Link:
    """The phases after mapping, for one object bound to the pages at `base`: the image is built
    in `img` (the sections copied in at once), then written over the pages by `protect`."""

    def __init__(self, elf: ElfObject, layout: _Layout, base: int):
        self.elf, self.layout, self.base = elf, layout, base
        self.img = bytearray(layout.total)
        self.addr = {}  # section index -> address
        self.values = {}  # symbol index -> address, resolved on first use
        for i, seg in elf.load.items():
            pos = layout.section(i, seg)
            self.addr[i] = base + pos
            s = elf.secs[i]
            if s[1] != SHT_NOBITS:
                self.img[pos:pos + s[5]] = elf.data[s[4]:s[4] + s[5]]

    # ---- phase 2: resolve ----------------------------------------------------------------------
    def value(self, k: int) -> int:
        """The address of symbol `k`: dlsym for an undefined one (a missing weak one is 0)."""
        v = self.values.get(k)
        if v is None:
            v = self.values[k] = self._resolve(k)
        return v

    def _resolve(self, k: int) -> int:
        elf = self.elf
        name, info, shndx, val = elf.sym_names[k], elf.syms[k][1], elf.syms[k][3], elf.syms[k][4]
        if shndx == SHN_UNDEF:
            v = _lib().symbol(name)
            if v is None:
                if info >> 4 != STB_WEAK:
                    raise LoadError(f"undefined symbol {name!r}")
                v = 0
            return v
        if shndx == SHN_ABS:
            return val
        if shndx in self.addr:
            return self.addr[shndx] + val
        raise LoadError(f"relocation against {name or 'a section'} in "
                        f"{elf.names[shndx] if shndx < len(elf.names) else shndx}, "
                        "which is not loaded")

    # ---- phase 3: relocate ---------------------------------------------------------------------
    def relocate(self) -> None:
        """Fill the jump stubs and GOT slots, then apply every section's relocations."""
        img, layout = self.img, self.layout
        for k, j in self.elf.stubs.items():
            pos = layout.stub(j)
            img[pos:pos + 14] = _STUB + struct.pack("<Q", self.value(k))
        for k, j in self.elf.got.items():
            struct.pack_into("<Q", img, layout.got(j), self.value(k))
        for target, rs in self.elf.relocs:
            self._relocate_section(target, rs)

    def _relocate_section(self, target: int, rs) -> None:
        img, base, layout, stubs = self.img, self.base, self.layout, self.elf.stubs
        seg_pos = self.addr[target] - base
        size = self.elf.secs[target][5]
        for off, rtype, k, a in rs:
            if off + 8 > size and rtype in (R_64, R_PC64) or off + 4 > size:
                raise LoadError("relocation outside its section")
            pos, place = seg_pos + off, self.addr[target] + off
            if rtype == R_64:
                struct.pack_into("<Q", img, pos, (self.value(k) + a) & (1 << 64) - 1)
            elif rtype in (R_PC32, R_PLT32):
                s = base + layout.stub(stubs[k]) if k in stubs else self.value(k)
                _put32(img, pos, s + a - place, True, rtype)
            elif rtype in GOT_TYPES:
                _put32(img, pos, base + layout.got(self.elf.got[k]) + a - place, True, rtype)
            elif rtype == R_PC64:
                struct.pack_into("<Q", img, pos, (self.value(k) + a - place) & (1 << 64) - 1)
            elif rtype in (R_32, R_32S):
                _put32(img, pos, self.value(k) + a, rtype == R_32S, rtype)
            elif rtype != R_NONE:
                raise LoadError(f"relocation type {rtype} (in {self.elf.names[target]}) is "
                                "unsupported")

    # ---- phase 4: protect ----------------------------------------------------------------------
    def protect(self) -> None:
        """Write the image over the pages; code becomes read+execute, constants read-only (DATA
        stays read-write)."""
        lib, base, layout = _lib(), self.base, self.layout
        ctypes.memmove(base, bytes(self.img), layout.total)
        for seg, prot in ((TEXT, _PROT_R | _PROT_X), (RODATA, _PROT_R)):
            if layout.seg_size[seg] and lib.mprotect(base + layout.seg_start[seg],
                                                     _align(layout.seg_size[seg], lib.page),
                                                     prot) != 0:
                raise LoadError(f"mprotect failed: {os.strerror(ctypes.get_errno())}")

    def exports(self) -> tuple[dict, dict]:
        """name -> address of every global or weak symbol the object defines in a section it
        maps (an absolute one names no code or data of it), and name -> (segment, symbol type,
        size)."""
        out, kinds = {}, {}
        for k, (_, info, _, shndx, _, size) in enumerate(self.elf.syms):
            if info >> 4 in (STB_GLOBAL, STB_WEAK) and shndx in self.addr:
                out[self.elf.sym_names[k]] = self.value(k)
                kinds[self.elf.sym_names[k]] = (self.elf.load[shndx], info & 0xF, size)
        return out, kinds


def _put32(img, pos, v, signed, rtype) -> None:
    lo, hi = (-(1 << 31), (1 << 31) - 1) if signed else (0, (1 << 32) - 1)
    if not lo <= v <= hi:
        raise LoadError(f"relocation type {rtype}: value {v:#x} does not fit 32 bits")
    struct.pack_into("<i" if signed else "<I", img, pos, v)


# ---- MCJIT, where ElfImage does not apply --------------------------------------------------------
@functools.cache
def load_system_libraries() -> None:
    """Make libm/libc/libpthread symbols resolvable by MCJIT (tanf, fmod, pthread_create...);
    only MCJITImage needs this (ElfImage resolves them with dlsym)."""
    import ctypes.util  # imports subprocess & co.: only for the MCJIT fallback

    llvm = llvm_host.binding()
    for name in ("m", "c", "pthread"):
        path = ctypes.util.find_library(name)
        if path:
            try:
                llvm.load_library_permanently(path)
            except RuntimeError:  # e.g. libpthread folded into libc: nothing to load
                pass


class MCJITImage:
    """The same object loaded by MCJIT (llvmlite), for platforms ElfImage does not handle."""

    _kept: ClassVar[list] = []

    def __init__(self, obj: bytes, keep: bool = False):
        llvm = llvm_host.binding()
        load_system_libraries()
        with llvm_host.compile_lock:
            self._engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""),
                                                      llvm_host.host_target_machine(jit=True))
            self._engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
            self._engine.finalize_object()
        if keep:  # never freed, not even at interpreter teardown
            MCJITImage._kept.append(self._engine)
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(self._engine))

    def address(self, name: str) -> int:
        a = self._engine.get_function_address(name)
        if not a:
            raise LoadError(f"the object defines no symbol {name!r}")
        return a


def map_object(obj: bytes, keep: bool = False, fallback: bool = True):
    """An image of `obj` (ElfImage where supported, else MCJIT; see TACK_CPU_LOADER). Without
    `fallback`, an object ElfImage rejects raises LoadError instead of going to MCJIT: a cache
    entry is only ever mapped by the loader that checks it (MCJIT would trust a forged object,
    and crashed the process on some), and a rejected one is recompiled."""
    how = os.environ.get("TACK_CPU_LOADER", "").strip().lower()
    if how != "mcjit" and supported():
        try:
            return ElfImage(obj, keep)
        except LoadError:
            if how == "elf" or not fallback:
                raise
    return MCJITImage(obj, keep)


counts = {"compiled": 0, "cached": 0}  # this process's code: compiled by LLVM / from the cache


def load_code(make_ir, symbols, label: str = "", keep: bool = False, source=None, words=()):
    """Object code, mapped, with `symbols` checked present: from the disk cache (tack.cache,
    kind "cpu") when it holds it, else `make_ir()` compiled (and stored). `source` (or a
    function giving it, called only when the cache is on) identifies the code for the key, e.g.
    ["kir", digest]; None: the LLVM IR text itself, rendered first. The image's `cache_key` is
    the entry's key (None with the cache off), so a launch record can name the code. `words`:
    those of `symbols` that are 8-byte data words, not functions (`ElfImage.check`)."""
    key = ir = None
    if cache.enabled():
        if callable(source):
            source = source()
        if source is None:
            ir = make_ir()
            source = ["ir", ir]
        key = llvm_host.code_key(source)
        image = load_cached(key, symbols, keep, words)
        if image is not None:
            return image
    if ir is None:
        ir = make_ir()
    obj = llvm_host.compile_object(ir)
    counts["compiled"] += 1
    image = map_object(obj, keep)
    _check(image, symbols, words)
    if key is not None:
        if llvm_host.confirm_host_info():  # the recorded host info was stale: so was the key
            key = llvm_host.code_key(source)
        cache.store("cpu", key, obj, {"symbols": list(symbols), "label": label,
                                      "target": llvm_host.target_info()})
    image.cache_key = key
    return image


def load_cached(key: str, symbols, keep: bool = False, words=()):
    """The object code stored under `key` (kind "cpu"), mapped by ElfImage with `symbols`
    checked present; None if the cache does not hold it or holds something ElfImage rejects
    (checksum-valid, but not an object it accepts: the caller compiles it afresh)."""
    entry = cache.load("cpu", key)
    if entry is None:
        return None
    try:
        image = map_object(entry.data, keep, fallback=False)
        _check(image, symbols, words)
    except LoadError:
        return None
    counts["cached"] += 1
    image.cache_key = key
    return image


def _check(image, symbols, words) -> None:
    """Each of `symbols` defined, and (ElfImage) of the kind the engine takes it for."""
    if isinstance(image, ElfImage):
        image.check(symbols, words)
    else:
        for name in symbols:
            image.address(name)


def load_ir(llvm_ir: str, symbols, label: str = "", keep: bool = False, words=()):
    """`load_code` for a fixed LLVM IR text (the thread pool), keyed on that text."""
    return load_code(lambda: llvm_ir, symbols, label, keep, words=words)
