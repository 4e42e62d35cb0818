"""Print the table of `random.seed(index, stream)` states that julia/test/test_random_bits.jl
checks its Julia port against, computed by Tack's NumPy mirror of the generator
(python/tack/lib/random.py). tests/julia/test_random_table.py checks that the file holds exactly
this output; after a generator change, paste it over the old table.

    python julia/tools/pcg_table.py
"""
from tack.lib.random import np_advance, np_seed

CASES = [(0, 0), (1, 0), (5, 123456), (1024, 123456), (2**31 - 1, 7), (2**32 - 1, 2**32 - 1)]


def table() -> str:
    rows = [f"    ({i}, {s}, 0x{int(np_seed(i, s)):08x}, 0x{int(np_advance(s)):08x}),"
            for i, s in CASES]
    head = "# (index, stream, seed(index, stream), advance(stream)) from julia/tools/pcg_table.py"
    return "\n".join([head, "const PCG_TABLE = [", *rows, "]"])


if __name__ == "__main__":
    print(table())
