"""The entry file format: a fixed binary header, the kind, the key, a JSON meta object, the payload.

The header holds the lengths and a BLAKE2b checksum of everything after it, and an entry must name
the kind and key it was looked up by: a truncated, corrupted or foreign file decodes to None.
Nothing is unpickled.
"""
from __future__ import annotations

import os
import struct
import time

try:  # the builtin module: no OpenSSL to load on the first-call path
    from _blake2 import blake2b
except ImportError:  # pragma: no cover
    from hashlib import blake2b

FORMAT = 1  # of the entry file and of make_key's input; bump on any change to either
MAGIC = b"TACKCACH"
# magic, format, lengths of kind, key, meta JSON and payload, BLAKE2b of all that follows
_FIXED = struct.Struct("<8sIHHIQ32s")
SUFFIX = ".bin"


class Entry:
    """A verified cache entry: `data` (the payload bytes) and `meta` (the engine's JSON dict,
    parsed on first use: a lookup that needs only the payload never imports json)."""

    __slots__ = ("_meta", "_meta_json", "data", "path")

    def __init__(self, data: bytes, meta_json: bytes, path: str):
        self.data, self.path, self._meta_json, self._meta = data, path, meta_json, None

    @property
    def meta(self) -> dict:
        if self._meta is None:
            import json  # lazily: see the class docstring

            try:
                m = json.loads(self._meta_json)
            except ValueError:
                m = None
            self._meta = m if isinstance(m, dict) else {}
        return self._meta

    def __repr__(self) -> str:
        return f"<tack.cache.Entry {os.path.basename(self.path)} {len(self.data)} bytes>"


def encode(kind: str, key: str, data: bytes, meta: dict | None = None) -> bytes:
    """The bytes of an entry file: the fixed header, kind, key, meta (JSON), payload."""
    import json  # lazily: only a store (after a compile) writes meta

    head = (kind.encode() + key.encode() +
            json.dumps({"created": time.time(), **(meta or {})}, sort_keys=True).encode())
    fixed = [MAGIC, FORMAT, len(kind), len(key), len(head) - len(kind) - len(key), len(data)]
    return _FIXED.pack(*fixed, _digest(fixed[1:], head, data)) + head + data


def _digest(lengths, head, data) -> bytes:
    h = blake2b(digest_size=32, person=b"tack-cache-ent")
    h.update(struct.pack("<IHHIQ", *lengths))
    h.update(head)
    h.update(data)
    return h.digest()


HEADER_SIZE = _FIXED.size


def claimed_size(header: bytes) -> int | None:
    """The total file size the fixed header at the start of `header` claims, or None if it is
    not a header of this FORMAT: a lookup reads this much first and refuses a file of another
    size without reading its body (a huge forged file costs one small read)."""
    if len(header) < _FIXED.size:
        return None
    magic, fmt, klen, keylen, mlen, dlen, _ = _FIXED.unpack_from(header)
    if magic != MAGIC or fmt != FORMAT:
        return None
    return _FIXED.size + klen + keylen + mlen + dlen


def decode(kind: str, key: str, blob: bytes) -> tuple[bytes, bytes] | None:
    """(payload, meta JSON bytes) if `blob` is an intact entry of this kind and key, else None."""
    n = _FIXED.size
    if len(blob) < n:
        return None
    magic, fmt, klen, keylen, mlen, dlen, digest = _FIXED.unpack_from(blob)
    if magic != MAGIC or fmt != FORMAT or n + klen + keylen + mlen + dlen != len(blob):
        return None
    mv = memoryview(blob)
    end = n + klen + keylen + mlen
    if _digest((fmt, klen, keylen, mlen, dlen), mv[n:end], mv[end:]) != digest:
        return None
    if mv[n:n + klen] != kind.encode() or mv[n + klen:n + klen + keylen] != key.encode():
        return None
    return bytes(mv[end:]), bytes(mv[n + klen + keylen:end])
