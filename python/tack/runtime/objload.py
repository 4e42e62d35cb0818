"""Object code for the CPU engine: compiled from LLVM IR or taken from the disk cache, and mapped
into this process.

    code = load_ir(llvm_ir, ["tack_saxpy"], label="saxpy")   # cache hit: no LLVM at all
    code.address("tack_saxpy")                                # an int, for ctypes

`compile_object` (render/llvm_host.py) gives a relocatable ELF object in the code model MCJIT
uses (x86-64 large: code reaches data and functions through 64-bit absolute addresses). On Linux
x86-64 `ElfImage` maps it itself — copy the allocated sections into fresh pages, apply the
relocations, resolve external symbols (libm, libc, libpthread) with dlsym, make the code
read+execute — which takes well under a millisecond and needs neither llvmlite nor LLVM, so a
process whose kernels come from the cache never loads them. Elsewhere, or for an object that
uses something the loader does not handle (it says what, and never guesses), MCJIT loads the
same object (`TACK_CPU_LOADER=mcjit` forces that; `=elf` makes such a fallback an error, for
tests). Unwind tables (.eh_frame) are not loaded: kernels never unwind.
"""
from __future__ import annotations

import ctypes
import os
import struct
import sys
import weakref
from typing import ClassVar

from ..errors import TackRuntimeError


class LoadError(TackRuntimeError):
    """The object cannot be mapped by ElfImage (MCJIT may still load it)."""


_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")
_SYM = struct.Struct("<IBBHQQ")
_RELA = struct.Struct("<QQq")
_SHF_WRITE, _SHF_ALLOC, _SHF_EXEC, _SHF_TLS = 0x1, 0x2, 0x4, 0x400
_SHT_SYMTAB, _SHT_RELA, _SHT_NOBITS, _SHT_REL = 2, 4, 8, 9
_SHT_INIT = (14, 15, 16)  # init_array, fini_array, preinit_array: code we would have to run
_SHN_UNDEF, _SHN_ABS, _SHN_LORESERVE = 0, 0xFFF1, 0xFF00
_STB_GLOBAL, _STB_WEAK = 1, 2
_EM_X86_64 = 62
_SKIP = (".eh_frame",)  # allocated, but only unwinders read them
_PROT_R, _PROT_W, _PROT_X = 1, 2, 4
_STUB = b"\xff\x25\x00\x00\x00\x00"  # jmp *0(%rip); the 8-byte target follows

# x86-64 relocation types
R_NONE, R_64, R_PC32, R_32, R_PLT32, R_GOTPCREL, R_32S, R_PC64 = 0, 1, 2, 10, 4, 9, 11, 24
R_GOTPCRELX, R_REX_GOTPCRELX = 41, 42
_GOT_TYPES = (R_GOTPCREL, R_GOTPCRELX, R_REX_GOTPCRELX)


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
        self.libs = [libc]  # the process's global scope: libc, libm, libpthread...
        for name in ("libm.so.6", "libc.so.6", "libpthread.so.0"):
            try:
                self.libs.append(ctypes.CDLL(name))
            except OSError:
                pass

    def symbol(self, name: str) -> int | None:
        for lib in self.libs:
            try:
                return ctypes.cast(lib[name], ctypes.c_void_p).value
            except (AttributeError, ValueError):
                continue
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


