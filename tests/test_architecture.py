"""The package keeps its shape: one direction of dependency, no import cycles, small pieces, and
one short call path from a kernel call to the engine's launch.

The layer table and the measurements are in tools/architecture.py; docs/design/006-layers.md
explains them. `python tools/architecture.py` prints the same findings as a report.
"""
import re
import warnings

import pytest

from tests.architecture import arch


@pytest.fixture(scope="module")
def edges():
    return arch.graph()


def test_every_module_has_a_layer():
    unplaced = []
    for mod in arch.modules():
        try:
            arch.layer_of(mod)
        except KeyError as exc:  # names the module
            unplaced.append(str(exc))
    assert not unplaced, "\n".join(unplaced)


def test_imports_go_down_the_layers(edges):
    bad = arch.violations(edges)
    assert not bad, "\n".join(bad)


def test_the_package_imports_nothing_of_the_repository():
    """The reliability corpus, the Julia 1.5.3 tier's process and pipe, and every other piece
    of test infrastructure live in tests/ (or tools/, bench/), which an installed Tack lacks."""
    bad = arch.repository_imports()
    assert not bad, "\n".join(bad)


def test_checker_sees_an_import_of_the_repository(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("import os\nfrom tests.julia.julia153 import process\n"
                   "def f():\n    import tools.architecture\n    from . import tests\n")
    assert arch.repository_imports({"tack.m": src}) == [
        "tack.m: tests.julia.julia153, line 2", "tack.m: tools.architecture, line 4"]


def test_no_import_cycles(edges):
    loops = [" <-> ".join(c) for c in arch.cycles(edges)
             if frozenset(c) not in arch.ALLOWED_CYCLES]
    assert not loops, "\n".join(loops)


def test_allowed_cycles_are_still_needed(edges):
    """An allow-list entry that no longer matches a real cycle is removed, not kept 'just in
    case'."""
    real = {frozenset(c) for c in arch.cycles(edges)}
    stale = [sorted(c) for c in arch.ALLOWED_CYCLES if c not in real]
    assert not stale, stale


def test_modules_and_functions_sizes_are_reported():
    """The sizes are a reader's guide (docs/design/006-layers.md): past it, a warning names the
    module or function, a signal to look for a seam; twice past it, the reader is lost."""
    mods, fns = arch.sizes()
    over = [f"{n} lines: {m}" for n, m in mods if n > arch.MAX_MODULE_LINES]
    over += [f"{n} lines: {f}" for n, f in fns if n > arch.MAX_FUNCTION_LINES]
    for line in over:
        warnings.warn(f"past the size guide: {line}", stacklevel=1)
    lost = [f"{n} lines: {m}" for n, m in mods if n > 2 * arch.MAX_MODULE_LINES]
    lost += [f"{n} lines: {f}" for n, f in fns if n > 2 * arch.MAX_FUNCTION_LINES]
    assert not lost, "\n".join(lost)


def test_the_design_note_lists_every_layer_entry():
    """docs/design/006-layers.md's table names each module of `LAYERS` in its layer, and
    nothing else: `lib/` for tack.lib, `kernel` for tack.kernel, `__init__` for the face."""
    doc = (arch.ROOT / "docs" / "design" / "006-layers.md").read_text()
    rows = {}
    for line in doc.splitlines():
        m = re.match(r"\| (\d+) \| ([^|]+) \|", line)
        if m:
            names = re.findall(r"`([\w/]+)`", m.group(2))
            rows[int(m.group(1))] = {"tack" if n == "__init__" else f"tack.{n.rstrip('/')}"
                                     for n in names}
    want = {k: set(names) for k, names in enumerate(arch.LAYERS)}
    assert rows == want, {k: (sorted(want.get(k, set()) - rows.get(k, set())),
                              sorted(rows.get(k, set()) - want.get(k, set())))
                          for k in sorted(set(rows) | set(want)) if rows.get(k) != want.get(k)}


# The checker itself, on a made-up package: it must see what it claims to see.
def test_checker_sees_an_upward_import_and_a_cycle():
    e = [arch.Edge("tack.ir.nodes", "tack.kernel", 3, False),
         arch.Edge("tack.kernel", "tack.ir.nodes", 4, False),
         arch.Edge("tack.frontend.parser", "tack.render.llvm.printer", 5, True),
         arch.Edge("tack.arrays", "tack", 6, False),
         arch.Edge("tack.testing.oracle", "tack", 7, False)]
    bad = arch.violations(e)
    assert any("tack.ir.nodes (layer 1) imports tack.kernel (layer 8)" in b for b in bad)
    assert any("independent" in b and "tack.frontend.parser" in b for b in bad)
    assert any("tack.arrays" in b and "package face" in b for b in bad)
    assert not any("tack.testing.oracle" in b for b in bad)
    assert arch.cycles(e) == [["tack.ir.nodes", "tack.kernel"]]
    assert arch.layer_of("tack.runtime.cuda.engine") == (5, "tack.runtime")
    assert arch.layer_of("tack") == (8, "tack")


@pytest.fixture(scope="module")
def traces():
    return arch.trace_calls()


def test_a_call_follows_one_path_to_the_launch(traces):
    """Following the arguments of `fill(out, 1.0)` (tools/architecture.py, `trace`): every call
    reaches the engine's launch; no module hands them to the same module twice in a row; the
    first call's arguments pass through at most 8 modules (9 before call/ existed) of at most 80
    run in all (69 when call/ came; the IR pipeline has since gained the half-precision, library
    math and warp passes, the type rules of asynchronous copies and MMA, and the renderers and type rules
    became packages, whose `__init__` runs too; 82 with the warpgroup MMA's type rules and
    shape table; 83 with the CPU printer's min/max reduction rewrite, passes/minmax.py), the
    second call's (the general path, its plan known) through the kernel, the plan, the argument rows,
    the launch range and the engine; a warm call through its prebuilt path alone."""
    report = "\n".join(f"{k}: {' > '.join(t.route)}" for k, t in traces.items())
    assert all(t.launched for t in traces.values()), report
    assert not [p for t in traces.values() for p in t.ping_pongs()], report
    first, second, warm = traces["first"], traces["second"], traces["warm"]
    assert len(set(first.route)) <= 8 and len(first.modules) <= 83, report
    assert first.route[:2] == ["tack.kernel", "tack.call.plan"], report
    assert set(second.route) <= {"tack.kernel", "tack.call.plan", "tack.call.signature",
                                 "tack.frontend.hostrange", "tack.runtime.cpu.engine"}, report
    assert max(second.returns().values()) <= 3, report
    # the native caller (runtime/cpu/call.py) where it is built, else the engine's launch
    assert warm.route[0] == "tack.call.fast" and len(warm.route) == 2, report
    assert set(warm.modules) <= {"tack.call.fast", "tack.runtime.cpu.engine"}, report


def test_call_trace_measures_returns_and_ping_pongs():
    t = arch.CallTrace(["a", "b", "c"], 3, ["a", "b", "a", "b", "c", "a"], True)
    assert t.returns() == {"a": 2, "b": 1}
    assert t.ping_pongs() == ["a > b > a > b"]
    assert arch.CallTrace([], 0, ["a", "b", "a", "c", "a"], True).ping_pongs() == []


def test_block_reductions_use_one_slot_per_workgroup_lane():
    """lib/reductions.py is kernel-language code, which reads no module globals, so its one tree
    and the shared arrays it is given spell the workgroup size as literals; they must be
    ir.ops.WORKGROUP's."""
    import re

    from tack.ir.ops import WORKGROUP

    src = (arch.PACKAGE / "lib" / "reductions.py").read_text()
    sizes = re.findall(r"shared(?:_like)?\((?:f32|like), (\d+)\)", src)
    assert sizes and set(sizes) == {str(WORKGROUP)}
    assert re.findall(r"stride = (\d+)", src) == [str(WORKGROUP // 2)]


def test_the_warp_tree_uses_one_slot_per_warp():
    """lib/warp_reductions.py spells the warp size and the warps of a workgroup as literals
    too: one shared slot per warp, butterflies from half a warp and from half the warps; the
    shared-memory tree's order by shuffles (`tree_by_warps`) one slot per lane, its slots read
    a warp apart, and its shuffles from half a warp."""
    import re

    from tack.ir.ops import WARP, WORKGROUP

    src = (arch.PACKAGE / "lib" / "warp_reductions.py").read_text()
    assert re.findall(r"shared_like\(like, (\d+)\)", src) == [str(WORKGROUP // WARP),
                                                              str(WORKGROUP)]
    assert re.findall(r"shared\(f32, (\d+)\)", src) == [str(WORKGROUP)]
    offsets = sorted(int(k) for k in re.findall(r"smem\[lane \+ (\d+)\]", src))
    assert offsets == list(range(WARP, WORKGROUP, WARP)), offsets
    assert re.findall(r"\n    s = (\d+)\n    while", src) == [str(WARP // 2)]
    assert re.findall(r"butterfly\(.*, (\d+), combine\)", src) == [
        str(WARP // 2), str(WORKGROUP // WARP // 2)]
    assert re.findall(r"lane_id\(\) % (\d+)", src) == [str(WORKGROUP // WARP)]
