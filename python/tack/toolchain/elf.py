"""A relocatable ELF64 x86-64 object (what LLVM emits for the CPU engine), parsed into what
`objload` maps: the sections to load and in which segment, the symbols, the relocations, and
which symbols need a jump stub or a GOT slot. Bytes in, tuples out: nothing is mapped here, and
anything the loader would not handle raises `LoadError` saying what (it never guesses).
"""
from __future__ import annotations

import struct

from ..errors import TackRuntimeError


class LoadError(TackRuntimeError):
    """The object cannot be mapped by ElfImage (MCJIT may still load it)."""


# What reading a field that points outside the object raises: turned into LoadError
MALFORMED = (struct.error, IndexError, KeyError, ValueError, OverflowError)


_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")  # name, type, flags, addr, offset, size, link, info, align, _
_SYM = struct.Struct("<IBBHQQ")  # name, info, other, section index, value, size
_RELA = struct.Struct("<QQq")
SHF_WRITE, SHF_ALLOC, SHF_EXEC, SHF_TLS = 0x1, 0x2, 0x4, 0x400
SHT_SYMTAB, SHT_STRTAB, SHT_RELA, SHT_NOBITS, SHT_REL = 2, 3, 4, 8, 9
SHT_INIT = (14, 15, 16)  # init_array, fini_array, preinit_array: code we would have to run
SHN_UNDEF, SHN_LORESERVE, SHN_ABS = 0, 0xFF00, 0xFFF1
STB_GLOBAL, STB_WEAK = 1, 2
STT_OBJECT, STT_FUNC = 1, 2
EM_X86_64 = 62
SKIP = (".eh_frame",)  # allocated, but only unwinders read them (kernels never unwind)

# x86-64 relocation types
R_NONE, R_64, R_PC32, R_32, R_PLT32, R_GOTPCREL, R_32S, R_PC64 = 0, 1, 2, 10, 4, 9, 11, 24
R_GOTPCRELX, R_REX_GOTPCRELX = 41, 42
GOT_TYPES = (R_GOTPCREL, R_GOTPCRELX, R_REX_GOTPCRELX)

TEXT, RODATA, DATA = 0, 1, 2  # the segments: r-x, r--, rw-


class ElfObject:
    """One parsed object. Sections and symbols are the raw header tuples (fields as in `_SHDR`
    and `_SYM`), indexed as in the file. (A plain class, not a dataclass: making a dataclass
    costs ~0.7 ms at import, on the path of every cached first call.)"""

    __slots__ = ("data", "got", "load", "names", "relocs", "secs", "stubs", "sym_names", "syms")

    def __init__(self, data: bytes, secs: list, names: list, load: dict, syms: list,
                 sym_names: list, relocs: list, stubs: dict, got: dict):
        self.data, self.secs, self.names = data, secs, names  # names: the sections'
        self.load = load  # section index -> segment (TEXT, RODATA or DATA) of each one mapped
        self.syms, self.sym_names = syms, sym_names
        self.relocs = relocs  # (target section, [(offset, type, symbol index, addend)])
        self.stubs = stubs  # undefined symbol -> index of its jump stub (calls that may be far)
        self.got = got  # symbol -> index of its GOT slot


def parse(obj: bytes) -> ElfObject:
    """Check and parse `obj`; raise LoadError for anything the loader does not handle (a field
    pointing outside the file included: a forged object must not escape as another error)."""
    try:
        return _parse(obj)
    except MALFORMED as exc:
        raise LoadError(f"malformed ELF object: {exc}") from None


def _parse(obj: bytes) -> ElfObject:
    h = _header(obj)
    secs = _section_headers(obj, h)
    if secs[h.shstrndx][1] != SHT_STRTAB:
        raise LoadError("bad ELF section name table")
    names = [_cstr(obj, secs[h.shstrndx], s[0]) for s in secs]
    load = _loaded_sections(secs, names)
    symtab, syms, sym_names = _symbols(obj, secs)
    relocs = _relocations(obj, secs, load, symtab)
    stubs, got = _indirections(relocs, syms)
    return ElfObject(obj, secs, names, load, syms, sym_names, relocs, stubs, got)


class _Header:
    __slots__ = ("shnum", "shoff", "shstrndx")

    def __init__(self, shoff: int, shnum: int, shstrndx: int):
        self.shoff, self.shnum, self.shstrndx = shoff, shnum, shstrndx


