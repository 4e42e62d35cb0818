"""Deeply nested kernels: how deep a function's source nests, and compiling deep ones.

The parser, the type checker, the passes and the renderers recurse once (a few Python frames)
per level of nesting, so a 10,000-term sum `a + b + ... ` needs some 40,000 frames, far past
Python's default recursion limit of 1,000. Rather than fail, a compile step of a kernel nested
deeper than `DEEP` runs on a thread of its own with a stack and a recursion limit sized to the
depth (`on_deep_stack`); nesting deeper than `MAX_DEPTH` is refused up front with an
UnsupportedSyntaxError at the deepest node (docs/language.md, "Known corner cases"). Python
itself needs a raised limit (`sys.setrecursionlimit`) to compile a module that deep.
"""
from __future__ import annotations

import ast
import sys
import threading

from ..errors import UnsupportedSyntaxError

DEEP = 120  # nesting beyond which a compile step runs on a deep stack
MAX_DEPTH = 20_000  # nesting beyond this is refused
_FRAMES_PER_LEVEL = 8  # Python frames per level, at most (about 5 measured), with a margin
_STACK_PER_LEVEL = 16 << 10  # bytes of C stack per level (under 10 KiB measured)
_STACK_BASE = 16 << 20

# Nested inlined @tack.func calls (`f` calling `g` calling `h` ...) recurse through the parser,
# 10 to 30 Python frames per call beside each function's own nesting, however shallow each body
# is, and no source shows how long such a chain is. So an inlined call checks how many frames
# its thread has used: past its thread's budget, the parse goes on on a fresh stack
# (`inline_on_fresh_stack`), whose recursion count starts from zero: a chain of any length parses.
_MAIN_FRAMES = 600  # a thread not started here: under Python's default limit of 1,000
_HOP_FRAMES = 3000  # a thread started by inline_on_fresh_stack
_thread_budget = threading.local()

_lock = threading.Lock()  # threading.stack_size and the recursion limit are process-wide
_raised = [0, 0]  # [deep compiles running, the limit they found]
_deepest_func = [0]  # the deepest @tack.func body so far: inlining nests it into kernels


def nesting(tree: ast.AST) -> tuple[int, ast.AST]:
    """(the greatest depth of `tree`'s nodes below it, the deepest node), without recursing."""
    best, deepest = 0, tree
    stack = [(tree, 0)]
    while stack:
        node, d = stack.pop()
        if d > best and hasattr(node, "lineno"):  # operators and contexts have no position
            best, deepest = d, node
        stack.extend((c, d + 1) for c in ast.iter_child_nodes(node))
    return best, deepest


def note_func(depth: int) -> None:
    """A @tack.func of this depth exists: a kernel that inlines it nests that much deeper."""
    _deepest_func[0] = max(_deepest_func[0], depth)


def kernel_depth(depth: int) -> int:
    """A kernel's effective depth: its own and, at most, the deepest device function's."""
    return depth + _deepest_func[0]


def inline_on_fresh_stack(fn, *args):
    """`fn(*args)` (an inlined call's parse), on a fresh deep stack when this thread has used
    its budget of frames, else directly."""
    budget = getattr(_thread_budget, "frames", _MAIN_FRAMES)
    frame, used = sys._getframe(), 0
    while frame is not None and used <= budget:
        frame, used = frame.f_back, used + 1
    if used <= budget:
        return fn(*args)

    def hop():
        _thread_budget.frames = _HOP_FRAMES
        return fn(*args)

    # room for the budget and for one more function's own nesting past it
    levels = (_HOP_FRAMES + 400) // _FRAMES_PER_LEVEL + _deepest_func[0]
    return on_deep_stack(max(DEEP + 1, levels), hop)


def statement_nesting(body) -> int:
    """How deeply a parsed body's statements nest, without recursing: inlining puts a device
    function's body inside its caller's statement (an early return adds an `if`), so a chain of
    calls nests the IR deeper than any one function's source."""
    best, stack = 0, [(body, 1)]
    while stack:
        block, d = stack.pop()
        best = max(best, d)
        for s in block:
            stack.extend((getattr(s, f), d + 1) for f in getattr(s, "BLOCKS", ()))
    return best


def check(source, depth: int, node: ast.AST, title: str) -> None:
    """Refuse a function nested deeper than MAX_DEPTH, at its deepest node."""
    if depth <= MAX_DEPTH:
        return
    loc = source.loc(node) if hasattr(node, "lineno") else None
    raise UnsupportedSyntaxError.at(
        loc, f"{title}: expression nested {depth} levels deep (the limit is {MAX_DEPTH})",
        "split it: assign partial results to locals (s = a + b; s = s + c ...)")


def on_deep_stack(depth: int, fn, *args):
    """`fn(*args)`, on a thread whose stack and recursion limit fit `depth` levels when it is
    deeper than DEEP (its result returned, its exception raised here), else directly."""
    if depth <= DEEP:
        return fn(*args)
    out: dict = {}

    def run():
        try:
            out["value"] = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread below
            out["error"] = exc

    worker = threading.Thread(target=run, name="tack-deep-compile", daemon=True)
    with _lock:
        if _raised[0] == 0:
            _raised[1] = sys.getrecursionlimit()
        _raised[0] += 1
        sys.setrecursionlimit(max(sys.getrecursionlimit(), _raised[1] + depth * _FRAMES_PER_LEVEL))
    try:
        with _lock:  # the size applies to threads started while it is set: this one
            old_size = threading.stack_size(min(_STACK_BASE + depth * _STACK_PER_LEVEL, 1 << 31))
            try:
                worker.start()
            finally:
                threading.stack_size(old_size)
        worker.join()
    finally:
        with _lock:
            _raised[0] -= 1
            if _raised[0] == 0:
                sys.setrecursionlimit(_raised[1])
    if "error" in out:
        raise out["error"]
    return out["value"]
