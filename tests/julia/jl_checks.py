"""Checks of rendered KernelAbstractions source with tree-sitter-julia: it parses, its literals are
typed, its kernels keep the renderer's structure (one @index, allocations before the first
@synchronize, ...). Shared by the Julia rendering tests."""
import re

from tack.julia.validate import untyped_literals

LOOPS = {"for_statement", "while_statement"}


def _nodes(node):
    yield node
    for c in node.children:
        yield from _nodes(c)


def parse_problems(parser, text: str) -> list[str]:
    tree = parser.parse(text.encode())
    return [f"{n.type} at {n.start_point}: {n.text[:60]!r}" for n in _nodes(tree.root_node)
            if n.type == "ERROR" or n.is_missing]


def literal_problems(parser, text: str) -> list[str]:
    """The untyped literals of `text` by the rules `python -m tack.julia validate` applies
    (tack.julia.validate.untyped_literals), in the whole text, not only its kernels."""
    return [f"untyped literal {n.text.decode()} at {n.start_point}"
            for n in untyped_literals(parser.parse(text.encode()).root_node)]


def structure_problems(parser, text: str) -> list[str]:
    tree = parser.parse(text.encode())
    bad = []
    for n in _nodes(tree.root_node):
        if n.type == "return_statement" or (n.child_count == 0 and n.text == b"return"):
            bad.append(f"return at {n.start_point}")
        if n.type in ("continue_statement", "break_statement"):
            p = n.parent
            while p is not None and p.type not in LOOPS:
                p = p.parent
            if p is None:
                bad.append(f"{n.type} outside a loop at {n.start_point}")
    index_lines = [ln.strip().split("  #")[0] for ln in text.splitlines() if "@index" in ln]
    if index_lines not in (["tk_gi = @index(Global, Linear)"],
                           ["tk_gi = @index(Global, Linear)", "tk_li = @index(Local, Linear)"]):
        bad.append(f"@index must be one top-level assignment per kind, got {index_lines}")
    for k, ln in enumerate(text.splitlines(), 1):
        s = ln.strip()
        if s and not s.startswith("#") and s not in ("end", "else") and \
                not re.search(r"  # [\w.-]+\.py:\d+$", ln):
            bad.append(f"line {k} has no `# file.py:LINE` comment: {ln!r}")
    return bad + ka_split_problems(parser, text)


# -- KA 0.9's CPU lowering, replayed on the rendered text ----------------------------------------

ALLOCATIONS = (b"@index", b"@private", b"@localmem")


def _macro(n) -> bytes | None:
    return n.children[0].text if n.type == "macrocall_expression" else None


def _has_sync(n) -> bool:
    return any(_macro(x) == b"@synchronize" for x in _nodes(n))


def _body(node) -> list:
    """The statements of an `if`/`elseif`/`while`/`else`/function node (no condition, no clauses,
    no comments)."""
    kids = [c for c in node.named_children if c.type not in ("line_comment", "signature")]
    if node.type in ("if_statement", "elseif_clause", "while_statement"):
        kids = kids[1:]
    return [c for c in kids if c.type not in ("elseif_clause", "else_clause")]


def _split(stmts, segments, headers, bad) -> None:
    """KernelAbstractions 0.9 `split` (src/macros.jl): statements without `@synchronize` form
    segments (one work-item loop each on the CPU); an `if`/`while` holding one runs per group."""
    current = []
    for s in stmts:
        if not _has_sync(s):
            current.append(s)
            continue
        if current:
            segments.append(current)
        current = []
        if _macro(s) == b"@synchronize":
            continue
        if s.type not in ("if_statement", "while_statement"):
            bad.append(f"@synchronize inside a {s.type} at {s.start_point}")
            continue
        headers.append(s.named_children[0])
        branches = [_body(s)]
        for clause in s.named_children:
            if clause.type == "elseif_clause":
                headers.append(clause.named_children[0])
            if clause.type in ("elseif_clause", "else_clause"):
                branches.append(_body(clause))
        for b in branches:  # KA recurses only into blocks of 2+ statements holding a sync
            if b and (len(b) == 1 or not any(_has_sync(x) for x in b)):
                bad.append(f"a block of the {s.type} at {s.start_point} is not split")
            _split(b, segments, headers, bad)
    if current:
        segments.append(current)


def _defs(node) -> set[bytes]:
    """Plain variables a statement binds: `x = ...`, `local x::T = ...`, `for outer x in ...`."""
    out = set()
    for n in _nodes(node):
        if n.type == "assignment" and n.children[0].type == "identifier":
            out.add(n.children[0].text)
        if n.type == "typed_expression" and n.parent.type == "assignment" and \
                n.parent.parent.type == "local_statement":
            out.add(n.children[0].text)
        if n.type == "for_binding":
            out.add(n.named_children[0].text if n.named_children[0].type == "identifier"
                    else n.named_children[1].text)
    return out


def ka_split_problems(parser, text: str) -> list[str]:
    """What KA 0.9's CPU backend would break (docs/design/003-julia-rendering.md, "Barriers"):
    `@index`/`@private`/`@localmem` only as top-level assignments; a plain variable bound in one
    segment and used in another (each segment is its own work-item loop: the value is gone); a
    condition of an `if`/`while` holding `@synchronize` (run once per group, outside the work-item
    loops) reading anything but `@localmem` arrays and arguments."""
    root = parser.parse(text.encode()).root_node
    fn = next(n for n in _nodes(root) if n.type == "function_definition")
    bad, top, shared = [], set(), set()
    for n in _nodes(fn):
        if _macro(n) in ALLOCATIONS:
            a = n.parent
            if a.type != "assignment" or a.parent.id != fn.id:
                bad.append(f"{_macro(n).decode()} not a top-level assignment at {n.start_point}")
            else:
                top.add(a.children[0].text)
                if _macro(n) == b"@localmem":
                    shared.add(a.children[0].text)
    stmts = [s for s in _body(fn) if not (s.type == "assignment" and s.children[0].text in top)]
    segments, headers = [], []
    _split(stmts, segments, headers, bad)
    owner: dict[bytes, int] = {}
    for k, seg in enumerate(segments):
        for name in set().union(*(_defs(s) for s in seg)):
            if owner.setdefault(name, k) != k:
                bad.append(f"{name.decode()} is bound in two segments")
    for k, seg in enumerate(segments):
        for n in (x for s in seg for x in _nodes(s) if x.type == "identifier"):
            if owner.get(n.text, k) != k:
                bad.append(f"{n.text.decode()} of segment {owner[n.text]} used in segment {k} "
                           f"at {n.start_point}")
    for h in headers:
        for n in (x for x in _nodes(h) if x.type == "identifier"):
            if n.text in owner or (n.text in top and n.text not in shared):
                bad.append(f"{n.text.decode()} in the condition at {h.start_point} is per lane")
    return bad
