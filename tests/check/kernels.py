"""Kernels the checking tests share: a store into an array that may be read-only, a read-only
array, and a kernel asking for more shared memory than a workgroup has."""
import numpy as np
import tack


@tack.kernel
def store_both(out, x, n):
    for i in range(n):
        out[i] = 2.0
        x[i] = 1.0


def read_only(h: np.ndarray) -> tack.Array:
    h = h.copy()
    h.flags.writeable = False
    a = tack.from_dlpack(h)
    assert a.readonly
    return a


@tack.kernel
def huge_shared(out, n):
    for i in range(n):
        s = tack.shared(tack.f64, 1 << 30)  # 8 GiB per workgroup
        tid = tack.thread_id()
        s[tid] = 1.0
        tack.barrier()
        out[i] = s[255 - tid]
