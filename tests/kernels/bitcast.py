"""`tack.bitcast` kernels: f32 and f64 bits read as unsigned and signed integers and back. Run on
every engine by tests/exec/test_bitcast.py, rendered by tests/render and tests/julia."""
from __future__ import annotations

import tack


@tack.kernel
def bits32(x, u, i, back):
    for j in range(x.shape[0]):
        b = tack.bitcast(x[j], tack.u32)
        u[j] = b
        i[j] = tack.bitcast(x[j], tack.i32)
        back[j] = tack.bitcast(b, tack.f32)
