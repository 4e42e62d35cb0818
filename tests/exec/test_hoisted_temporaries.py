"""Temporaries hoisted out of a statement's header (a runtime index into a tuple constant, an
atomic evaluated in order) stay in front of that statement when its body is a nested block:
an `if` whose condition indexes a constant, an `elif`, a loop whose bound does."""
import numpy as np
import tack

DX = tack.constant((0, 1, 1, 0))
STEPS = tack.constant((3, 0, 2, 5))


@tack.kernel
def in_if(out):
    for c in range(out.shape[0]):
        case = 0
        for k in range(4):
            if DX[k] > 0:
                case += 1 << k
        out[c] = case


@tack.kernel
def in_elif(out):
    for c in range(out.shape[0]):
        acc = 0
        for k in range(4):
            if k == 3:
                acc += 100
            elif STEPS[k] > DX[k]:
                acc += STEPS[k]
        out[c] = acc


@tack.kernel
def in_range_bound(out):
    for c in range(out.shape[0]):
        acc = 0
        for k in range(4):
            for j in range(STEPS[k]):
                acc += j + 1
        out[c] = acc


@tack.kernel
def atomic_in_condition(counter, out):
    for i in range(out.shape[0]):
        if tack.atomic_add(counter, 0, 1) >= 0:
            out[i] = 1


def _reference_elif():
    dx, steps = (0, 1, 1, 0), (3, 0, 2, 5)
    acc = 0
    for k in range(4):
        if k == 3:
            acc += 100
        elif steps[k] > dx[k]:
            acc += steps[k]
    return acc


def test_constant_index_in_headers(engine):
    for kern, want in ((in_if, 0b0110), (in_elif, _reference_elif()),
                       (in_range_bound, sum(s * (s + 1) // 2 for s in (3, 0, 2, 5)))):
        out = tack.zeros(5, tack.i32)
        kern(out)
        assert out.numpy().tolist() == [want] * 5, kern.__name__


def test_atomic_in_condition_runs_once_per_lane(engine):
    counter = tack.zeros(1, tack.i32)
    out = tack.zeros(37, tack.i32)
    atomic_in_condition(counter, out)
    assert counter.numpy()[0] == 37
    assert np.all(out.numpy() == 1)
