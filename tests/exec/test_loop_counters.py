"""Sequential loops with a step, or whose body assigns the variable, run on a hidden counter
(passes.loops): u32 for variables of 32 bits or fewer, i64 otherwise. The extremes of each
type's range against Python's own `range`."""
import numpy as np
import pytest

import tack


@tack.kernel
def stepped_i32(out, start, stop, step):
    for t in range(1):
        c = 0
        for k in range(start, stop, step):
            out[c] = k
            c += 1
        out[out.shape[0] - 1] = c


@tack.kernel
def reassigned_u32(out, start, stop):
    for t in range(1):
        c = 0
        for k in range(start, stop):
            out[c] = k
            k = k + 100  # does not change the iteration
            c += 1
            if c == 3:
                break
        out[out.shape[0] - 1] = c


I32_MIN, I32_MAX = -2**31, 2**31 - 1


@pytest.mark.parametrize("start, stop, step", [
    (I32_MIN, I32_MAX, 2**30), (I32_MAX, I32_MIN, -2**30), (I32_MIN, I32_MAX, I32_MAX),
    (I32_MAX - 2, I32_MAX, 1), (I32_MIN + 2, I32_MIN, -1), (5, 5, 3), (0, 17, 4),
    (I32_MAX, I32_MIN, I32_MIN)])
def test_i32_stepped_extremes_match_python(start, stop, step):
    ref = list(range(start, stop, step))
    out = tack.zeros(len(ref) + 1, tack.i64)
    stepped_i32(out, np.int32(start), np.int32(stop), np.int32(step))
    got = out.numpy()
    assert got[-1] == len(ref)
    assert list(got[:-1]) == ref


def test_u32_loop_over_the_top_of_the_range():
    out = tack.zeros(4, tack.u32)
    reassigned_u32(out, np.uint32(2**32 - 3), np.uint32(2**32 - 1))
    assert list(out.numpy()) == [2**32 - 3, 2**32 - 2, 0, 2]
