"""Forged CPU objects: a well-formed ELF object of the kind the CPU engine caches, with one field
made to point outside what it describes (a symbol past its section, a function's symbol in
data, a data word in code, a string table that holds no strings, a relocation past its
section). The loader must refuse each one (LoadError) before any of it runs; in the cache, the
kernel is then compiled again. Used by table_runtime.py and tests/cache.

    obj, symbols = sample_object()          # compiled once per process
    bad = forge(obj, "symbol-past-section")  # bytes; objload.ElfImage(bad) raises LoadError
    apply(ctx, "function-as-data")          # the same on a cache_faults context's kernel entry
"""
from __future__ import annotations

import functools
import json
import struct

from tack import cache
from tack.toolchain import elf

FAULTS = ("symbol-past-section", "symbol-size-past-section", "symbol-absolute",
          "function-as-data", "data-word-in-code", "symbol-strtab-not-strings",
          "section-names-not-strings", "relocation-past-section")

_IR = """
@tack_sigints_tack_s = global ptr null, align 8
@table = internal constant [4 x i64] [i64 1, i64 2, i64 3, i64 4]

define void @tack_s(i64 %b, i64 %e, ptr %args) nounwind {
entry:
  %p = load ptr, ptr @tack_sigints_tack_s, align 8
  %j = and i64 %b, 3
  %q = getelementptr inbounds [4 x i64], ptr @table, i64 0, i64 %j
  %v = load i64, ptr %q, align 8
  store i64 %v, ptr %args, align 8
  ret void
}
"""
_SYMBOLS = ("tack_s", "tack_sigints_tack_s")  # a function, a data word


@functools.cache
def sample_object() -> tuple[bytes, tuple[str, ...]]:
    """An object with a function, an 8-byte data word the engine would write, a constant
    table and relocations; and the symbols the engine would look up."""
    from tack.toolchain import llvm_host

    return llvm_host.compile_object(_IR), _SYMBOLS


def _symtab(obj: bytes, parsed: elf.ElfObject) -> int:
    return next(s[4] for s in parsed.secs if s[1] == elf.SHT_SYMTAB)


def forge(obj: bytes, fault: str, symbols=_SYMBOLS) -> bytes:
    """`obj` with `fault` applied; `symbols`: its entry (a function), then a data word of the
    engine's."""
    p = elf.parse(obj)
    b = bytearray(obj)
    at = _symtab(obj, p)

    def sym(name: str) -> int:
        return at + p.sym_names.index(name) * 24  # Elf64_Sym: name, info, other, shndx, ...

    entry = symbols[0]
    word = symbols[1]
    text = p.syms[p.sym_names.index(entry)][3]
    data = p.syms[p.sym_names.index(word)][3]
    if fault == "symbol-past-section":
        struct.pack_into("<Q", b, sym(entry) + 8, p.secs[text][5] + 0x100)
    elif fault == "symbol-size-past-section":
        struct.pack_into("<Q", b, sym(entry) + 16, p.secs[text][5] + 1)
    elif fault == "symbol-absolute":
        struct.pack_into("<HQ", b, sym(entry) + 6, elf.SHN_ABS, 0x1000)
    elif fault == "function-as-data":
        struct.pack_into("<HQ", b, sym(entry) + 6, data, 0)
    elif fault == "data-word-in-code":
        struct.pack_into("<HQ", b, sym(word) + 6, text, 0)
    elif fault in ("symbol-strtab-not-strings", "section-names-not-strings"):
        shoff, shstrndx = struct.unpack_from("<Q", obj, 0x28)[0], struct.unpack_from(
            "<H", obj, 0x3E)[0]
        if fault == "section-names-not-strings":
            struct.pack_into("<H", b, 0x3E, text)
        else:
            k = next(i for i, s in enumerate(p.secs) if s[1] == elf.SHT_SYMTAB)
            struct.pack_into("<I", b, shoff + k * 64 + 40, text)  # sh_link
        assert shstrndx != text
    elif fault == "relocation-past-section":
        target, _rels = p.relocs[0]
        k = next(i for i, s in enumerate(p.secs) if s[1] == elf.SHT_RELA and s[7] == target)
        struct.pack_into("<Q", b, p.secs[k][4], p.secs[target][5] + 0x10)
    else:
        raise ValueError(f"unknown object fault {fault!r}")
    return bytes(b)


def apply(ctx: dict, fault: str) -> None:
    """Forge the cached kernel object of a cache_faults context (`prepare("kernel")`): a
    checksum-valid entry under its own key."""
    data, meta = cache.decode(ctx["kind"], ctx["key"], ctx["good"])
    meta = json.loads(meta)
    syms = meta["symbols"]
    forged = forge(data, fault, (syms[0], next(n for n in syms if n.startswith("tack_sigints_"))))
    with open(ctx["path"], "wb") as f:
        f.write(cache.encode(ctx["kind"], ctx["key"], forged, meta))
