"""Python AST → untyped IR: the parser of kernels and of the device functions they inline.

One visitor, split by concern into mixins over the same state; `Parser` puts them together:
- `base`: the state, error helpers, and the dispatch of each `ast` node to its visitor;
- `structure`: the kernel's shape (signature, prologue, parallel loop forms, return value);
- `statements`: one `visit_X` per supported statement;
- `names`: what a name or attribute denotes (parameters, locals, globals, closure, builtins,
  `math`, tack dtypes and constants, device-class attributes);
- `expressions`: literals, operators, comparisons, subscripts;
- `calls`: builtins, intrinsics, `print`, and inlined `@tack.func` calls;
- `order`: left-to-right evaluation of operands beside side effects;
- `seqloops`: sequential `tack.ndrange` and `for c in obj` loops inside the parallel loop.
Everything else is rejected where it appears.
"""
from __future__ import annotations

from .base import InternalCompilerError, ParserBase
from .calls import Calls
from .expressions import Expressions
from .mbarriers import MbarrierCalls
from .names import Names
from .order import Ordering
from .seqloops import SequentialLoops
from .statements import Statements
from .structure import KernelStructure


class Parser(KernelStructure, Statements, SequentialLoops, Calls, MbarrierCalls, Expressions,
             Names, Ordering, ParserBase):
    """Builds untyped IR for one kernel body (`parse_kernel`), or for one inlined device
    function (then `root` is the kernel's parser, which holds the state the whole kernel
    shares)."""


__all__ = ["InternalCompilerError", "Parser"]
