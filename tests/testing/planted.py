"""Kernels with planted bugs, each beside its fixed twin, and the references they are held to.

Every bug is one a real kernel has had: each is found by the FAST tier, and the tests in
test_planted.py check that the minimal failing case is the one the bug predicts. Extents are read
into locals before the parallel loop (or used as loop bounds), so one compiled specialization
serves every shape and the tests stay fast.
"""
import numpy as np
import tack


def add_ref(x, y):
    return x + y


def double_ref(x):
    return x * 2


def rowsum_ref(x):
    return x.sum(axis=1)


def center_ref(x):
    mean = x.mean(axis=1)
    return x - mean[:, None], mean


# 1. A hard-coded block size: elements past 1024 are never written.
@tack.kernel
def add_first_1024(x, y, out):
    for i in range(x.shape[0]):
        if i < 1024:
            out[i] = x[i] + y[i]


@tack.kernel
def add(x, y, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + y[i]


# 2. Tiles of 64 with no tail: a length that is not a multiple of 64 loses its last elements.
@tack.kernel
def double_tiled_no_tail(x, out):
    for t in range(x.shape[0] // 64):
        for j in range(64):
            out[t * 64 + j] = x[t * 64 + j] * 2


@tack.kernel
def double_tiled(x, out):
    n = x.shape[0]
    for t in range((x.shape[0] + 63) // 64):
        for j in range(64):
            k = t * 64 + j
            if k < n:
                out[k] = x[k] * 2


# 3. Rows and columns swapped: the row stride is the number of rows. Right only when m == n
#    (and when there is one row); the guard keeps every access in bounds.
@tack.kernel
def add2d_swapped(x, y, out):
    m = x.shape[0]
    n = x.shape[1]
    for i, j in tack.ndrange(x.shape[0], x.shape[1]):
        k = i * m + j
        if k < m * n:
            out[k] = x[k] + y[k]


@tack.kernel
def add2d(x, y, out):
    n = x.shape[1]
    for i, j in tack.ndrange(x.shape[0], x.shape[1]):
        out[i * n + j] = x[i * n + j] + y[i * n + j]


# 4. Wrong when a dimension is 1: the first and last element of a row are taken up front, and
#    with one column they are the same element, counted twice.
@tack.kernel
def rowsum_ends_first(x, out):
    n = x.shape[1]
    for i in range(x.shape[0]):
        acc = x[i * n] + x[i * n + n - 1]
        for j in range(1, n - 1):
            acc += x[i * n + j]
        out[i] = acc


@tack.kernel
def rowsum(x, out):
    n = x.shape[1]
    for i in range(x.shape[0]):
        acc = x[i * n]
        for j in range(1, n):
            acc += x[i * n + j]
        out[i] = acc


# 5. A wrapper that ignores strides: it hands the kernel the memory under a view, read from the
#    start of the buffer in memory order, as code that passes a raw pointer does.
def _memory_of(a: np.ndarray) -> np.ndarray:
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    return np.ravel(root, order="K")[:a.size].reshape(a.shape)


def add_ignoring_strides(x, y):
    out = tack.empty(x.shape, tack.dtypes.from_numpy(x.dtype))
    add(tack.array(_memory_of(x)), tack.array(_memory_of(y)), out)
    return out


def add_wrapper(x, y):
    out = tack.empty(x.shape, tack.dtypes.from_numpy(x.dtype))
    add(tack.array(x), tack.array(y), out)
    return out


# 6. Two outputs, the second (the saved mean, as a normalization keeps for its backward pass)
#    wrong: it stores the row sum.
@tack.kernel
def center_saves_sum(x, out, mean):
    n = x.shape[1]
    for i in range(x.shape[0]):
        s = x[i * n] * 0
        for j in range(n):
            s += x[i * n + j]
        mu = s / n
        mean[i] = s
        for j in range(n):
            out[i * n + j] = x[i * n + j] - mu


@tack.kernel
def center(x, out, mean):
    n = x.shape[1]
    for i in range(x.shape[0]):
        s = x[i * n] * 0
        for j in range(n):
            s += x[i * n + j]
        mu = s / n
        mean[i] = mu
        for j in range(n):
            out[i * n + j] = x[i * n + j] - mu


# 7. The last row is never written: only the NaN (or sentinel) fill of the outputs shows it.
@tack.kernel
def double2d_skips_last_row(x, out):
    n = x.shape[1]
    for i, j in tack.ndrange(x.shape[0] - 1, x.shape[1]):
        out[i * n + j] = x[i * n + j] + x[i * n + j]


@tack.kernel
def double2d(x, out):
    n = x.shape[1]
    for i, j in tack.ndrange(x.shape[0], x.shape[1]):
        out[i * n + j] = x[i * n + j] + x[i * n + j]
