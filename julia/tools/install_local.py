"""Install the private Julia 1.5.3 that Tack's Julia test tier runs on; prints the launcher's path.

    python3 julia/tools/install_local.py [--dir DIR] [--force]

A test tool, not how users get Julia (docs/julia.md, "Running the Julia tier here"). The code is
python/tack/testing/julia/install.py (standard library only), run here without importing Tack.
"""
import runpy
from pathlib import Path

INSTALL = Path(__file__).resolve().parents[2] / "python" / "tack" / "testing" / "julia" / "install.py"

if __name__ == "__main__":
    runpy.run_path(str(INSTALL), run_name="__main__")