def _header(obj: bytes) -> _Header:
    if len(obj) < _EHDR.size:
        raise LoadError("not an ELF object: too short")
    (ident, e_type, machine, _, _, _, shoff, _, _, _, _, shentsize, shnum,
     shstrndx) = _EHDR.unpack_from(obj)
    if ident[:4] != b"\x7fELF" or ident[4] != 2 or ident[5] != 1:
        raise LoadError("not a little-endian ELF64 object")
    if e_type != 1 or machine != EM_X86_64:
        raise LoadError(f"ELF type {e_type}, machine {machine}: not an x86-64 relocatable")
    if shentsize != _SHDR.size or shnum == 0 or shstrndx >= shnum or \
            shoff + shnum * _SHDR.size > len(obj):
        raise LoadError("bad ELF section table")
    return _Header(shoff, shnum, shstrndx)


def _section_headers(obj: bytes, h: _Header) -> list:
    secs = [_SHDR.unpack_from(obj, h.shoff + i * _SHDR.size) for i in range(h.shnum)]
    for s in secs:
        if s[1] != SHT_NOBITS and s[4] + s[5] > len(obj):
            raise LoadError("an ELF section lies outside the file")
    return secs


def _cstr(obj: bytes, table, off: int) -> str:
    """The NUL-terminated string at `off` in string table section `table`."""
    start = table[4] + off
    end = obj.find(b"\0", start, table[4] + table[5])
    if end < 0:
        raise LoadError("bad ELF string table")
    return obj[start:end].decode("utf-8", "replace")


def _loaded_sections(secs, names) -> dict:
    """Which sections to map, and in which segment: text (r-x), read-only data (r--), data (rw-)."""
    load = {}
    for i, (s, name) in enumerate(zip(secs, names)):
        flags, size = s[2], s[5]
        if s[1] in SHT_INIT or flags & SHF_TLS:
            raise LoadError(f"section {name} (constructors or thread-locals) is unsupported")
        if flags & SHF_ALLOC and size and not name.startswith(SKIP):
            load[i] = TEXT if flags & SHF_EXEC else DATA if flags & SHF_WRITE else RODATA
    return load


def _symbols(obj: bytes, secs) -> tuple[int, list, list]:
    """(index of the one symbol table, its symbols, their names)."""
    symtabs = [i for i, s in enumerate(secs) if s[1] == SHT_SYMTAB]
    if len(symtabs) != 1:
        raise LoadError("the object needs exactly one symbol table")
    st = secs[symtabs[0]]
    if st[6] >= len(secs) or secs[st[6]][1] != SHT_STRTAB:
        raise LoadError("bad ELF symbol string table")
    sstr = secs[st[6]]
    syms = [_SYM.unpack_from(obj, st[4] + k * _SYM.size) for k in range(st[5] // _SYM.size)]
    names = [_cstr(obj, sstr, s[0]) for s in syms]
    for (_, _, _, shndx, value, size), name in zip(syms, names):
        # a defined symbol lies inside its section: its address is the section's plus `value`
        if SHN_UNDEF < shndx < SHN_LORESERVE and (
                shndx >= len(secs) or value + size > secs[shndx][5]):
            raise LoadError(f"symbol {name!r} lies outside its section")
    return symtabs[0], syms, names


def _relocations(obj: bytes, secs, load, symtab: int) -> list:
    """The RELA entries of every mapped section (those of unwind tables or debug info are
    dropped with their sections)."""
    relocs = []
    for s in secs:
        if s[1] == SHT_REL:
            raise LoadError("REL relocations are unsupported (x86-64 objects use RELA)")
        if s[1] != SHT_RELA or s[7] not in load:
            continue
        if s[6] != symtab:
            raise LoadError("relocations against a second symbol table")
        relocs.append((s[7], [(o, info & 0xFFFFFFFF, info >> 32, a)
                              for o, info, a in _RELA.iter_unpack(obj[s[4]:s[4] + s[5]])]))
    return relocs


def _indirections(relocs, syms) -> tuple[dict, dict]:
    """Jump stubs for 32-bit calls to undefined symbols (a library may be beyond ±2 GiB) and GOT
    slots for GOT-relative references: symbol index -> slot index, in order of first use."""
    stubs, got = {}, {}
    for _, rs in relocs:
        for _, rtype, k, _ in rs:
            if k >= len(syms):
                raise LoadError("relocation against a missing symbol")
            if rtype in (R_PC32, R_PLT32) and syms[k][3] == SHN_UNDEF:
                stubs.setdefault(k, len(stubs))
            elif rtype in GOT_TYPES:
                got.setdefault(k, len(got))
    return stubs, got
