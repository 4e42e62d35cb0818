"""A program with one racy kernel and one clean one, for `python -m tack.check` and TACK_CHECK."""
import sys

import numpy as np
import tack


@tack.kernel
def reverse_racy(x, out, n):
    for i in range(n):
        buf = tack.shared(tack.f32, 256)
        tid = tack.thread_id()
        buf[tid] = x[i]
        out[i] = buf[255 - tid]


@tack.kernel
def double(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * 2.0


@tack.kernel
def mean(x, acc) -> tack.f64:
    n = x.shape[0]
    for i in range(n):
        tack.atomic_add(acc, 0, x[i])
    return acc[0] / n


x = tack.array(np.arange(512, dtype=np.float32))
out = tack.empty(512)
runs = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 1
for _ in range(runs):
    double(x, out)
print("double ok", bool((out.numpy() == 2 * np.arange(512)).all()))
print("mean", mean(x, tack.zeros(1)))
if "--racy" in sys.argv:
    reverse_racy(x, out, 512)
    print("racy ran", float(out.numpy()[0]))
