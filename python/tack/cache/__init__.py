"""The disk cache: compiled kernels kept between processes (docs/design/005-disk-cache.md).

    key = cache.make_key("cpu", llvm_ir, target, versions)   # BLAKE2b-256, hex
    entry = cache.load("cpu", key)                          # Entry(data, meta) or None
    cache.store("cpu", key, object_code, {"symbols": [...]})  # atomic; False if not written

Engines decide what goes into a key and what the payload is (the CPU engine: the kernel's final
IR by value (`digest_object`), Tack's own code (`package_fingerprint`), the target and compiler
versions → an ELF object; a GPU engine can store PTX/CUBIN the same way under its own kind).
This package only keeps bytes safely:

- where: `TACK_CACHE_DIR`, else `$XDG_CACHE_HOME/tack`, else `~/.cache/tack`; one subdirectory
  per kind, one file per entry (`<kind>/<key>.bin`).
- `TACK_CACHE`: unset/`auto` reads and writes (but only reads inside an MPI job of several
  ranks), `on` reads and writes, `read` only reads, `off` disables the cache. Read at each lookup.
- an entry is a fixed binary header (lengths and a BLAKE2b checksum of the rest), the kind, the
  key, a JSON meta object and the payload, and must name the kind and key it was looked up by: a
  truncated, corrupted or foreign file is ignored (and replaced by the next store). Nothing is
  unpickled.
- writes go to a private temporary file in the same directory, then `os.replace`: readers see
  the old entry or the new one, never a partial one, whatever other processes do.
- a directory owned by another user or writable by group/others (an entry is code that will run)
  is refused with a warning; compiling then proceeds without the cache.
- bounded: over `TACK_CACHE_SIZE` (default 512M) a store deletes the least recently used entries
  down to 3/4 of it. `python -m tack.cache --info | --clear | --prune` inspects or empties it.

The parts: `config` (environment, directory, size limit, on/off), `keys` (`make_key`,
`digest_object`, `package_fingerprint`), `entry` (the file format), `storage` (lookup, atomic
write, pruning) and `__main__` (the command line). Callers use the names re-exported here; a
test that patches a module-level name patches it where it is read (e.g. `cache.config._warned`).
"""
from __future__ import annotations

from .config import DEFAULT_SIZE, default_directory, directory, enabled, max_size, mode
from .entry import FORMAT, MAGIC, SUFFIX, Entry, decode, encode
from .keys import code_fingerprint, digest_object, make_key, package_digest, package_fingerprint
from .storage import clear, info, load, prune, stats, store

__all__ = [
    "DEFAULT_SIZE",
    "FORMAT",
    "MAGIC",
    "SUFFIX",
    "Entry",
    "clear",
    "code_fingerprint",
    "decode",
    "default_directory",
    "digest_object",
    "directory",
    "enabled",
    "encode",
    "info",
    "load",
    "make_key",
    "max_size",
    "mode",
    "package_digest",
    "package_fingerprint",
    "prune",
    "stats",
    "store",
]
