"""An `if` whose branches assign locals may stand before the parallel loop
(the kernel prologue); stores, atomics and barriers in it are still rejected, and a bound
assigned in it cannot size the launch (docs/language.md, "Parallel loop")."""
import numpy as np
import pytest
import tack


@tack.kernel
def scaled(x, out, mode):
    offset = 1.0
    if mode > 1:
        s = 2.0
    elif mode == 1:
        s = 3.0
        if x.shape[0] > 2:
            offset = 10.0
    else:
        s = x[0]
    for i in range(x.shape[0]):
        out[i] = x[i] * s + offset


@tack.kernel
def store_in_prologue_if(x, mode):
    if mode > 0:
        x[0] = 1.0
    for i in range(x.shape[0]):
        x[i] = 2.0


@tack.kernel
def bound_from_if(x, mode):
    n = x.shape[0]
    if mode > 0:
        n = 1
    for i in range(n):
        x[i] = 2.0


def test_prologue_if_assigns_locals(engine):
    x = tack.array(np.array([4.0, 1.0, 2.0], np.float32))
    out = tack.zeros(3, tack.f32)
    scaled(x, out, 2)
    assert out.numpy().tolist() == [9.0, 3.0, 5.0]
    scaled(x, out, 1)
    assert out.numpy().tolist() == [22.0, 13.0, 16.0]
    scaled(x, out, 0)
    assert out.numpy().tolist() == [17.0, 5.0, 9.0]


def test_prologue_if_rejects_stores():
    with pytest.raises(tack.UnsupportedSyntaxError, match=r"Kernel 'store_in_prologue_if': store "
                                                          r"is outside the parallel loop") as e:
        store_in_prologue_if(tack.zeros(3, tack.f32), 1)
    assert e.value.loc.source_line() == "        x[0] = 1.0"


def test_prologue_if_cannot_set_the_launch_bound():
    with pytest.raises(tack.UnsupportedSyntaxError, match=r"Cannot resolve loop range "
                                                          r"expression: 'n' is assigned in an "
                                                          r"`if` before the loop") as e:
        bound_from_if(tack.zeros(3, tack.f32), 1)
    assert e.value.loc.source_line() == "    for i in range(n):"
