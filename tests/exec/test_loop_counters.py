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


@tack.kernel
def parallel_literal(out):
    for i in range(4999999990, 5000000000):
        out[i - 4999999990] = i


@tack.kernel
def parallel_scaled(out, n):
    for i in range(n * 4):
        if i < out.shape[0]:
            out[i] = i


@tack.kernel
def parallel_scaled_wide(out, n):
    for i in range(tack.i64(n) * 4 - 4, n * 4):  # the last four of range(4n)
        out[i % 4] = i


def test_parallel_loop_variable_holds_literal_bounds():
    out = tack.zeros(10, tack.i64)
    parallel_literal(out)
    assert list(out.numpy()) == list(range(4999999990, 5000000000))


def test_parallel_indices_outside_the_variable_type_are_refused():
    out = tack.zeros(8, tack.i64)
    for _ in range(2):  # the general path, then the prebuilt one
        parallel_scaled(out, 2)
    assert list(out.numpy()) == list(range(8))
    with pytest.raises(ValueError, match="index reaches 2147483651, outside the range"):
        parallel_scaled(out, 2**29 + 1)  # 4n - 1 does not fit the i32 index
    with pytest.raises(ValueError, match="outside the range"):
        parallel_scaled(out, 2**29 + 1)
    big = tack.zeros(4, tack.i64)
    parallel_scaled(big, np.int64(1))  # an i32 scalar: the narrowest type holding its value
    assert list(big.numpy()) == [0, 1, 2, 3]


def test_a_bound_cast_to_i64_gives_an_i64_index():
    """`range(tack.i64(n) * 4 ...)`: the advice of the index-span error; the loop variable is
    i64 although `n` is an i32 scalar, so indices past 2^31 - 1 run instead of being refused."""
    out = tack.zeros(4, tack.i64)
    assert "locals i: i64" in tack.inspect(parallel_scaled_wide, out, 3, mode="ir")
    parallel_scaled_wide(out, 4)
    assert list(out.numpy()) == [12, 13, 14, 15]
    n = 2**29 + 1
    parallel_scaled_wide(out, n)  # i = 2^31 .. 2^31 + 3: past i32
    assert list(out.numpy()) == [2**31, 2**31 + 1, 2**31 + 2, 2**31 + 3]
    with tack.device("sim"):  # the simulator runs the same i64 loop variable
        got = tack.zeros(4, tack.i64)
        parallel_scaled_wide(got, n)
        assert list(got.numpy()) == [2**31, 2**31 + 1, 2**31 + 2, 2**31 + 3]
