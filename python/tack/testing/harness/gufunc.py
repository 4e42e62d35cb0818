"""NumPy generalized-ufunc signatures: which dimensions a subject's operands have.

`"(m,n),(n)->(m)"` names every core dimension of every operand; a literal (`"(m,3)->(m)"`) is a
fixed extent. The harness chooses a value for each name (see `tiers`) and derives every operand's
shape from this description. NumPy's own grammar is at
https://numpy.org/doc/stable/reference/c-api/generalized-ufuncs.html; the flexible (`?`) and
broadcastable (`|1`) modifiers are not supported.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import TackValueError

_OPERAND = re.compile(r"\(([^()]*)\)")
_NAME = re.compile(r"[A-Za-z_]\w*\Z")

Dim = str | int  # a dimension name, or a literal extent


@dataclass(frozen=True)
class Signature:
    """Core dimensions of the inputs and outputs, in the order written."""

    text: str
    inputs: tuple[tuple[Dim, ...], ...]
    outputs: tuple[tuple[Dim, ...], ...]

    @property
    def names(self) -> tuple[str, ...]:
        """The dimension names, in order of first appearance."""
        seen: dict[str, None] = {}
        for op in self.inputs + self.outputs:
            for d in op:
                if isinstance(d, str):
                    seen.setdefault(d)
        return tuple(seen)

    def shapes(self, dims: tuple[int, ...]) -> tuple[list[tuple], list[tuple]]:
        """(input shapes, output shapes) when the names take the values `dims`, in order."""
        value = dict(zip(self.names, dims))

        def one(op):
            return tuple(d if isinstance(d, int) else value[d] for d in op)

        return [one(op) for op in self.inputs], [one(op) for op in self.outputs]

    def max_input_rank(self) -> int:
        return max((len(op) for op in self.inputs), default=0)


def _operands(side: str, text: str) -> tuple[tuple[Dim, ...], ...]:
    side = side.strip()
    found = _OPERAND.findall(side)
    if _OPERAND.sub("", side).replace(",", "").strip() or not found:
        raise TackValueError(f"Bad gufunc signature {text!r}: each side is a comma-separated list "
                             "of parenthesized dimension lists, e.g. '(m,n),(n)->(m)'")
    ops = []
    for body in found:
        dims: list[Dim] = []
        for part in (p.strip() for p in body.split(",")) if body.strip() else ():
            if part.isdigit():
                dims.append(int(part))
            elif _NAME.match(part):
                dims.append(part)
            else:
                raise TackValueError(f"Bad dimension {part!r} in gufunc signature {text!r}: a "
                                     "dimension is a name or an integer literal")
        ops.append(tuple(dims))
    return tuple(ops)


def parse(text: str) -> Signature:
    """Parse `"(m,n),(n)->(m)"`; every output dimension name must appear in an input."""
    if isinstance(text, Signature):
        return text
    if not isinstance(text, str) or text.count("->") != 1:
        raise TackValueError(f"Bad gufunc signature {text!r}: write inputs -> outputs, e.g. "
                             "'(n),(n)->(n)'")
    left, right = text.split("->")
    sig = Signature(text, _operands(left, text), _operands(right, text))
    known = {d for op in sig.inputs for d in op if isinstance(d, str)}
    for op in sig.outputs:
        for d in op:
            if isinstance(d, str) and d not in known:
                raise TackValueError(f"Output dimension {d!r} of gufunc signature {text!r} "
                                     "appears in no input, so no input shape can give it")
    return sig
