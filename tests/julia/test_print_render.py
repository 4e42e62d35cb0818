"""print() renders as KA's @print: items separated by spaces, a newline, escaped literals; and,
because KA 0.10's @print is printf on every backend, a literal % doubled and narrow values widened
to a type printf takes (Int8 would print as a character, UInt8 would be dropped)."""
import re
import subprocess

import numpy as np
import pytest
import tack

from tests.engines import julia153
from tests.julia.golden import ROOT
from tests.julia.jl_checks import literal_problems, parse_problems
from tests.julia.julia153 import SKIP_REASON


@tack.kernel
def debug_kernel(data, n):
    for i in range(n):
        if i < 3:
            print("val:", data[i], "$x \"q\" 100%", i)


@tack.kernel
def narrow_print(a, b, c, d, e, n):
    for i in range(n):
        print("100% of", a[i], b[i], a[i] < 0, c[i], d[i], e[i], "%d")


def _narrow_args():
    return (tack.array(np.array([-5, 7], np.int8)), tack.array(np.array([250, 3], np.uint8)),
            tack.array(np.array([-300, 2], np.int16)), tack.array(np.array([65535, 1], np.uint16)),
            tack.array(np.array([-2**40, 9], np.int64)), 2)


def _print_line(text: str) -> str:
    return next(ln for ln in text.splitlines() if "@print(" in ln)


def test_print_renders_and_parses(jl_parser):
    text = tack.inspect(debug_kernel, tack.zeros(4), 4, engine="julia")
    line = _print_line(text)
    assert '@print("val:", " ", data[' in line
    assert '"\\$x \\"q\\" 100%%", " ", i, "\\n")' in line
    assert parse_problems(jl_parser, text) == []
    assert literal_problems(jl_parser, text) == []


def test_print_widens_narrow_values_and_escapes_percent(jl_parser):
    text = tack.inspect(narrow_print, *_narrow_args(), engine="julia")
    line = _print_line(text)
    items = line[line.index("@print(") + len("@print("):line.rindex(")  #")].split(', " ", ')
    assert items[0] == '"100%% of"' and items[-1] == '"%%d", "\\n"'
    assert re.fullmatch(r"Int32\(a\[.*\]\)", items[1])     # Int8 is Cchar: %c
    assert re.fullmatch(r"UInt32\(b\[.*\]\)", items[2])    # UInt8 has no specifier
    assert re.fullmatch(r"Int32\(\(a\[.*\] % Int32\) < Int32\(0\)\)", items[3])   # Bool
    for item in items[4:7]:                               # Int16, UInt16, Int64: as they are
        assert re.fullmatch(r"[cde]\[\(i % Int64\) \+ 1\]", item)
    assert parse_problems(jl_parser, text) == []
    assert literal_problems(jl_parser, text) == []


@pytest.mark.julia
def test_print_runs_as_printf_on_julia153(tmp_path):
    """The rendered kernel on the Julia 1.5.3 tier, whose stand-in @print is printf as KA 0.10's:
    each value printed as its number, the literal % once, one line per work-item."""
    launcher = julia153()
    if launcher is None:
        pytest.skip(SKIP_REASON)
    text = tack.inspect(narrow_print, *_narrow_args(), engine="julia")
    name = re.search(r"@kernel function (\w+)\(", text)[1]
    script = tmp_path / "print.jl"
    script.write_text(f"""
include(joinpath("{ROOT}", "julia", "test", "standin", "load.jl"))
include(joinpath("{ROOT}", "julia", "src", "TackRuntime.jl"))
using KernelAbstractions, .TackRuntime
{text}
{name}(CPU(), 1)(Int8[-5, 7], UInt8[250, 3], Int16[-300, 2], UInt16[65535, 1],
                 Int64[-2^40, 9], Int32(2), Int64(2), ndrange = 2)
""")
    r = subprocess.run([launcher, "--startup-file=no", str(script)], capture_output=True,
                       text=True, timeout=600, check=False)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert r.stdout.splitlines() == ["100% of -5 250 1 -300 65535 -1099511627776 %d",
                                     "100% of 7 3 0 2 1 9 %d"]


@tack.kernel
def half_print(a, b, n):
    for i in range(n):
        print(a[i], b[i])


def test_print_takes_half_values_as_float32(jl_parser):
    """printf has no half specifier: f16 and bf16 values reach @print widened to Float32."""
    text = tack.inspect(half_print, tack.zeros(2, tack.f16), tack.zeros(2, tack.bf16), 2,
                        engine="julia")
    items = _print_line(text).split("@print(", 1)[1].split(', " ", ')
    assert re.fullmatch(r"Float32\(a\[.*\]\)", items[0])
    assert re.fullmatch(r"tk_f32\(b\[.*\]\), \"\\n\"\)  # .*", items[1])
    assert parse_problems(jl_parser, text) == []