class ElfImage:
    """One relocatable ELF64 x86-64 object mapped into this process. `symbols`: name → address
    of its global definitions. The pages are unmapped when the image is collected, unless
    `keep` (code that threads outside Python's control run, like the pool's workers)."""

    def __init__(self, obj: bytes, keep: bool = False):
        lib = _lib()
        if len(obj) < _EHDR.size:
            raise LoadError("not an ELF object: too short")
        (ident, e_type, machine, _, _, _, shoff, _, _, _, _, shentsize, shnum,
         shstrndx) = _EHDR.unpack_from(obj)
        if ident[:4] != b"\x7fELF" or ident[4] != 2 or ident[5] != 1:
            raise LoadError("not a little-endian ELF64 object")
        if e_type != 1 or machine != _EM_X86_64:
            raise LoadError(f"ELF type {e_type}, machine {machine}: not an x86-64 relocatable")
        if shentsize != _SHDR.size or shnum == 0 or shstrndx >= shnum or \
                shoff + shnum * _SHDR.size > len(obj):
            raise LoadError("bad ELF section table")
        secs = [_SHDR.unpack_from(obj, shoff + i * _SHDR.size) for i in range(shnum)]
        for s in secs:
            if s[1] != _SHT_NOBITS and s[4] + s[5] > len(obj):
                raise LoadError("an ELF section lies outside the file")
        strtab = secs[shstrndx]

        def cstr(table, off):
            start = table[4] + off
            end = obj.find(b"\0", start, table[4] + table[5])
            if end < 0:
                raise LoadError("bad ELF string table")
            return obj[start:end].decode("utf-8", "replace")

        names = [cstr(strtab, s[0]) for s in secs]

        # which sections to map, and where: text (r-x), read-only data (r--), data (rw-)
        load = {}
        for i, (s, name) in enumerate(zip(secs, names)):
            flags, size = s[2], s[5]
            if s[1] in _SHT_INIT or flags & _SHF_TLS:
                raise LoadError(f"section {name} (constructors or thread-locals) is unsupported")
            if flags & _SHF_ALLOC and size and not name.startswith(_SKIP):
                load[i] = 0 if flags & _SHF_EXEC else 2 if flags & _SHF_WRITE else 1
        symtabs = [i for i, s in enumerate(secs) if s[1] == _SHT_SYMTAB]
        if len(symtabs) != 1:
            raise LoadError("the object needs exactly one symbol table")
        st = secs[symtabs[0]]
        if st[6] >= shnum:
            raise LoadError("bad ELF symbol string table")
        sstr = secs[st[6]]
        syms = [_SYM.unpack_from(obj, st[4] + k * _SYM.size) for k in range(st[5] // _SYM.size)]
        sym_names = [cstr(sstr, s[0]) for s in syms]

        relocs = []  # (target section, [(offset, type, symbol, addend)])
        for s in secs:
            if s[1] == _SHT_REL:
                raise LoadError("REL relocations are unsupported (x86-64 objects use RELA)")
            if s[1] != _SHT_RELA or s[7] not in load:
                continue  # relocations of unwind tables or debug info: not mapped
            if s[6] != symtabs[0]:
                raise LoadError("relocations against a second symbol table")
            relocs.append((s[7], [(o, info & 0xFFFFFFFF, info >> 32, a)
                                  for o, info, a in _RELA.iter_unpack(obj[s[4]:s[4] + s[5]])]))
        stubs, got = {}, {}  # undefined symbol -> index of its jump stub / GOT slot
        for _, rs in relocs:
            for _, rtype, k, _ in rs:
                if k >= len(syms):
                    raise LoadError("relocation against a missing symbol")
                if rtype in (R_PC32, R_PLT32) and syms[k][3] == _SHN_UNDEF:
                    stubs.setdefault(k, len(stubs))
                elif rtype in _GOT_TYPES:
                    got.setdefault(k, len(got))

        # layout: three page-aligned segments
        seg_size, offs = [0, 0, 0], {}
        for i, seg in load.items():
            a = max(1, secs[i][8])
            if a > lib.page:
                raise LoadError(f"section {names[i]} wants {a}-byte alignment")
            offs[i] = _align(seg_size[seg], a)
            seg_size[seg] = offs[i] + secs[i][5]
        stub_off = _align(seg_size[0], 16)
        seg_size[0] = stub_off + 16 * len(stubs)
        got_off = _align(seg_size[1], 8)
        seg_size[1] = got_off + 8 * len(got)
        seg_start, total = [], 0
        for size in seg_size:
            seg_start.append(total)
            total += _align(size, lib.page)
        if total == 0:
            raise LoadError("the object has no code")
        base = lib.mmap(None, total, _PROT_R | _PROT_W, 0x2 | 0x20, -1, 0)  # private, anonymous
        if base in (None, ctypes.c_void_p(-1).value):
            raise MemoryError(f"mmap failed: {os.strerror(ctypes.get_errno())}")
        self.base, self.size = base, total
        self._finalizer = None
        if not keep:
            self._finalizer = weakref.finalize(self, _unmap, base, total)
            self._finalizer.atexit = False
        try:
            self._link(obj, secs, names, load, offs, seg_start, syms, sym_names, relocs, stubs,
                       got, stub_off, got_off, seg_size)
        except BaseException:
            if self._finalizer is not None:
                self._finalizer()
            else:
                lib.munmap(base, total)
            raise

    def _link(self, obj, secs, names, load, offs, seg_start, syms, sym_names, relocs, stubs, got,
              stub_off, got_off, seg_size) -> None:
        lib, base = _lib(), self.base
        img = bytearray(self.size)
        addr = {}  # section index -> address
        for i, seg in load.items():
            pos = seg_start[seg] + offs[i]
            addr[i] = base + pos
            if secs[i][1] != _SHT_NOBITS:
                img[pos:pos + secs[i][5]] = obj[secs[i][4]:secs[i][4] + secs[i][5]]

        values = {}

        def value(k):
            v = values.get(k)
            if v is None:
                name, info, shndx, val = sym_names[k], syms[k][1], syms[k][3], syms[k][4]
                if shndx == _SHN_UNDEF:
                    v = lib.symbol(name)
                    if v is None:
                        if info >> 4 != _STB_WEAK:
                            raise LoadError(f"undefined symbol {name!r}")
                        v = 0
                elif shndx == _SHN_ABS:
                    v = val
                elif shndx in addr:
                    v = addr[shndx] + val
                else:
                    raise LoadError(f"relocation against {name or 'a section'} in "
                                    f"{names[shndx] if shndx < len(names) else shndx}, "
                                    "which is not loaded")
                values[k] = v
            return v

        for k, j in stubs.items():
            pos = seg_start[0] + stub_off + 16 * j
            img[pos:pos + 14] = _STUB + struct.pack("<Q", value(k))
        for k, j in got.items():
            struct.pack_into("<Q", img, seg_start[1] + got_off + 8 * j, value(k))
        for target, rs in relocs:
            seg_pos = addr[target] - base
            size = secs[target][5]
            for off, rtype, k, a in rs:
                if off + 8 > size and rtype in (R_64, R_PC64) or off + 4 > size:
                    raise LoadError("relocation outside its section")
                pos, place = seg_pos + off, addr[target] + off
                if rtype == R_64:
                    struct.pack_into("<Q", img, pos, (value(k) + a) & (1 << 64) - 1)
                elif rtype in (R_PC32, R_PLT32):
                    s = (base + seg_start[0] + stub_off + 16 * stubs[k] if k in stubs
                         else value(k))
                    _put32(img, pos, s + a - place, True, rtype)
                elif rtype in _GOT_TYPES:
                    slot = base + seg_start[1] + got_off + 8 * got[k]
                    _put32(img, pos, slot + a - place, True, rtype)
                elif rtype == R_PC64:
                    struct.pack_into("<Q", img, pos, (value(k) + a - place) & (1 << 64) - 1)
                elif rtype in (R_32, R_32S):
                    _put32(img, pos, value(k) + a, rtype == R_32S, rtype)
                elif rtype != R_NONE:
                    raise LoadError(f"relocation type {rtype} (in {names[target]}) is "
                                    "unsupported")
        ctypes.memmove(base, bytes(img), self.size)
        for seg, prot in ((0, _PROT_R | _PROT_X), (1, _PROT_R)):
            if seg_size[seg] and lib.mprotect(base + seg_start[seg],
                                              _align(seg_size[seg], lib.page), prot) != 0:
                raise LoadError(f"mprotect failed: {os.strerror(ctypes.get_errno())}")
        syms_out = {}
        for k, (_, info, _, shndx, _, _) in enumerate(syms):
            if info >> 4 in (_STB_GLOBAL, _STB_WEAK) and shndx != _SHN_UNDEF and \
                    (shndx in addr or shndx == _SHN_ABS):
                syms_out[sym_names[k]] = value(k)
        self.symbols = syms_out

    def address(self, name: str) -> int:
        try:
            return self.symbols[name]
        except KeyError:
            raise LoadError(f"the object defines no symbol {name!r}") from None


def _put32(img, pos, v, signed, rtype) -> None:
    lo, hi = (-(1 << 31), (1 << 31) - 1) if signed else (0, (1 << 32) - 1)
    if not lo <= v <= hi:
        raise LoadError(f"relocation type {rtype}: value {v:#x} does not fit 32 bits")
    struct.pack_into("<i" if signed else "<I", img, pos, v)


class MCJITImage:
    """The same object loaded by MCJIT (llvmlite), for platforms ElfImage does not handle."""

    _kept: ClassVar[list] = []

    def __init__(self, obj: bytes, keep: bool = False):
        from ..render import llvm_host
        from .cpu_pool import load_system_libraries

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


def map_object(obj: bytes, keep: bool = False):
    """An image of `obj` (ElfImage where supported, else MCJIT; see TACK_CPU_LOADER)."""
    how = os.environ.get("TACK_CPU_LOADER", "").strip().lower()
    if how != "mcjit" and supported():
        try:
            return ElfImage(obj, keep)
        except LoadError:
            if how == "elf":
                raise
    return MCJITImage(obj, keep)


counts = {"compiled": 0, "cached": 0}  # this process's code: compiled by LLVM / from the cache


def load_code(make_ir, symbols, label: str = "", keep: bool = False, source=None):
    """Object code, mapped, with `symbols` checked present: from the disk cache (tack.cache,
    kind "cpu") when it holds it, else `make_ir()` compiled (and stored). `source` (or a
    function giving it, called only when the cache is on) identifies the code for the key, e.g.
    ["kir", digest]; None: the LLVM IR text itself, rendered first."""
    from .. import cache
    from ..render import llvm_host

    key = ir = None
    if cache.enabled():
        if callable(source):
            source = source()
        if source is None:
            ir = make_ir()
            source = ["ir", ir]
        key = llvm_host.code_key(source)
        entry = cache.load("cpu", key)
        if entry is not None:
            try:
                image = map_object(entry.data, keep)
                for name in symbols:
                    image.address(name)
                counts["cached"] += 1
                return image
            except LoadError:
                pass  # a valid entry that this process cannot use: compile instead
    if ir is None:
        ir = make_ir()
    obj = llvm_host.compile_object(ir)
    counts["compiled"] += 1
    image = map_object(obj, keep)
    for name in symbols:
        image.address(name)
    if key is not None:
        if llvm_host.confirm_host_info():  # the recorded host info was stale: so was the key
            key = llvm_host.code_key(source)
        cache.store("cpu", key, obj, {"symbols": list(symbols), "label": label,
                                      "target": llvm_host.host_info()})
    return image


def load_ir(llvm_ir: str, symbols, label: str = "", keep: bool = False):
    """`load_code` for a fixed LLVM IR text (the thread pool), keyed on that text."""
    return load_code(lambda: llvm_ir, symbols, label, keep)
