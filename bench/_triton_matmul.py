"""A Triton matmul as a peer of `tack.ops.matmul` in `bench/ops.py --gpu`.

Written the way Triton's own tutorial matmul is (https://triton-lang.org/main/getting-started/
tutorials/03-matrix-multiplication.html): program ids grouped along M so that neighbouring
programs share B's column tiles in L2, a K loop of masked tile loads and `tl.dot` into an f32
accumulator, and Triton's autotuner choosing among a few block shapes. Its precision is asked for
explicitly (`input_precision="ieee"` for the f32 rows, `"tf32"` for the TF32 row), so each row
compares Tack with a Triton kernel doing the same arithmetic.

It imports without Triton (`AVAILABLE` says whether the kernel exists); `bench/ops.py` adds the
peer where Triton and PyTorch are installed and a GPU is in use.
"""

try:
    import triton
    import triton.language as tl
except ImportError:  # the CPU rows, and machines without Triton
    triton = None
AVAILABLE = triton is not None

if AVAILABLE:
    # (BLOCK_M, BLOCK_N, BLOCK_K, warps, stages): shapes of Triton's tutorial and Hopper examples
    _CONFIGS = [
        triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP": 8}, num_warps=w, num_stages=s)
        for bm, bn, bk, w, s in [
            (128, 256, 64, 8, 3), (128, 128, 64, 4, 4), (128, 128, 32, 4, 4),
            (64, 128, 32, 4, 4), (128, 64, 32, 4, 4), (64, 64, 32, 4, 5),
        ]
    ]

    @triton.autotune(configs=_CONFIGS, key=["M", "N", "K", "PRECISION"])
    @triton.jit
    def _matmul(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
                PRECISION: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                GROUP: tl.constexpr):
        pid = tl.program_id(0)
        grid_m = tl.cdiv(M, BM)
        grid_n = tl.cdiv(N, BN)
        per_group = GROUP * grid_n
        first_m = (pid // per_group) * GROUP
        rows = min(grid_m - first_m, GROUP)
        pid_m = first_m + (pid % per_group) % rows
        pid_n = (pid % per_group) // rows
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        pa = a + rm[:, None] * sam + rk[None, :] * sak
        pb = b + rk[:, None] * sbk + rn[None, :] * sbn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            x = tl.load(pa, mask=(rm[:, None] < M) & (rk[None, :] + k0 < K), other=0.0)
            y = tl.load(pb, mask=(rk[:, None] + k0 < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(x, y, acc, input_precision=PRECISION)
            pa += BK * sak
            pb += BK * sbk
        pc = c + rm[:, None] * scm + rn[None, :] * scn
        tl.store(pc, acc.to(c.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(p, q, precision: str):
    """p @ q of two 2-D torch CUDA tensors, in p's dtype, accumulated in f32; `precision` is
    "ieee" or "tf32" for f32 inputs (half products are exact either way)."""
    if precision not in ("ieee", "tf32"):
        raise ValueError(f"precision is 'ieee' or 'tf32', not {precision!r}")
    (m, k), (k2, n) = p.shape, q.shape
    if k != k2:
        raise ValueError(f"inner dimensions differ: {p.shape} @ {q.shape}")
    out = p.new_empty((m, n))

    def grid(meta):
        return (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)
    _matmul[grid](p, q, out, m, n, k, p.stride(0), p.stride(1), q.stride(0), q.stride(1),
                  out.stride(0), out.stride(1), PRECISION=precision)
    return out
