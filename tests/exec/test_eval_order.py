"""Operands are evaluated left to right, also beside side effects (atomics
and device functions that write): docs/language.md, "Statements inside the loop"."""
import re

import numpy as np
import tack


@tack.func
def bump(f):
    f[0] = f[0] + 10.0
    return 1.0


@tack.kernel
def ordered(f, out):
    for i in range(1):
        out[0] = f[0] - tack.atomic_add(f, 0, 1.0)   # f[0] read before the update
        out[1] = f[0] - bump(f)                       # and before an inlined function's store
        out[2] = min(f[0], tack.atomic_add(f, 0, 1.0))
        f[1] += tack.atomic_add(f, 1, 5.0)            # the old value read first: f[1] = 0 + 0
        out[3] = tack.atomic_add(f, 0, 1.0) - bump(f)  # the atomic runs before the call
        out[4] = f[0] < tack.atomic_add(f, 0, 1.0)


def python_reference():
    f = [0.0, 0.0]

    def atomic_add(k, v):
        old = f[k]
        f[k] += v
        return old

    def bump_():
        f[0] = f[0] + 10.0
        return 1.0

    out = [0.0] * 5
    out[0] = f[0] - atomic_add(0, 1.0)
    out[1] = f[0] - bump_()
    out[2] = min(f[0], atomic_add(0, 1.0))
    f[1] += atomic_add(1, 5.0)
    out[3] = atomic_add(0, 1.0) - bump_()
    out[4] = float(f[0] < atomic_add(0, 1.0))
    return out, f


def test_evaluation_order_of_side_effects(engine):
    f, out = tack.zeros(2, tack.f32), tack.zeros(5, tack.f32)
    ordered(f, out)
    want_out, want_f = python_reference()
    assert out.numpy().tolist() == want_out == [0.0, 0.0, 11.0, 11.0, 0.0]
    assert f.numpy().tolist() == want_f == [24.0, 0.0]


def test_evaluation_order_plain_kernels_unchanged():
    """A kernel without effects gets no temporaries (the IR of correct kernels is unchanged)."""
    @tack.kernel
    def plain(x, y, out):
        for i in range(x.shape[0]):
            out[i] = x[i] - y[i] * 2.0

    x = tack.array(np.arange(4, dtype=np.float32))
    ir = tack.inspect(plain, x, x, tack.zeros(4, tack.f32), mode="ir")
    assert not re.search(r"\b_ev\d", ir)
