"""julia/test/test_random_bits.jl checks its Julia port of Tack's generator against a table that
julia/tools/pcg_table.py computes with the NumPy mirror (python/tack/lib/random.py); the file
must hold exactly that table, so the Julia check is anchored to Python's numbers."""
import runpy

from tests.julia.golden import ROOT


def test_julia_random_table_is_the_python_generators():
    table = runpy.run_path(str(ROOT / "julia" / "tools" / "pcg_table.py"))["table"]()
    text = (ROOT / "julia" / "test" / "test_random_bits.jl").read_text()
    assert table in text, f"paste `python julia/tools/pcg_table.py` into the file:\n{table}"
