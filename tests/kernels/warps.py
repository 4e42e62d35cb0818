"""Kernels and NumPy models the warp tests share (tests/exec/test_warps.py, the PTX checks of
tests/cuda/test_warps_cuda.py, the Julia rendering checks): 32-lane lockstep shuffles and
butterfly reductions modelled in NumPy, and one kernel per family of warp operations."""
import numpy as np
import tack

W = tack.WARP_SIZE
DTYPES = [tack.i8, tack.u8, tack.i16, tack.u16, tack.i32, tack.u32, tack.i64, tack.u64,
          tack.f16, tack.bf16, tack.f32, tack.f64]



def _data(dtype, n, seed=0):
    rng = np.random.default_rng(seed)
    if dtype.is_float:
        return (rng.standard_normal(n) * 100).astype(dtype.np)
    info = np.iinfo(dtype.np)
    return rng.integers(info.min, info.max, n, dtype=dtype.np, endpoint=True)


def _src(op, s):
    lane = np.arange(n_ := W)[None, :]
    s = np.asarray(s, np.int64)[..., None] & (W - 1) if np.ndim(s) == 0 else s & (W - 1)
    src = {"shfl": s + 0 * lane, "shfl_xor": lane ^ s, "shfl_up": lane - s,
           "shfl_down": lane + s}[op]
    return np.where((src < 0) | (src >= n_), lane, src)


def model_shuffle(op, x, s):
    rows = x.reshape(-1, W)
    s = np.broadcast_to(np.asarray(s, np.int64), x.shape).reshape(-1, W)
    return np.take_along_axis(rows, _src(op, s), 1).reshape(-1)


def model_reduce(op, x):
    """The xor butterfly of ir/ops.py, in the dtype (halves: in f32, rounded once)."""
    wide = x.astype(np.float32) if x.dtype.itemsize == 2 and x.dtype.kind in "fV" else x
    rows = wide.reshape(-1, W)
    lane = np.arange(W)
    f = {"warp_sum": np.add, "warp_min": np.fmin, "warp_max": np.fmax}[op]
    step = W // 2
    with np.errstate(over="ignore"):
        while step:
            rows = f(rows, rows[:, lane ^ step])
            step //= 2
    return rows.reshape(-1).astype(x.dtype)


@tack.kernel
def shuffles(x, s, a, b, c, d, n):
    for i in range(n):
        a[i] = tack.shfl(x[i], s[i])
        b[i] = tack.shfl_xor(x[i], s[i])
        c[i] = tack.shfl_up(x[i], s[i])
        d[i] = tack.shfl_down(x[i], s[i])


@tack.kernel
def reductions(x, a, b, c, n):
    for i in range(n):
        a[i] = tack.warp_sum(x[i])
        b[i] = tack.warp_min(x[i])
        c[i] = tack.warp_max(x[i])


@tack.kernel
def votes(x, t, anys, alls, ballots, n):
    for i in range(n):
        p = x[i] > t
        anys[i] = tack.i32(tack.warp_any(p))
        alls[i] = tack.i32(tack.warp_all(p))
        ballots[i] = tack.ballot(p)


@tack.kernel
def ids(lane, warp, n):
    for i in range(n):
        lane[i] = tack.lane_id()
        warp[i] = tack.warp_id()


@tack.kernel
def block_sum_by_warps(x, out, n):
    for i in range(n):
        partial = tack.shared(tack.f32, 8)
        s = tack.warp_sum(x[i])
        if tack.lane_id() == 0:
            partial[tack.warp_id()] = s
        tack.barrier()
        total = 0.0
        for w in range(8):
            total += partial[w]
        out[i] = total


def host_cases(dtype, n=512):
    """(kernel, host arguments) of each warp kernel above over `n` lanes of `dtype`."""
    rng = np.random.default_rng(9)
    return [
        (shuffles, [_data(dtype, n), rng.integers(-70, 70, n).astype(np.int32)]
         + [np.zeros(n, dtype.np) for _ in range(4)] + [n]),
        (reductions, [_data(dtype, n, 1)] + [np.zeros(n, dtype.np) for _ in range(3)] + [n]),
        (votes, [_data(dtype, n, 2), 0.0, np.zeros(n, np.int32), np.zeros(n, np.int32),
                 np.zeros(n, np.uint32), n]),
        (ids, [np.zeros(n, np.int32), np.zeros(n, np.int32), n]),
        (block_sum_by_warps, [_data(tack.f32, n, 3), np.zeros(n, np.float32), n]),
    ]
