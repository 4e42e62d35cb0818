"""The package keeps its shape: one direction of dependency, no import cycles, small pieces.

The layer table and the measurements are in tools/architecture.py; docs/design/006-layers.md
explains them. `python tools/architecture.py` prints the same findings as a report.
"""
import warnings

import pytest

from tests.architecture import arch


@pytest.fixture(scope="module")
def edges():
    return arch.graph()


def test_every_module_has_a_layer():
    for mod in arch.modules():
        arch.layer_of(mod)  # raises KeyError naming the module


def test_imports_go_down_the_layers(edges):
    bad = arch.violations(edges)
    assert not bad, "\n".join(bad)


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


# The checker itself, on a made-up package: it must see what it claims to see.
def test_checker_sees_an_upward_import_and_a_cycle():
    e = [arch.Edge("tack.ir.nodes", "tack.kernel", 3, False),
         arch.Edge("tack.kernel", "tack.ir.nodes", 4, False),
         arch.Edge("tack.frontend.parser", "tack.render.llvm", 5, True),
         arch.Edge("tack.arrays", "tack", 6, False),
         arch.Edge("tack.testing.oracle", "tack", 7, False)]
    bad = arch.violations(e)
    assert any("tack.ir.nodes (layer 1) imports tack.kernel (layer 8)" in b for b in bad)
    assert any("independent" in b and "tack.frontend.parser" in b for b in bad)
    assert any("tack.arrays" in b and "package face" in b for b in bad)
    assert not any("tack.testing.oracle" in b for b in bad)
    assert arch.cycles(e) == [["tack.ir.nodes", "tack.kernel"]]
    assert arch.layer_of("tack.runtime.cuda") == (5, "tack.runtime")
    assert arch.layer_of("tack") == (8, "tack")


def test_block_reductions_use_one_slot_per_workgroup_lane():
    """lib/reductions.py is kernel-language code, which reads no module globals, so its tree
    spells the workgroup size as literals; they must be ir.ops.WORKGROUP's."""
    import re

    from tack.ir.ops import WORKGROUP

    src = (arch.PACKAGE / "lib" / "reductions.py").read_text()
    assert re.findall(r"shared\(f32, (\d+)\)", src) == [str(WORKGROUP)]
    assert re.findall(r"stride = (\d+)", src) == [str(WORKGROUP // 2)]
    # tack.ops' tree in either precision (ops/_group.py) spells the same two literals
    src = (arch.PACKAGE / "ops" / "_group.py").read_text()
    assert re.findall(r"shared_like\(like, (\d+)\)", src) == [str(WORKGROUP)]
    assert re.findall(r"stride = (\d+)", src) == [str(WORKGROUP // 2)]
