"""Float → integer conversion kernels: a store converting to the array's dtype beside an explicit
cast. Run on every engine by tests/exec/test_float_to_int.py, rendered by tests/julia."""
from __future__ import annotations

import tack


@tack.kernel
def store_and_cast(x, stored, cast):
    for i in range(x.shape[0]):
        stored[i] = x[i]  # the store converts to the array's dtype
        cast[i] = tack.u8(x[i])
