"""The register budget of runtime.cuda.occupancy: pure arithmetic and PTX text, no GPU needed."""
import re

import pytest
from tack.runtime.cuda.occupancy import budgets, limit_registers, register_budget

from tests.cuda.ptx_sample import PTX

# An H100's limits (those of an H200 too): 64 Ki registers and 2048 threads per SM
H100 = {"block": 256, "regs_per_sm": 65536, "threads_per_sm": 2048}


@pytest.mark.parametrize("regs, blocks, budget", [
    (33, 6, 40),     # 33 registers are allocated as 40: 6 blocks either way
    (40, 6, None),   # already at the budget
    (50, 5, None),   # 51 // 8 * 8 = 48 < 50: nothing to give
    (41, 5, 48),
    (60, 4, 64),
    (70, 3, 80),
    (100, 2, 128),
    (200, 1, 255),
    (16, 8, None),   # the thread limit: more registers cannot help occupancy
    (32, 8, None),
    (20, 4, 64),     # shared memory limits it to 4 blocks: 64 registers cost nothing
    (33, 0, None),   # cannot run at all: leave it to the launch to fail
])
def test_budget_keeps_the_blocks_per_sm(regs, blocks, budget):
    got = register_budget(regs, blocks, **H100)
    assert got == budget
    if got is not None:
        assert (got % 8 == 0 or got == 255) and regs < got <= 255
        assert H100["regs_per_sm"] // (got * 256) >= blocks  # the same blocks fit


def test_limit_registers_marks_only_the_entry():
    out = limit_registers(PTX, "tack_k", 40)
    assert out.count(".maxnreg") == 1
    assert re.search(r"tack_k_param_1\n\)\n\.maxnreg 40\n\{\n\t\.reg", out)
    assert out.replace("\n.maxnreg 40", "") == PTX
    with pytest.raises(ValueError):
        limit_registers(PTX, "missing", 40)


@pytest.mark.parametrize("regs, blocks, tried", [
    (150, 1, [(128, True), (255, False)]),  # one block: the two-block cap first, then the rest
    (128, 1, [(255, False)]),                # already fits two by registers (shared memory limits)
    (200, 1, [(128, True), (255, False)]),
    (100, 2, [(128, False)]),                # two blocks: only the free registers
    (33, 6, [(40, False)]),
    (32, 8, []),
])
def test_budgets_try_a_second_block_first(regs, blocks, tried):
    assert list(budgets(regs, blocks, **H100)) == tried
