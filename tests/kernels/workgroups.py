"""GPU-style kernels on workgroups: block reductions, thread ids, shared memory with barriers, the
tiled n-body, global and shared atomics. Run on CUDA by tests/cuda/test_cuda_workgroups.py, on
the simulator by tests/sim/test_workgroups.py, compared between the two by
tests/cuda/test_sim_vs_cuda.py and checked by tests/check/test_no_false_positives.py."""
import tack


@tack.kernel
def block_reduce(data, partial_sums, n):
    for i in range(n):
        smem = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        smem[tid] = data[i]
        tack.barrier()
        stride = 128
        while stride > 0:
            if tid < stride:
                smem[tid] = smem[tid] + smem[tid + stride]
            tack.barrier()
            stride = stride // 2
        if tid == 0:
            partial_sums[i // 256] = smem[0]


@tack.kernel
def lanes(out, n):
    for i in range(n):
        out[i] = tack.thread_id()


@tack.kernel
def reverse_in_block(x, out, n):
    for i in range(n):
        buf = tack.shared_like(x, 256)
        tid = tack.thread_id()
        buf[tid] = x[i]
        tack.barrier()
        out[i] = buf[255 - tid]


@tack.kernel
def nbody_tiled(pos, acc, n, eps2):
    for i in range(n):
        tile = tack.shared(tack.f32, 1024)
        tid = tack.thread_id()
        xi = pos[i, 0]
        yi = pos[i, 1]
        zi = pos[i, 2]
        ax = 0.0
        ay = 0.0
        az = 0.0
        for base in range(0, n, 256):
            for c in range(4):
                tile[4 * tid + c] = pos[base + tid, c]
            tack.barrier()
            for j in range(256):
                dx = tile[4 * j] - xi
                dy = tile[4 * j + 1] - yi
                dz = tile[4 * j + 2] - zi
                r2 = dx * dx + dy * dy + dz * dz + eps2
                inv = 1.0 / sqrt(r2)  # noqa: F821 - a kernel builtin
                s = tile[4 * j + 3] * inv * inv * inv
                ax += dx * s
                ay += dy * s
                az += dz * s
            tack.barrier()
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az


@tack.kernel
def histogram(data, bins, n):
    for i in range(n):
        tack.atomic_add(bins, int(data[i] * 10.0), 1)


@tack.kernel
def compact(values, out, count, n):
    for i in range(n):
        if values[i] > 0.0:
            slot = tack.atomic_add(count, 0, 1)
            out[slot] = values[i]


@tack.kernel
def extremes(x, lo, hi, old_lo):
    for i in range(x.shape[0]):
        old_lo[i] = tack.atomic_min(lo, 0, x[i])
        tack.atomic_max(hi, 0, x[i])


@tack.kernel
def shared_histogram(data, bins, n):
    for i in range(n):
        local = tack.shared(tack.i32, 16)
        tid = tack.thread_id()
        if tid < 16:
            local[tid] = 0
        tack.barrier()
        tack.atomic_add(local, data[i] % 16, 1)
        tack.barrier()
        if tid < 16:
            tack.atomic_add(bins, tid, local[tid])


@tack.kernel
def scan_in_block(x, out, n):
    for i in range(n):
        buf = tack.shared(tack.i64, 256)
        tid = tack.thread_id()
        buf[tid] = x[i]
        tack.barrier()
        offset = 1
        while offset < 256:
            v = buf[tid]
            if tid >= offset:
                v = v + buf[tid - offset]
            tack.barrier()
            buf[tid] = v
            tack.barrier()
            offset = offset * 2
        out[i] = buf[tid]
