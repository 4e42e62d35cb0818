"""Kernels the asynchronous-copy tests share (tests/exec/test_async_copies.py, the PTX checks of
tests/cuda/test_ptx_async.py, the Julia checks of tests/julia/test_async_julia.py, the planted
pipeline bugs of tests/check/planted_async.py): a K-tiled f32 matmul whose next A and B tiles
are copied while the current ones are multiplied (double buffering), the same kernel with plain
synchronous copies, and a copy of `count` elements of any dtype."""
import numpy as np
import tack

TILE = 16  # a 16×16 tile of C per workgroup of 256 lanes, K in tiles of 16


@tack.kernel
def matmul_pipelined(a, b, c):
    for g in range(c.shape[0] * c.shape[1]):
        As = tack.shared(tack.f32, 512)  # two A tiles of 16×16: the one in use, the next
        Bs = tack.shared(tack.f32, 512)
        tid = tack.thread_id()
        tile = g // 256
        row0 = (tile // (c.shape[1] // 16)) * 16
        col0 = (tile % (c.shape[1] // 16)) * 16
        r = tid // 16
        q = tid % 16
        ktiles = a.shape[1] // 16
        tack.async_copy(As, tid, a, (row0 + r, q))  # tile 0 into buffer 0
        tack.async_copy(Bs, tid, b, (r, col0 + q))
        tack.async_commit()
        acc = 0.0
        for t in range(ktiles):
            cur = (t % 2) * 256
            if t + 1 < ktiles:  # tile t + 1 into the other buffer, while tile t is used
                tack.async_copy(As, 256 - cur + tid, a, (row0 + r, (t + 1) * 16 + q))
                tack.async_copy(Bs, 256 - cur + tid, b, ((t + 1) * 16 + r, col0 + q))
            tack.async_commit()
            tack.async_wait(1)  # every group but the newest: tile t has landed
            tack.barrier()  # ... for every lane
            for s in range(16):
                acc += As[cur + r * 16 + s] * Bs[cur + s * 16 + q]
            tack.barrier()  # every lane is done with tile t before it is refilled
        c[row0 + r, col0 + q] = acc


@tack.kernel
def matmul_double_buffered(a, b, c):
    for g in range(c.shape[0] * c.shape[1]):
        As = tack.shared(tack.f32, 512)
        Bs = tack.shared(tack.f32, 512)
        tid = tack.thread_id()
        tile = g // 256
        row0 = (tile // (c.shape[1] // 16)) * 16
        col0 = (tile % (c.shape[1] // 16)) * 16
        r = tid // 16
        q = tid % 16
        ktiles = a.shape[1] // 16
        As[tid] = a[row0 + r, q]
        Bs[tid] = b[r, col0 + q]
        acc = 0.0
        for t in range(ktiles):
            cur = (t % 2) * 256
            if t + 1 < ktiles:
                As[256 - cur + tid] = a[row0 + r, (t + 1) * 16 + q]
                Bs[256 - cur + tid] = b[(t + 1) * 16 + r, col0 + q]
            tack.barrier()
            for s in range(16):
                acc += As[cur + r * 16 + s] * Bs[cur + s * 16 + q]
            tack.barrier()
        c[row0 + r, col0 + q] = acc


@tack.kernel
def matmul_pipelined_no_wait(a, b, c):
    for g in range(c.shape[0] * c.shape[1]):
        As = tack.shared(tack.f32, 512)
        Bs = tack.shared(tack.f32, 512)
        tid = tack.thread_id()
        tile = g // 256
        row0 = (tile // (c.shape[1] // 16)) * 16
        col0 = (tile % (c.shape[1] // 16)) * 16
        r = tid // 16
        q = tid % 16
        ktiles = a.shape[1] // 16
        tack.async_copy(As, tid, a, (row0 + r, q))  # @2
        tack.async_copy(Bs, tid, b, (r, col0 + q))
        tack.async_commit()
        acc = 0.0
        for t in range(ktiles):
            cur = (t % 2) * 256
            if t + 1 < ktiles:
                tack.async_copy(As, 256 - cur + tid, a, (row0 + r, (t + 1) * 16 + q))
                tack.async_copy(Bs, 256 - cur + tid, b, ((t + 1) * 16 + r, col0 + q))
            tack.async_commit()
            tack.barrier()
            for s in range(16):
                acc += As[cur + r * 16 + s] * Bs[cur + s * 16 + q]  # @1
            tack.barrier()
        c[row0 + r, col0 + q] = acc


def matmul_args(m=32, n=48, k=80, seed=0, device=None):
    """A, B with small integers (every product and sum exact in f32) and a zeroed C."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-8, 8, (m, k)).astype(np.float32)
    b = rng.integers(-8, 8, (k, n)).astype(np.float32)
    return (tack.array(a, device=device), tack.array(b, device=device),
            tack.zeros((m, n), device=device))


def _copy_kernel(count: int):
    """A kernel copying `count` elements per asynchronous copy into a shared array and back out
    reversed; the lane at each multiple of `count` issues the copy for its neighbours."""
    n = tack.constant(count)

    @tack.kernel
    def copy_elements(x, out):
        for i in range(out.shape[0]):
            buf = tack.shared_like(x, 256)
            tid = tack.thread_id()
            base = (tid // n) * n
            if tid == base:
                tack.async_copy(buf, base, x, i - tid + base, n)
            tack.async_commit()
            tack.async_wait(0)
            tack.barrier()
            out[i] = buf[255 - tid]
    return copy_elements


COPY = {count: _copy_kernel(count) for count in (1, 2, 4, 8)}
