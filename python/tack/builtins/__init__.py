"""The builtin registry: every name a kernel body can call, each declared once.

One `Builtin` entry (`entry.py`) holds a builtin's name, call form and arity, the parser form and
typing rule that read it, the dtypes it takes, the `Op` it becomes, its constant folding, its
lowering on each engine (LLVM for the CPU, NVPTX/libdevice for CUDA, the simulator's NumPy
function, the Julia template) and its documentation line: the idea of Warp's `add_builtin`
(https://github.com/NVIDIA/warp/blob/main/warp/_src/builtins.py), written for Tack's `Op` table.

- `functions.py`: the math functions (`sqrt`, `atan2`, ...). Each entry also *declares its Op*:
  `ir/ops.py` makes one `Op` member per entry (the name upper-cased), so adding a math function
  is one `add_function` call plus its tests; every stage reads the rest from the entry.
- `registry.py`: `REGISTRY`, the one table the parser, the typechecker, the passes, the renderers
  and the simulator read: the math functions with their `Op`, the conversions and arithmetic
  builtins (`abs`, `min`, `int`, `tack.f32`, ...), `any`/`all`/`print`, and the device functions
  (`tack.atomic_add`, `tack.shared`, `tack.barrier`, ...).
- `host.py`: what the builtins are on the host (`from tack import sqrt`, `math.sqrt` in a kernel).
  The device functions' host objects (`tack.atomic_add`) are made from their entries by
  `tack/intrinsics.py`, outside this package (`Builtin.intrinsic` says which entries).
- `docs.py`: `docs/builtins.md`, generated (`python -m tack.builtins > docs/builtins.md`).

A device function that is structurally an IR op or statement with much renderer code of its own
(atomics, scratch arrays, `barrier`, `thread_id`) has its parsing, typing and documentation here
and names its `Op` (or statement); the renderers keep that op's lowering in their printers.

This package sits beside `tack.ir` (layer 1, docs/design/006-layers.md): it imports only
`tack.ir.ops`, `tack.dtypes` and `tack.errors`, never the frontend, the passes or a renderer. This
`__init__` imports nothing, so that `ir/ops.py` can read `functions.py` without a cycle.
"""
