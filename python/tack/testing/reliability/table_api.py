"""Bad inputs at the public API: arguments, decoration, kernel bodies, arrays and settings.

Rows are generated from the small tables below (one value or construct per line), each group
by one function; `CASES` is their concatenation."""
from __future__ import annotations

from .case import Case

# A kernel that reads `x` and writes `out`, the arrays every argument row passes around it.
_COPY = '''
@tack.kernel
def k(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * 2.0
x = tack.array(np.arange(8, dtype=np.float32))
out = tack.zeros(8, tack.f32)
'''

# Values that are not arguments a kernel takes: (label, Python expression).
_BAD_ARGS = [
    ("str", "'abc'"), ("none", "None"), ("list", "[1.0, 2.0]"), ("tuple", "(1, 2)"),
    ("dict", "{}"), ("object", "object()"), ("complex", "1j"), ("bytes", "b'ab'"),
    ("numpy-array", "np.zeros(8, np.float32)"), ("int-too-big", "2**64"),
    ("int-too-small", "-2**63 - 1"), ("set", "{1}"), ("function", "len"),
    ("module", "np"), ("type", "int"), ("slice", "slice(1)"),
    ("np-complex", "np.complex64(1)"), ("np-f16", "np.float16(1)"),
    ("np-str", "np.str_('a')"), ("ellipsis", "..."),
]


def _arguments() -> list[Case]:
    """Each bad value in the array position and in the output position."""
    out = []
    for label, expr in _BAD_ARGS:
        out.append(Case(f"api/arg/x-{label}", f"k({expr}, out)", "TypeError", _COPY,
                        mentions=("'k'", "'x'"), unchanged=("out",), quick=label == "str"))
        out.append(Case(f"api/arg/out-{label}", f"k(x, {expr})", "TypeError", _COPY,
                        mentions=("'k'", "'out'"), unchanged=("x",)))
    return out


CASES: list[Case] = [*_arguments()]
