"""Tack's Julia test tier on a Julia that juliacall cannot serve (Julia 1.5.3 from Debian).

* `launcher_path()` — the launcher of the private Julia 1.5.3 that
  `python3 julia/tools/install_local.py` installs, None when it is not installed;
* `process.JuliaProcess` — one Julia process evaluating code for Python, restarted after a crash;
* `juliacall_pipe.juliacall_module` — a `juliacall` stand-in over that process, so that Tack's
  Julia engine runs unchanged (`tack.set_default_device("cpu", engine="julia")`);
* `differential` — generated kernels on the Julia tier against the native CPU engine.

Kernels run on KernelAbstractions' CPU semantics through Tack's stand-in (julia/test/standin)
where the real package is absent. See docs/julia.md, "Running the Julia tier here".
"""
import importlib.util
from pathlib import Path

# The installer is a standalone script (standard library only, run before Tack is installed);
# loaded by its path, it also says where it installs.
_INSTALLER = Path(__file__).resolve().parents[3] / "julia" / "tools" / "install_local.py"
_spec = importlib.util.spec_from_file_location("tack_julia153_installer", _INSTALLER)
install = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(install)

VERSION = install.VERSION
launcher_path = install.launcher_path
SKIP_REASON = f"not run: Julia {VERSION} not installed (python julia/tools/install_local.py)"

__all__ = ["SKIP_REASON", "VERSION", "install", "launcher_path"]
