"""The one line of Python that runs a failing case alone.

A subject or reference defined at module level in a file is written as `'path.py::name'`, which
`tack.testing.test` loads itself, so the line runs anywhere on the same machine; a lambda is
written as its own source; anything else by its Python name, which the caller must have bound.
"""
from __future__ import annotations

import ast
import inspect
import os
import sys

from .subjects import is_kernel


def located(obj) -> tuple[str | None, str | None]:
    """(module name, qualified name) of a function or kernel."""
    fn = obj.fn if is_kernel(obj) and hasattr(obj, "fn") else obj
    return getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)


def _path(file: str) -> str:
    rel = os.path.relpath(file)
    return file if rel.startswith("..") else rel


def _lambda_source(fn) -> str | None:
    """The text of a lambda, found in its source line by compiling candidates."""
    try:
        lines, _ = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    text = " ".join(line.strip() for line in lines)
    start = text.find("lambda")
    while start >= 0:
        for end in range(len(text), start, -1):
            piece = text[start:end]
            try:
                tree = ast.parse(piece, mode="eval")
            except SyntaxError:
                continue
            if isinstance(tree.body, ast.Lambda) and _same_code(piece, fn):
                return piece  # the longest piece that is this lambda
        start = text.find("lambda", start + 1)
    return None


def _shape_of(code) -> tuple:
    # Not co_code: the interpreter may have specialized a running function's bytecode.
    consts = tuple(c for c in code.co_consts if not hasattr(c, "co_code"))
    return code.co_argcount, code.co_varnames, code.co_names, consts


def _same_code(piece: str, fn) -> bool:
    """Whether `piece` compiles to a lambda like `fn` (telling apart lambdas on one line)."""
    try:
        code = compile(piece, "<repro>", "eval").co_consts[0]
    except (SyntaxError, IndexError):
        return False
    return hasattr(code, "co_code") and _shape_of(code) == _shape_of(fn.__code__)


def spell(obj, role: str = "subject") -> str:
    """How `obj` appears in a repro line; `role` names what cannot be spelled otherwise."""
    if isinstance(obj, str):
        return repr(obj)
    module, qualname = located(obj)
    mod = sys.modules.get(module or "")
    file = getattr(mod, "__file__", None)
    if file and qualname and "<" not in qualname:
        target = mod
        for part in qualname.split("."):
            target = getattr(target, part, None)
        if target is obj:
            return repr(f"{_path(file)}::{qualname}")
    if getattr(obj, "__name__", None) == "<lambda>":
        src = _lambda_source(obj)
        if src:
            return src
    return qualname if qualname and "<" not in qualname else role


def line(subject: str, reference: str, signature: str, shape: str, dtype: str, seed: int,
         options: dict) -> str:
    """`tack.testing.test(...)` for one case: `subject` and `reference` as `spell` wrote them,
    `options` the keywords that differ from their defaults."""
    args = [subject, f"reference={reference}", f"signature={signature!r}",
            f"shape={shape!r}", f"dtypes=({dtype!r},)", f"seed={seed}"]
    args += [f"{k}={v!r}" for k, v in options.items()]
    return f"tack.testing.test({', '.join(args)})"
