"""`matmul` (2-D) and `batched_matmul` (3-D), one kernel pair for both (a matmul is a batch of
one). On an engine with workgroups a 256-lane workgroup computes a 128 x 128 tile of the output,
each lane an 8 x 8 block in registers; k advances in slabs of 8 (128 x 8 of A, stored
transposed, and 8 x 128 of B) through two shared-memory buffers, the next slab's global loads
issued before the current slab's 512 multiply-adds so that their latency is hidden. The
portable kernel computes four rows of C per parallel iteration, so that every row of B loaded
serves four rows (the inner loop runs along contiguous rows of B and C, which LLVM
vectorizes). `precision="tf32"` runs the same kernels on copies of A and B rounded to TF32
(ops/_precision.py).

On an engine that runs `tack.mma` (CUDA sm_80+, the simulator: `capabilities.runs_mma`), f16 and
bf16 inputs, and f32 inputs with `precision="tf32"`, take the tensor-core kernels of
ops/matmul_mma.py (on sm_90 ops/matmul_wgmma.py), with the same f32 sums, one rounding each."""
from __future__ import annotations

from ..capabilities import runs_mma, runs_wgmma
from ..constants import constant
from ..frontend.inline import func
from ..intrinsics import barrier, local_array_like, shared_like, thread_id, unroll
from ..kernel import kernel
from . import _args, _precision, matmul_cpu, matmul_mma, matmul_wgmma


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


# ---- the workgroup kernel: 128 x 128 tiles, 8 x 8 results per lane ---------------------------
TILE = constant(128)  # output rows and columns per workgroup
SLAB = constant(8)  # k values staged in shared memory per step (two buffers)
A_ROW = constant(132)  # a_s stride: 128 rows of A plus 4, so the transposing stores hit 32 banks
A_BUF = constant(1056)  # SLAB * A_ROW
B_BUF = constant(1024)  # SLAB * TILE


@func
def _fetch(a, b, ra, rb, z, m, k, n, i0, j0, p0, lane):
    """This lane's four elements of A's 128 x 8 slab at k = p0 (eight lanes per row, 32 bytes)
    and four of B's 8 x 128 slab (a row of B per 128 lanes) into registers, zero outside."""
    for q in unroll(range(4)):
        row = lane // 8 + 32 * q
        kk = lane % 8
        ra[q] = a[(z * m + i0 + row) * k + p0 + kk] if i0 + row < m and p0 + kk < k else 0.0
        kb = lane // 128 + 2 * q
        col = lane % 128
        rb[q] = b[(z * k + p0 + kb) * n + j0 + col] if p0 + kb < k and j0 + col < n else 0.0


