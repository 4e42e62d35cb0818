"""`docs/builtins.md`, generated from the registry: every name a kernel body can call, one row
each, grouped as the language reference groups them. `python -m tack.builtins > docs/builtins.md`
rewrites the page; tests/builtins/test_registry.py checks the checked-in page is this text.
"""
from __future__ import annotations

from .entry import Builtin, Lowering
from .registry import REGISTRY

# (group, title, what the section's names have in common)
GROUPS = (
    ("math", "Math functions",
     ("Called by name (no import), through `math`/`numpy` (`math.sqrt`, `np.arcsin`), or "
      "imported from `tack` (`from tack import sqrt`; from Python these compute with NumPy). "
      "Float operands: an integer argument converts to f32 (or to the other argument's float "
      "type). `pow` of two integers is the integer power.")),
    ("arithmetic", "Arithmetic",
     "Python's builtins, with Tack's integer and float rules (docs/language.md)."),
    ("conversions", "Conversions",
     ("`int`/`float` and the dtypes called as functions convert by CAST's rules (ir/ops.py); "
      "`tack.bitcast` keeps the bits.")),
    ("vectors", "Vectors, matrices and masks",
     ("Vectors and matrices are lowered to scalars by the typechecker (docs/language.md, "
      "\"Vectors and matrices\").")),
    ("loops", "Loops", "Iterables of a `for` statement, and nothing else."),
    ("statements", "Statements", "Calls that are statements of their own."),
    ("device", "Device functions",
     ("Called as `tack.<name>` inside a kernel; from Python they raise, naming themselves. "
      "Scratch arrays are declared by assignment (`s = tack.shared(tack.f32, 256)`).")),
)


def _spell(low: Lowering | None, engine: str) -> str:
    if low is None:
        return ""
    if low.kind == "library":
        stem = f"__nv_{low.name}" if engine == "CUDA" else low.name
        return f"{engine} `{stem}`/`{stem}f`"
    if low.kind == "printer":
        return f"{engine} printer `{low.name}`"
    if low.kind == "template":
        return f"{engine} `{low.name.split('(')[0]}`"
    return f"{engine} `{low.name}`"


def lowering_text(b: Builtin) -> str:
    """How each engine computes it: the entry's lowerings, or the op/statement it becomes."""
    if b.cpu or b.ptx or b.julia:
        return "; ".join(x for x in (_spell(b.cpu, "CPU"), _spell(b.ptx, "CUDA"),
                                     _spell(b.julia, "Julia")) if x)
    if b.form == "statement":
        return "statement `Barrier`"
    if b.form == "scratch":
        return f"`{b.space}` scratch array"
    if b.op is not None:
        return f"op `{b.op.name}`"
    return "the loop"


def _row(b: Builtin) -> str:
    engines = "workgroups" if b.needs == "workgroups" else "all"
    call = b.call.replace("|", "\\|")
    return (f"| `{b.qualified}` | `{call}` | {b.arity_text()} | {b.domain.name} | {engines} "
            f"| {b.doc} | {lowering_text(b)} |")


def page_markdown() -> str:
    out = ["# Builtins", "",
           ("Every name a kernel body can call, generated from the builtin registry "
            "(`python/tack/builtins/`; `python -m tack.builtins > docs/builtins.md`). The rules "
            "they follow are in [the kernel language](language.md#builtins). *Takes*: the "
            "dtypes of the operands once converted; *engines*: where it runs (`workgroups`: "
            "the engines that run workgroups, CUDA, the simulator and Julia, not the CPU); "
            "*lowering*: how the CPU (LLVM), CUDA (NVPTX, libdevice) and Julia "
            "(KernelAbstractions) renderers compute it.")]
    for group, title, intro in GROUPS:
        out += ["", f"## {title}", "", intro, "",
                "| name | call | arguments | takes | engines | meaning | lowering |",
                "| --- | --- | --- | --- | --- | --- | --- |"]
        out += [_row(b) for b in REGISTRY.values() if b.group == group]
    return "\n".join(out) + "\n"
