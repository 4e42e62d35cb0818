"""tack.ops for Julia users: `julia/kernels/<op>.jl`, each op's Tack kernels rendered for
KernelAbstractions.jl with bridge functions (`tack_softmax!(y, x; dims = 1)`, ...) that run
on any KernelAbstractions backend in Julia's own array layout, and the checks that keep them
right without a Julia.

* `python -m tack.julia render [DIR]` writes the files (default julia/kernels);
* `python -m tack.julia validate FILE...` parses each with tree-sitter-julia and checks what
  can be checked without Julia (`validate`).

See docs/julia.md, "tack.ops from Julia".
"""
from .ops_table import OP_FILES, OPS
from .render_ops import render_file, write_all

__all__ = ["OPS", "OP_FILES", "render_file", "write_all"]
