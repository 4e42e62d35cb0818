"""`print` in the Julia renderer: KernelAbstractions 0.10's `@print` is printf on every backend,
so a literal `%` must reach it as `%%` and a value must have a type printf takes (Int8 is `Cchar`,
printed as a character; UInt8 has no specifier and is dropped). Each row renders a printing kernel
(`tack.inspect(..., engine="julia")`, no Julia needed) and checks the `@print` items
(docs/julia.md, "KernelAbstractions 0.10")."""
from __future__ import annotations

from .case import Case

_SETUP = """@tack.kernel
def k(a, n):
    for i in range(n):
        print({items})

a = tack.zeros(3, tack.{dtype})
line = next(ln for ln in tack.inspect(k, a, 3, engine="julia").splitlines() if "@print(" in ln)
"""

_ROWS = [  # (name, print items, element dtype, what the @print line must contain)
    ("percent", '"100%", a[i]', "f32", '"100%%"'),
    ("percent-only", '"%d %s %%"', "f32", '"%%d %%s %%%%"'),
    ("i8", "a[i]", "i8", "Int32(a["),
    ("u8", "a[i]", "u8", "UInt32(a["),
    ("bool", "a[i] < 0", "i32", "Int32(a["),
]


def _row(name: str, items: str, dtype: str, want: str) -> Case:
    return Case(f"julia-print/{name}", "line", None, _SETUP.format(items=items, dtype=dtype),
                check=f"assert {want!r} in line, line", quick=name == "percent",
                note="KA 0.10's printf @print took a literal % as a conversion and printed an "
                     "i8 as a character, dropped a u8")


CASES = [_row(*r) for r in _ROWS]