@func
def _stash(a_s, b_s, ra, rb, buf, lane):
    """The fetched registers into shared buffer `buf`: A transposed ([k][row]), B as is."""
    for q in unroll(range(4)):
        a_s[buf * A_BUF + (lane % 8) * A_ROW + lane // 8 + 32 * q] = ra[q]
        b_s[buf * B_BUF + (lane // 128 + 2 * q) * TILE + lane % 128] = rb[q]


@func
def _slab(a_s, b_s, acc, av, bv, buf, ty, tx):
    """acc += one slab's products: per k, rows 4ty..4ty+3 and 64+4ty.. of A and columns 4tx..
    and 64+4tx.. of B (four 16-byte shared loads), then 64 multiply-adds."""
    for kk in unroll(range(8)):
        for q in unroll(range(4)):
            av[q] = a_s[buf * A_BUF + kk * A_ROW + 4 * ty + q]
            av[q + 4] = a_s[buf * A_BUF + kk * A_ROW + 64 + 4 * ty + q]
            bv[q] = b_s[buf * B_BUF + kk * TILE + 4 * tx + q]
            bv[q + 4] = b_s[buf * B_BUF + kk * TILE + 64 + 4 * tx + q]
        for q in unroll(range(64)):
            acc[q] += av[q // 8] * bv[q % 8]


@kernel
def _tiled(a, b, c, batch, m, k, n):
    for t in range(batch * ((m + 127) // 128) * ((n + 127) // 128) * 256):
        tn = (n + 127) // 128
        tiles = ((m + 127) // 128) * tn
        g = t // 256
        lane = thread_id()
        z = g // tiles
        i0 = ((g % tiles) // tn) * 128
        j0 = ((g % tiles) % tn) * 128
        a_s = shared_like(a, 2 * A_BUF)
        b_s = shared_like(a, 2 * B_BUF)
        acc = local_array_like(a, 64)
        av = local_array_like(a, 8)
        bv = local_array_like(a, 8)
        ra = local_array_like(a, 4)
        rb = local_array_like(a, 4)
        for q in unroll(range(64)):
            acc[q] = 0.0
        _fetch(a, b, ra, rb, z, m, k, n, i0, j0, 0, lane)
        _stash(a_s, b_s, ra, rb, 0, lane)
        barrier()
        for p0 in range(0, k, 8):
            buf = (p0 // 8) % 2
            _fetch(a, b, ra, rb, z, m, k, n, i0, j0, p0 + 8, lane)
            _slab(a_s, b_s, acc, av, bv, buf, lane // 16, lane % 16)
            _stash(a_s, b_s, ra, rb, 1 - buf, lane)
            barrier()
        for q in unroll(range(64)):
            i = i0 + 4 * (lane // 16) + q // 8 % 4 + 64 * (q // 32)
            j = j0 + 4 * (lane % 16) + q % 4 + 64 * (q % 8 // 4)
            if i < m and j < n:
                c[(z * m + i) * n + j] = acc[q]


def _run(op: str, a, b, ranks, out, precision):
    dev = _args.device()
    aa = _args.as_array(op, "a", a, dev)
    ba = _args.as_array(op, "b", b, dev)
    _args.same_dtype(op, aa, b=ba)
    precision = _args.precision(op, precision, aa)
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
    if (_args.half(aa) or precision == "tf32") and runs_mma(dev):
        # tensor cores: every half value is a TF32 value, so a half "tf32" is its "ieee"; an
        # f32 "tf32" is rounded by tack.mma itself (ops/matmul_mma.py), or in the copies the
        # Hopper kernels read (ops/matmul_wgmma.py, where the device asks for the warpgroup
        # MMA: CUDA sm_90, tack.device("sim", sm=90)), as here
        c = _args.apart(out, {"a": aa, "b": ba})
        total = max(aa.size, ba.size, out.size) + 256 * (m + n + k + 8) * z  # past the edges
        path = matmul_wgmma if runs_wgmma(dev) else matmul_mma
        path.run(aa, ba, c, z, m, k, n, lambda *v: _args.sizes(total, *v))
        return _args.deliver(c, out)
    if _args.half(aa):  # f32 dot products on an f32 copy, rounded once; every half value is a
        # TF32 value, so "tf32" rounds nothing and takes the same path
        wide = _run(op, _args.widened(aa), _args.widened(ba), ranks, None, "ieee")
        return _args.narrowed(wide, out)
    total = max(aa.size, ba.size, out.size) + 64 * (m + n + k) * z
    c = _args.apart(out, {"a": aa, "b": ba})  # every element of C reads a row of A, a column of B
    aa, ba = _precision.operands(precision, op, aa, ba)
    args = (aa, ba, c) + _args.sizes(total, z, m, k, n)
    if _args.workgroups(dev):
        _tiled(*args)
    else:
        matmul_cpu.run(aa, ba, c, z, m, k, n)
    return _args.deliver(c, out)


def matmul(a, b, out=None, precision="ieee"):
    """a @ b for 2-D a (m, k) and b (k, n). `precision="tf32"` rounds every element of float32
    a and b to TF32 (`tack.tf32`) before its products, which accumulate in float32 as with the
    default "ieee" (docs/ops.md, "Precision")."""
    return _run("matmul", a, b, (2,), out, precision)


def batched_matmul(a, b, out=None, precision="ieee"):
    """a[z] @ b[z] for 3-D a (batch, m, k) and b (batch, k, n); `precision` as for `matmul`."""
    return _run("batched_matmul", a, b, (3,), out, precision)
