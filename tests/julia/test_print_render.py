"""print() renders as KA's @print: items separated by spaces, a newline, escaped literals."""
import tack

from tests.julia.test_render import literal_problems, parse_problems


@tack.kernel
def debug_kernel(data, n):
    for i in range(n):
        if i < 3:
            print("val:", data[i], "$x \"q\" 100%", i)


def test_print_renders_and_parses(jl_parser):
    text = tack.inspect(debug_kernel, tack.zeros(4), 4, engine="julia")
    line = next(ln for ln in text.splitlines() if "@print(" in ln)
    assert '@print("val:", " ", data[' in line
    assert '"\\$x \\"q\\" 100%", " ", i, "\\n")' in line
    assert parse_problems(jl_parser, text) == []
    assert literal_problems(jl_parser, text) == []
