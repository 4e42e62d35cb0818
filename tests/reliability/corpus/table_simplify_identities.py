"""The simplifier's identities (passes/simplify.py): the index arithmetic of an array access keeps
no `+ 0` or `* 1` (`y[i, 0]` was `y[(i * 3 + 0)]`), and a float identity is applied only where
IEEE 754 gives the value itself for every value: `x * 1.0 - 0.0` is x, -0.0 included, while
`x + 0.0` still turns -0.0 into +0.0, on the CPU and the simulator."""
from __future__ import annotations

from .case import Case

_SETUP = '''
import re

@tack.kernel
def gather(x, y, n):
    for i in range(n):
        y[i, 0] = x[i, 1] * 1 + x[i, 0] * 1.0 - 0.0

@tack.kernel
def plus_zero(x, y):
    for i in range(x.shape[0]):
        y[i] = x[i] + 0.0
        y[i + x.shape[0]] = x[i] * 1.0 - 0.0

xs = np.array([-0.0, 0.0, -1.5, np.inf], np.float32)
'''

_NO_IDENTITY = '''
body = [line for line in text.splitlines() if "] =" in line]
assert body, text
bad = [line for line in body if re.search(r"[-+] 0(\\.0)?:|\\* 1(\\.0)?:", line)]
assert not bad, bad
'''

_SIGNS = '''
got = y.numpy()
assert [bool(np.signbit(v)) for v in got[:4]] == [False, False, True, False], got
assert [bool(np.signbit(v)) for v in got[4:]] == [True, False, True, False], got
assert np.array_equal(got, np.concatenate([xs + np.float32(0.0), xs])), got
'''


def _cases() -> list[Case]:
    rows = [Case("simplify/index-arithmetic-keeps-no-identity",
                 "text = tack.inspect(gather, tack.zeros((5, 3), device='cpu'), "
                 "tack.zeros((5, 3), device='cpu'), 5, mode='ir')",
                 None, _SETUP, check=_NO_IDENTITY, quick=True,
                 note="linearize's row * stride + 0 and a user's * 1 were printed and rendered "
                      "as they were")]
    for dev in ("cpu", "sim"):
        rows.append(Case(f"simplify/float-identities-keep-signed-zeros-{dev}",
                         f"y = tack.zeros(8, device={dev!r}); "
                         f"plus_zero(tack.array(xs, device={dev!r}), y)",
                         None, _SETUP, check=_SIGNS, quick=dev == "cpu",
                         note="x * 1.0 - 0.0 is x for every x; x + 0.0 is not (-0.0 + 0.0 is "
                              "+0.0), so it must stay"))
    return rows


CASES = _cases()
