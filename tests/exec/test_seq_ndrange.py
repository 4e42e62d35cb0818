"""`tack.ndrange(...)` as a sequential loop inside the parallel loop, and
`for c in obj` over a device class with `__tack_iterate__` as a sequential loop (docs/language.md,
"Statements inside the loop")."""
import pytest
import tack


@tack.device_class
class Grid:
    __tack_iterate__ = ("nx", "ny")

    def __init__(self, nx, ny):
        self.nx = nx
        self.ny = ny


@tack.device_class
class Line:
    __tack_iterate__ = "n"

    def __init__(self, n):
        self.n = n


@tack.kernel
def nested(out, g, line):
    for t in range(out.shape[0]):
        s = 0
        for i, j in tack.ndrange(3, (1, 4)):
            s += i * 10 + j
        out[t, 0] = s
        c = 0
        for i, j in tack.ndrange(3, 3):
            if i * 3 + j == 5:
                break  # leaves both levels
            c += 1
        out[t, 1] = c
        q = 0
        for cell in g:
            q += cell[0] + 100 * cell[1]
        out[t, 2] = q
        w = 0
        for i, j, k in tack.ndrange(2, 3, 2):
            if j == 1:
                continue
            w += 1
        out[t, 3] = w
        n = 0
        for x in line:
            n += x
        out[t, 4] = n + t


@tack.kernel
def bad_targets(out):
    for t in range(out.shape[0]):
        for i in tack.ndrange(2, 2):
            out[t] = i


def test_sequential_ndrange_and_object_loops(engine):
    out = tack.zeros((2, 5), tack.i32)
    nested(out, Grid(2, 3), Line(4))
    assert out.numpy().tolist() == [[108, 5, 603, 8, 6], [108, 5, 603, 8, 7]]


def test_sequential_ndrange_target_mismatch(engine):
    with pytest.raises(tack.UnsupportedSyntaxError, match=r"ndrange loop with 1 target\(s\) "
                                                          r"for its 2 argument\(s\)") as e:
        bad_targets(tack.zeros(2, tack.i32))
    assert e.value.loc.source_line() == "        for i in tack.ndrange(2, 2):"
