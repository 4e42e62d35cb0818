"""Barrier findings from the simulator: lanes at different barriers, lanes that left a loop
early, and a kernel the contract refuses although every lane arrives (advisory: "review")."""
import inspect

import numpy as np
import pytest
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


@tack.kernel
def skip_iteration(x, out, n):
    for i in range(n):
        acc = 0.0
        for k in range(4):
            if x[i] > 3.0 and k == 2:
                continue
            acc += x[i]
            tack.barrier()
        out[i] = acc


@tack.kernel
def end_launch_index(x, out, n):
    for i in range(n):
        if x[i] > 3.0:
            continue
        tack.barrier()
        out[i] = x[i]


@tack.func
def halve_unless_big(x, i):
    if x[i] > 3.0:
        return 0.0
    tack.barrier()
    return x[i] * 0.5


@tack.kernel
def early_return(x, out, n):
    for i in range(n):
        out[i] = halve_unless_big(x, i)


@tack.kernel
def lane_while(x, out, n):
    for i in range(n):
        k = 0.0
        while k < x[i]:
            tack.barrier()
            k += 1.0
        out[i] = k


def line_of(fn, text: str) -> int:
    src, first = inspect.getsourcelines(fn)
    return next(first + n for n, line in enumerate(src) if text in line)


# (kernel, how, the diverging branch's text, the break/continue's text, the loop's text)
DIVERGING = [
    (early_exit, "break", "if x[i] > 3.0 and k == 2", "break", "for k in"),
    (skip_iteration, "continue", "if x[i] > 3.0 and k == 2", "continue", "for k in"),
    (end_launch_index, "exit", "if x[i] > 3.0", "continue", None),
    (early_return, "branch", "if x[i] > 3.0", None, None),
    (lane_while, "loop", "while k < x[i]", None, None),
]


@pytest.mark.parametrize("kernel, how, branch, statement, loop", DIVERGING,
                         ids=[d[0].name for d in DIVERGING])
def test_a_finding_names_where_the_lanes_diverged(kernel, how, branch, statement, loop):
    """The `if` holding a break/continue/return (or the loop whose condition ended), as data
    and in the printed report, beside the barrier and the loop that was left."""
    x = tack.array(np.arange(512, dtype=np.float32) % 7)  # lanes differ inside every group
    r = tack.check(kernel, x, tack.zeros(512), 512)
    (f,) = r.of_kind("barrier")
    fn = halve_unless_big.fn if kernel is early_return else kernel.fn
    d = f.diverged
    assert d["how"] == how and d["branch"][1] == line_of(fn, branch)
    assert (d["statement"] and d["statement"][1]) == (statement and line_of(fn, statement))
    assert (d["loop"] and d["loop"][1]) == (loop and line_of(fn, loop))
    assert f.locations[0][1] == line_of(fn, "tack.barrier()")
    assert f.locations[1] == d["branch"] and f.to_dict()["diverged"]["branch"] == list(
        d["branch"])
    assert "diverged at " in f.message and f":{d['branch'][1]}:" in f.message
    assert branch in r.text()  # the report prints the branch's source line
