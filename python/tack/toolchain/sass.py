"""SASS, the GPU's machine code: a cubin disassembled by the CUDA toolkit's `cuobjdump` or
`nvdisasm`, whichever is found first (what `tack.inspect(..., mode="sass")` shows).

The tools are looked for on PATH, then in the toolkit's `bin` folder (CUDA_HOME, CUDA_PATH,
/usr/local/cuda) and in the NVIDIA wheels' `bin` folders (`pip install nvidia-cuda-cuobjdump`
puts it in site-packages/nvidia/cu13/bin, off PATH). Neither found: TackRuntimeError naming both.
"""
from __future__ import annotations

import glob
import os
import shutil
import site
import sys

from ..errors import TackRuntimeError

# Each disassembler and the arguments before the cubin's path: cuobjdump prints "Function : name"
# above each kernel's code; nvdisasm labels it ".text.name:".
TOOLS = (("cuobjdump", ("-sass",)), ("nvdisasm", ()))
TIMEOUT_S = 120
DEFAULT_ROOT = "/usr/local/cuda"  # the toolkit's usual home, after CUDA_HOME and CUDA_PATH


class MissingToolError(TackRuntimeError):
    """A program of the CUDA toolkit that a stage needs is not installed (`tack.inspect`'s
    `outdir` writes the other stages and warns)."""


def find_tool(name: str) -> str | None:
    """The path of the toolkit program `name` (PATH, the toolkit's bin, the wheels'), or None."""
    found = shutil.which(name)
    if found:
        return found
    roots = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")] + [DEFAULT_ROOT]
    candidates = [os.path.join(r, "bin", name) for r in roots if r]
    for d in package_dirs():
        for pat in ("nvidia/cu*/bin", "nvidia/cuda_cuobjdump/bin", "nvidia/cuda_nvdisasm/bin"):
            candidates += sorted(glob.glob(os.path.join(d, pat, name)))
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def package_dirs() -> list[str]:
    """Where pip puts packages (the NVIDIA wheels): site-packages and the import path."""
    return [*getattr(site, "getsitepackages", list)(), *sys.path]


def disassembler() -> tuple[str, tuple[str, ...]]:
    """(path, arguments) of the first disassembler found; TackRuntimeError if there is none."""
    for name, flags in TOOLS:
        path = find_tool(name)
        if path is not None:
            return path, flags
    raise MissingToolError(
        "inspect mode 'sass' needs the CUDA toolkit's disassembler, cuobjdump or nvdisasm, and "
        "neither is on PATH (nor in CUDA_HOME/bin, /usr/local/cuda/bin or the NVIDIA wheels): "
        "add the toolkit's bin folder to PATH, or pip install nvidia-cuda-cuobjdump")


def disassemble(cubin: bytes, entry: str) -> str:
    """The SASS text of `cubin` (the linked machine code of kernel `entry`)."""
    import subprocess  # loaded on first use: `import tack` (inspection imports this module)
    import tempfile  # stays cheap

    tool, flags = disassembler()
    with tempfile.TemporaryDirectory(prefix="tack-sass-") as tmp:
        path = os.path.join(tmp, f"{entry}.cubin")
        with open(path, "wb") as f:
            f.write(cubin)
        try:
            done = subprocess.run([tool, *flags, path], capture_output=True, text=True,
                                  timeout=TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise TackRuntimeError(f"{tool} could not disassemble kernel '{entry}': {exc}") from exc
    if done.returncode != 0:
        raise TackRuntimeError(f"{tool} could not disassemble kernel '{entry}' (exit status "
                               f"{done.returncode}): {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout
