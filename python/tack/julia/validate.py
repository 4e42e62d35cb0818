"""`python -m tack.julia validate FILE...`: what can be checked in a generated Julia kernel file
without a Julia, on its tree-sitter-julia parse.

* it parses;
* it names nothing outside Base, KernelAbstractions and TackRuntime: `using`/`import` only of
  those, module-qualified names only of those, macros only KernelAbstractions' and Base's, and
  every function it calls defined in the file, exported by TackRuntime
  (julia/src/TackRuntime.jl), exported by KernelAbstractions or one of the Base functions the
  renderer and the bridges use (`BASE`);
* every literal inside a `@kernel` function is typed (a Float32 literal `0.5f0`, the argument of
  a type constructor `Int32(3)`, or an index: the rules of docs/design/003-julia-rendering.md);
* a kernel whose signature has no Float64 mentions none (`Float64`, `Inf64`, `NaN64`);
* a file of a tack.ops op (`tack.julia.OPS`) defines its bridge functions and is exactly what
  `python -m tack.julia render` writes; another file defines its alias `tack_<name>`.

Each finding is printed as `file:line:col: message`; the exit status is 1 when there is any.
"""
from __future__ import annotations

import re
import sys
from importlib import resources
from pathlib import Path

from ..render.julia.ka import JL_TYPES

ALLOWED_MODULES = {"KernelAbstractions", "TackRuntime", "Base", "Core"}
# KernelAbstractions' exports and the names Tack's kernels use from it:
# https://github.com/JuliaGPU/KernelAbstractions.jl/blob/main/src/KernelAbstractions.jl
KA_NAMES = {"CPU", "GPU", "Backend", "synchronize", "get_backend", "allocate", "zeros", "ones",
            "Extras", "instantiate"}
KA_MACROS = {"@kernel", "@index", "@localmem", "@private", "@synchronize", "@uniform",
             "@groupsize", "@ndrange", "@print", "@Const", "@unroll"}
BASE_MACROS = {"@__DIR__", "@__MODULE__", "@inline", "@static", "@assert"}
TYPES = set(JL_TYPES.values()) | {"Int", "Dict", "Tuple", "Symbol", "DataType", "Any",
                                  "ArgumentError", "DimensionMismatch", "Union", "Nothing"}
BASE = {  # Base functions the renderer (render/julia/ka.py) and the bridges call
    "abs", "atan", "ceil", "cld", "copysign", "cosh", "div", "eltype", "exp", "exp2", "fill!",
    "first", "floor", "haskey", "ifelse", "include", "inv", "isdefined", "isnan", "joinpath",
    "length", "map", "max", "min", "ndims", "one", "prod", "rem", "sinh", "size", "sqrt",
    "tanh", "throw", "trunc", "typemax", "typemin", "typeof", "unsafe_trunc", "vec", "xor",
    "zero", "copyto!", "similar", "reshape", "fld", "mod", "sign", "signbit", "isinf",
    "isfinite", "iszero", "round", "log", "sin", "cos", "tan", "asin", "acos", "muladd", "fma",
    "reinterpret", "Val", "join", "keys", "sort!", "string", "unique!",
}
FLOAT64_WORDS = re.compile(r"\b(Float64|Inf64|NaN64)\b")


def _nodes(node):
    yield node
    for c in node.children:
        yield from _nodes(c)


def _where(node) -> str:
    r, c = node.start_point
    return f"{r + 1}:{c + 1}"


def runtime_exports() -> set[str]:
    """The names julia/src/TackRuntime.jl (shipped as tack/jl/TackRuntime.jl) exports or
    defines: what `using .TackRuntime` and `TackRuntime.x` may reach."""
    text = resources.files("tack").joinpath("jl", "TackRuntime.jl").read_text()
    names = set(re.findall(r"^(?:@inline )?(?:function )?(tk_\w+!?|launch!|instantiate|"
                           r"host_vector)\b", text, re.MULTILINE))
    for block in re.findall(r"^export ([^\n]+(?:\n    [^\n]+)*)", text, re.MULTILINE):
        names |= {n.strip() for n in block.replace("\n", " ").split(",") if n.strip()}
    return names


def parser():
    # tree-sitter is a test dependency, imported here so that `import tack.julia` stays light
    import tree_sitter
    import tree_sitter_julia

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_julia.language()))


# -- the checks, each returning (node or None, message) pairs ----------------------------------

def _parse(root):
    return [(n, f"does not parse: {n.text[:50].decode(errors='replace')!r}") for n in _nodes(root)
            if n.type == "ERROR" or n.is_missing]


def _defined(root) -> set[str]:
    """Functions, constants and type parameters the file defines itself."""
    out = set()
    for n in _nodes(root):
        call = None
        if n.type == "signature":
            call = next((c for c in _nodes(n) if c.type == "call_expression"), None)
        elif n.type == "assignment" and n.children[0].type in ("call_expression",
                                                                "where_expression"):
            call = next(c for c in _nodes(n.children[0]) if c.type == "call_expression")
        if call is not None and call.children[0].type == "identifier":
            out.add(call.children[0].text.decode())
        if n.type == "const_statement":
            out |= {c.children[0].text.decode() for c in n.children if c.type == "assignment"}
        if n.type == "where_expression":
            out |= {i.text.decode() for c in n.children[1:] for i in _nodes(c)
                    if i.type == "identifier"}
    return out


INCLUDE = re.compile(r'^isdefined\(@__MODULE__, :\w+\) \|\| '
                     r'include\(joinpath\(@__DIR__, "(\w+)\.jl"\)\)$', re.MULTILINE)


def _included(path: Path, text: str, jl_parser, seen=None) -> set[str]:
    """What the sibling kernel files that `text` includes define (an op file building on
    another's kernels: log_softmax.jl on softmax.jl)."""
    seen = set() if seen is None else seen
    out = set()
    for name in INCLUDE.findall(text):
        sib = path.parent / f"{name}.jl"
        if sib in seen or not sib.is_file():
            continue
        seen.add(sib)
        t = sib.read_text()
        out |= _defined(jl_parser.parse(t.encode()).root_node) | _included(sib, t, jl_parser, seen)
    return out


def _references(root, defined: set[str]):
    runtime = runtime_exports()
    bad = []
    for n in _nodes(root):
        if n.type in ("using_statement", "import_statement"):
            for name in (c for c in n.named_children):
                text = name.text.decode().lstrip(".")
                if text not in ("KernelAbstractions", "TackRuntime"):
                    bad.append((n, f"loads {text}: only KernelAbstractions and TackRuntime"))
        elif n.type == "field_expression" and n.children[0].type == "identifier":
            mod, attr = n.children[0].text.decode(), n.children[-1].text.decode()
            if not mod[:1].isupper():
                continue  # a value's field, not a module
            if mod not in ALLOWED_MODULES:
                bad.append((n, f"refers to module {mod}: only {sorted(ALLOWED_MODULES)}"))
            elif mod == "TackRuntime" and attr not in runtime:
                bad.append((n, f"TackRuntime has no {attr}"))
            elif mod == "KernelAbstractions" and attr not in KA_NAMES:
                bad.append((n, f"KernelAbstractions.{attr} is not one of the names Tack uses"))
        elif n.type == "macro_identifier":
            if n.text.decode() not in KA_MACROS | BASE_MACROS:
                bad.append((n, (f"macro {n.text.decode()} is neither KernelAbstractions' "
                               "nor Base's")))
        elif n.type == "call_expression" and n.children[0].type == "identifier":
            name = n.children[0].text.decode()
            if name not in defined | runtime | KA_NAMES | BASE | TYPES:
                bad.append((n, (f"calls {name}, which is not Base, KernelAbstractions, "
                               f"TackRuntime or defined in the file")))
    return bad


def _kernels(root):
    """The `@kernel function` nodes of the file."""
    for n in _nodes(root):
        if n.type == "macrocall_expression" and n.children[0].text == b"@kernel":
            yield n


def _up(node):
    p = node.parent
    while p is not None and p.type == "unary_expression":
        p = p.parent
    return p


def _is_index_literal(n) -> bool:
    """An Int literal where Julia wants an index or a size: `a[3]`, the `1` of `a[i + 1]`, the
    index argument of `tk_atomic_*!(a, 3, v)`, the dims of `@private`/`@localmem`, the count of
    `@unroll N`, the N of `tk_private(T, Val(N))`, the 256 of `tk_workgroupsize(...) = 256`."""
    lit, p = n.text.decode(), n.parent
    if p.type == "vector_expression" and p.parent.type == "index_expression":
        return True
    if lit == "1" and p.type == "binary_expression":
        if p.parent.type == "vector_expression" and p.parent.parent.type == "index_expression":
            return True
        n, p = p, p.parent
    if p.type == "argument_list" and p.parent.children[0].text.startswith(b"tk_atomic_") and \
            [c.id for c in p.named_children].index(n.id) == 1:
        return True
    if p.type == "tuple_expression" and p.parent.type == "macro_argument_list" and \
            p.parent.parent.children[0].text in (b"@private", b"@localmem"):
        return True
    if p.type == "macro_argument_list" and p.named_children[0].id == n.id and any(
            c.type == "macro_identifier" and c.text == b"@unroll" for c in p.parent.children):
        return True  # `@unroll N` wants a literal Integer (`N isa Integer` when it expands)
    args = _up(n)
    if args is not None and args.type == "argument_list" and args.parent.type == \
            "call_expression" and args.parent.children[0].text == b"Val":
        return True  # the length of TackRuntime.tk_private's MVector: a type parameter
    return p.type == "assignment" and b"tk_workgroupsize" in p.children[0].text


def untyped_literals(node) -> list:
    """The literals under a tree-sitter node that Julia would type by default (Int64, Float64)
    where Tack's rendering must type them (docs/design/003-julia-rendering.md): typed are a
    Float32 literal (`0.5f0`), the argument of a type constructor (`Int32(3)`, `Float64(0.1)`)
    and an index or size (`_is_index_literal`). tests/julia check rendered kernels with it."""
    bad = []
    for n in _nodes(node):
        if n.type not in ("integer_literal", "float_literal"):
            continue
        lit = n.text.decode()
        if n.type == "float_literal" and "f" in lit and not lit.startswith("0x"):
            continue
        args = _up(n)
        if args is not None and args.type == "argument_list" and \
                args.parent.children[0].text.decode() in JL_TYPES.values():
            continue
        if n.type == "integer_literal" and _is_index_literal(n):
            continue
        bad.append(n)
    return bad


def _literals(root):
    return [(n, (f"untyped literal {n.text.decode()} in a kernel (Julia would make it "
                 f"{'Float64' if n.type == 'float_literal' else 'Int64'})"))
            for k in _kernels(root) for n in untyped_literals(k)]


def _float64(root):
    bad = []
    for k in _kernels(root):
        sig = next((n for n in _nodes(k) if n.type == "signature"), None)
        if sig is None or FLOAT64_WORDS.search(sig.text.decode()):
            continue
        for n in _nodes(k):
            if n.child_count == 0 and FLOAT64_WORDS.fullmatch(n.text.decode()):
                bad.append((n, f"{n.text.decode()} in a kernel whose arguments are Float32"))
    return bad


def _file_level(path: Path, defined: set[str], text: str):
    from .ops_table import OPS  # the op table loads tack.ops: only for op files' checks
    from .render_ops import render_file

    stem = path.stem
    if stem not in OPS:
        if not re.search(rf"^const tack_{re.escape(stem)} = ", text, re.MULTILINE):
            return [(None, f"defines no alias tack_{stem}")]
        return []
    bad = [(None, f"defines no bridge function {b}") for b in OPS[stem].bridges
           if b not in defined]
    want = render_file(stem)
    if text != want:
        line = next((i for i, (a, b) in enumerate(zip(text.splitlines(), want.splitlines()), 1)
                     if a != b), min(text.count("\n"), want.count("\n")) + 1)
        bad.append((None, f"differs from `python -m tack.julia render` from line {line}"))
    return bad


def findings(path: Path, text: str, jl_parser) -> list[str]:
    """Every finding of one file, as `path:line:col: message`."""
    root = jl_parser.parse(text.encode()).root_node
    found = _parse(root)
    if not found:  # the other checks read a tree without errors
        defined = _defined(root) | _included(path, text, jl_parser)
        found = _references(root, defined) + _literals(root) + _float64(root)
        found += _file_level(path, defined, text)
    return [f"{path}:{_where(n) if n is not None else '1:1'}: {msg}" for n, msg in found]


def main(files) -> int:
    try:
        jl_parser = parser()
    except ImportError as exc:
        print(f"tack.julia validate needs tree-sitter and tree-sitter-julia ({exc}): "
              f"pip install '.[test]' in a clone of Tack", file=sys.stderr)
        return 2
    total = 0
    for path in map(Path, files):
        try:
            text = path.read_text()
        except OSError as exc:
            print(f"{path}: cannot read: {exc}")
            total += 1
            continue
        for line in findings(path, text, jl_parser):
            print(line)
            total += 1
    print(f"tack.julia validate: {len(files)} files, {total} findings", file=sys.stderr)
    return 1 if total else 0
