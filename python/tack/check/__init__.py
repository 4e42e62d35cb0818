"""`tack.check`: run a launch on the simulator and find races, barrier misuse, out-of-bounds
indices and uninitialized reads (docs/checking.md).

`tack.check(kernel, *args)` checks one launch and returns a `tack.CheckReport`;
`python -m tack.check script.py` and `TACK_CHECK=1` check every launch of a program. The
simulator (tack.runtime.sim) loads at the first check, not at `import tack`.
"""
from .findings import Finding
from .report import CheckError, CheckReport
from .run import check
from .session import install_from_env

__all__ = ["CheckError", "CheckReport", "Finding", "check"]

install_from_env()
