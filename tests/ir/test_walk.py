"""ir/walk.py: every block of every statement kind is reached, in the order each mode promises;
passes/names.py gives the names the golden files hold."""
from __future__ import annotations

import dataclasses
import typing

import tack.dtypes as dt
from tack.ir import nodes as N
from tack.ir.nodes import Expr, Loc
from tack.ir.ops import Op
from tack.ir.walk import iter_stmts, map_body, map_stmts
from tack.passes.names import Names

LOC = Loc("k.py", 1, 1, 1, 2)


def _var(name):
    return Expr(Op.VAR, dt.i32, (), name, LOC)


def _assign(name):
    return N.Assign(LOC, name, _var("x"))


def _tree():
    """for i: [if c: [a] else: [while c: [b]]], then d."""
    loop = N.While(LOC, _var("c"), [_assign("b")])
    branch = N.If(LOC, _var("c"), [_assign("a")], [loop])
    return [N.For(LOC, "i", _var("x"), _var("y"), None, [branch], unroll=4), _assign("d")]


def test_every_statement_list_field_is_a_declared_block():
    """A statement kind holding a `list[Stmt]` declares it in `BLOCKS`, so the walks reach it."""
    for cls in vars(N).values():
        if isinstance(cls, type) and issubclass(cls, N.Stmt):
            hints = typing.get_type_hints(cls, vars(N))
            lists = tuple(f.name for f in dataclasses.fields(cls)
                          if typing.get_origin(hints[f.name]) is list)
            assert cls.BLOCKS == lists, cls


def test_iter_stmts_in_program_order():
    names = [getattr(s, "name", type(s).__name__) for s in iter_stmts(_tree())]
    assert names == ["For", "If", "a", "While", "b", "d"]


def test_map_stmts_bottom_up_and_top_down():
    seen = []

    def up(s):
        seen.append(getattr(s, "name", type(s).__name__))
        return [s, s] if isinstance(s, N.Assign) and s.name == "b" else s

    out = map_stmts(_tree(), up)
    assert seen == ["a", "b", "While", "If", "For", "d"]
    assert [s.name for s in out[0].body[0].orelse[0].body] == ["b", "b"]  # a list is spliced
    assert out[0].unroll == 4  # every field of a rebuilt statement is kept

    seen.clear()

    def down(s, walk):
        seen.append(getattr(s, "name", type(s).__name__))
        return N.Barrier(LOC) if isinstance(s, N.While) else dataclasses.replace(
            s, **{f: walk(getattr(s, f)) for f in s.BLOCKS})

    out = map_stmts(_tree(), down, top_down=True)
    assert seen == ["For", "If", "a", "While", "d"]  # the While's block is not walked: fn kept none
    assert isinstance(out[0].body[0].orelse[0], N.Barrier)


def test_map_body_reaches_nested_expressions():
    out = map_body(_tree(), lambda e: _var("z") if e.op is Op.VAR and e.arg == "x" else e)
    assert [s.value.arg for s in iter_stmts(out) if isinstance(s, N.Assign)] == ["z"] * 3
    assert out[0].start.arg == "z"


def test_names_skip_taken_and_count_per_allocator():
    # Generated names hold a "." (passes/names.py), so no Python identifier can be one.
    locals_ = {".cse2": dt.i32, "_cse1": dt.i32}
    names = Names(locals_, "cse")
    assert [names.fresh(dt.i32) for _ in range(3)] == [".cse1", ".cse2_", ".cse3"]
    loops = Names(locals_)
    assert [loops.fresh(dt.i64, p) for p in ("trips", "k")] == [".trips1", ".k2"]
    assert locals_[".k2"] is dt.i64
