"""`matmul` (2-D) and `batched_matmul` (3-D), one kernel pair for both (a matmul is a batch of
one). On an engine with workgroups a 256-lane workgroup computes a 64 x 64 tile of the output,
staging 64 x 16 slices of A and 16 x 64 slices of B in shared memory, each lane accumulating a
4 x 4 block in registers. The portable kernel computes four rows of C per parallel iteration,
so that every row of B loaded serves four rows (the inner loop runs along contiguous rows of B
and C, which LLVM vectorizes)."""
from __future__ import annotations

from ..intrinsics import barrier, local_array_like, shared_like, thread_id, unroll
from ..kernel import kernel
from . import _args, matmul_cpu


@kernel
def _rows4(a, b, c, batch, m, k, n):
    for t in range(batch * ((m + 3) // 4)):
        blocks = (m + 3) // 4
        z = t // blocks
        i0 = (t % blocks) * 4
        ab = z * m * k
        bb = z * k * n
        cb = z * m * n
        if i0 + 4 <= m:
            for p in range(k):
                a0 = a[ab + i0 * k + p]
                a1 = a[ab + (i0 + 1) * k + p]
                a2 = a[ab + (i0 + 2) * k + p]
                a3 = a[ab + (i0 + 3) * k + p]
                for j in range(n):
                    bv = b[bb + p * n + j]
                    c[cb + i0 * n + j] += a0 * bv
                    c[cb + (i0 + 1) * n + j] += a1 * bv
                    c[cb + (i0 + 2) * n + j] += a2 * bv
                    c[cb + (i0 + 3) * n + j] += a3 * bv
        else:
            for i in range(i0, m):
                for p in range(k):
                    av = a[ab + i * k + p]
                    for j in range(n):
                        c[cb + i * n + j] += av * b[bb + p * n + j]


@kernel
def _tiled(a, b, c, batch, m, k, n):
    for t in range(batch * ((m + 63) // 64) * ((n + 63) // 64) * 256):
        tn = (n + 63) // 64
        tiles = ((m + 63) // 64) * tn
        g = t // 256
        lane = thread_id()
        z = g // tiles
        i0 = ((g % tiles) // tn) * 64
        j0 = ((g % tiles) % tn) * 64
        ty = lane // 16
        tx = lane % 16
        a_s = shared_like(a, 1024)  # [16 k][64 rows of A]
        b_s = shared_like(a, 1024)  # [16 k][64 columns of B]
        acc = local_array_like(a, 16)
        av = local_array_like(a, 4)
        bv = local_array_like(a, 4)
        for q in unroll(range(16)):
            acc[q] = 0.0
        for p0 in range(0, k, 16):
            for q in unroll(range(4)):
                e = lane + q * 256
                row = e // 16
                kk = e % 16
                ok = i0 + row < m and p0 + kk < k
                a_s[kk * 64 + row] = a[(z * m + i0 + row) * k + p0 + kk] if ok else 0.0
                kb = e // 64
                col = e % 64
                okb = p0 + kb < k and j0 + col < n
                b_s[e] = b[(z * k + p0 + kb) * n + j0 + col] if okb else 0.0
            barrier()
            for kk in unroll(range(16)):
                for q in unroll(range(4)):
                    av[q] = a_s[kk * 64 + ty + 16 * q]
                    bv[q] = b_s[kk * 64 + tx + 16 * q]
                for q in unroll(range(16)):
                    acc[q] += av[q // 4] * bv[q % 4]
            barrier()
        for q in unroll(range(16)):
            i = i0 + ty + 16 * (q // 4)
            j = j0 + tx + 16 * (q % 4)
            if i < m and j < n:
                c[(z * m + i) * n + j] = acc[q]


def _run(op: str, a, b, ranks, out):
    dev = _args.device()
    aa = _args.as_array(op, "a", a, dev)
    ba = _args.as_array(op, "b", b, dev)
    _args.same_dtype(op, aa, b=ba)
    _args.need_rank(op, "a", aa, ranks)
    _args.need_rank(op, "b", ba, ranks)
    if aa.ndim != ba.ndim:
        raise _args.TackValueError(f"tack.ops.{op}: arguments 'a' and 'b' must have the same "
                                   f"rank, got {aa.shape} and {ba.shape}")
    if aa.shape[-1] != ba.shape[-2] or aa.shape[:-2] != ba.shape[:-2]:
        raise _args.TackValueError(f"tack.ops.{op}: argument 'b' of shape {ba.shape} does not "
                                   f"fit argument 'a' of shape {aa.shape}")
    z = aa.shape[0] if aa.ndim == 3 else 1
    m, k, n = aa.shape[-2], aa.shape[-1], ba.shape[-1]
    fresh = out is None
    out = _args.output(op, out, aa, aa.shape[:-1] + (n,))
    if out.size == 0 or k == 0:
        if not fresh:
            out.fill(0.0)
        return out
    total = max(aa.size, ba.size, out.size) + 64 * (m + n + k) * z
    args = (aa, ba, out) + _args.sizes(total, z, m, k, n)
    if _args.workgroups(dev):
        _tiled(*args)
    else:
        matmul_cpu.run(aa, ba, out, z, m, k, n)
    return out


def matmul(a, b, out=None):
    """a @ b for 2-D a (m, k) and b (k, n)."""
    return _run("matmul", a, b, (2,), out)


def batched_matmul(a, b, out=None):
    """a[z] @ b[z] for 3-D a (batch, m, k) and b (batch, k, n)."""
    return _run("batched_matmul", a, b, (3,), out)
