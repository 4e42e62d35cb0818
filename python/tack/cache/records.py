"""Records: small plain-data payloads (lines of tokens) that engines and kernels keep beside code.

A record is a list of lines, each a field name followed by its tokens: `param x array f32 1 - 0`.
A token is any non-empty text without whitespace (names of parameters, dtypes, hex keys,
integers). It replaces JSON on the cached first call, where importing `json` costs more than
reading the entry (~3 ms on a small VM: its decoder compiles regular expressions at import), and
it is read by splitting text, never evaluated or unpickled. `loads` gives None for anything that
is not such text; the caller then checks each field's meaning and treats a bad record as absent.
"""
from __future__ import annotations

MAGIC = "tack-record/1"


def dumps(lines) -> bytes:
    """The payload of a record: `lines` is a list of (field, tokens...) sequences; a token is
    a str, an int or a bool (written 0/1), None (written `-`). ValueError for a token that
    would not read back as one token."""
    out = [MAGIC]
    for line in lines:
        toks = [_token(t) for t in line]
        out.append(" ".join(toks))
    return ("\n".join(out) + "\n").encode("utf-8")


def _token(t) -> str:
    if t is None:
        return "-"
    if t is True or t is False:
        return "1" if t else "0"
    if type(t) is int:
        return str(t)
    if type(t) is not str or not t or t == "-" or t.split() != [t]:
        raise ValueError(f"a record token must be a non-empty word, got {t!r}")
    return t


def loads(data: bytes) -> list[list[str]] | None:
    """The lines of a record payload as lists of tokens (the field name first); None if the
    payload is not a record of this format."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = text.split("\n")
    if lines[0] != MAGIC or lines[-1] != "":
        return None
    out = []
    for line in lines[1:-1]:
        toks = line.split(" ")
        if not toks[0] or any(t != t.strip() or not t for t in toks):
            return None
        out.append(toks)
    return out


def fields(lines: list[list[str]]) -> dict[str, list[list[str]]]:
    """The record's lines grouped by field name: name -> [tokens of each line, without it]."""
    out: dict[str, list[list[str]]] = {}
    for toks in lines:
        out.setdefault(toks[0], []).append(toks[1:])
    return out


def integer(tok: str) -> int:
    """An integer token (ValueError otherwise: `int` alone would take '1_0' or ' 1')."""
    if not (tok.isascii() and tok.lstrip("-").isdigit()):
        raise ValueError(f"not an integer token: {tok!r}")
    return int(tok)


def optional_integer(tok: str) -> int | None:
    return None if tok == "-" else integer(tok)


def flag(tok: str) -> bool:
    if tok not in ("0", "1"):
        raise ValueError(f"not a 0/1 token: {tok!r}")
    return tok == "1"
