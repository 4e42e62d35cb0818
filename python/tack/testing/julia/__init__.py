"""Tack's Julia test tier on a Julia that juliacall cannot serve (Julia 1.5.3 from Debian).

* `install` — the private Julia 1.5.3 (`python3 julia/tools/install_local.py`) and
  `launcher_path()`, None when it is not installed;
* `process.JuliaProcess` — one Julia process evaluating code for Python, restarted after a crash;
* `juliacall_pipe.juliacall_module` — a `juliacall` stand-in over that process, so that Tack's
  Julia engine runs unchanged (`tack.set_default_device("cpu", engine="julia")`);
* `differential` — generated kernels on the Julia tier against the native CPU engine.

Kernels run on KernelAbstractions' CPU semantics through Tack's stand-in (julia/test/standin)
where the real package is absent. See docs/julia.md, "Running the Julia tier here".
"""
from .install import VERSION, launcher_path

SKIP_REASON = (f"not run: Julia {VERSION} not installed (python julia/tools/install_local.py)")

__all__ = ["SKIP_REASON", "VERSION", "launcher_path"]
