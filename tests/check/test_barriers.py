"""Barrier findings from the simulator: lanes at different barriers, lanes that left a loop
early, and a kernel the contract refuses although every lane arrives (advisory: "review")."""
import inspect

import numpy as np
import tack


@tack.kernel
def two_barriers(x, out, n):
    for i in range(n):
        tid = tack.thread_id()
        if tid < 128:
            out[i] = x[i]
            tack.barrier()
        else:
            tack.barrier()
            out[i] = -x[i]


@tack.kernel
def early_exit(x, out, n):
    for i in range(n):
        acc = 0.0
        for k in range(8):
            if x[i] > 3.0 and k == 2:
                break
            acc += x[i]
            tack.barrier()
        out[i] = acc


@tack.kernel
def uniform_but_refused(x, out, n):
    for i in range(n):
        if tack.thread_id() < 256:
            tack.barrier()
        out[i] = x[i]


def args():
    return tack.array(np.arange(512, dtype=np.float32)), tack.zeros(512), 512


def test_lanes_at_different_barriers():
    r = tack.check(two_barriers, *args())
    src, first = inspect.getsourcelines(two_barriers.fn)
    branch = next(first + n for n, line in enumerate(src) if "if tid" in line)
    barriers = [first + n for n, line in enumerate(src) if "tack.barrier()" in line]
    found = r.of_kind("barrier")
    assert sorted(f.locations[0][1] for f in found) == barriers
    assert all(f.locations[1][1] == branch for f in found)


def test_lanes_that_left_a_loop():
    (f,) = tack.check(early_exit, *args()).of_kind("barrier")
    assert f.count == 1 and f.workgroups == (0,)  # group 1: every lane left together
    assert "lanes 4..255 did not arrive" in f.message


def test_a_refusal_without_divergence_is_advisory():
    r = tack.check(uniform_but_refused, *args())
    (f,) = r.findings
    assert r.verdict == "review" and f.severity == "advisory" and len(f.locations) == 2
    np.testing.assert_array_equal(r.outputs["out"], np.arange(512))
