"""The engines' capability matrix as a Markdown table, read from the engine registry (nothing
starts, no GPU is needed): the table in docs/engines.md, which a test keeps current.

    python tools/capability_table.py        # prints the table
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

import tack
from tack import dtypes as dt
from tack.runtime import registry

START, END = "<!-- capability table: tools/capability_table.py -->", "<!-- end of table -->"


def rows() -> list[tuple[str, str]]:
    """(engine, arch) of every registered kind, in registration order (each shows stage `ir`)."""
    return list(dict.fromkeys(registry.shown_by("ir")))


def table_markdown() -> str:
    head = ("| device | engine | workgroups | warps | f64 | atomics | host arrays in place "
            "| `tack.inspect` stages |\n| --- | --- | --- | --- | --- | --- | --- | --- |")
    lines = [head]
    for engine, arch in rows():
        dev = tack.device(arch, engine=engine)
        caps = dev.capabilities
        every = [d for d in dt.STORAGE if not d.is_half]  # no engine has half atomics
        atomics = "all but f16, bf16" if list(dev.supported_atomic_dtypes) == every else \
            ", ".join(d.name for d in dev.supported_atomic_dtypes)
        call = f'`"{arch}"`' if engine == "native" else f'`"{arch}", engine="{engine}"`'
        warps = "no" if not (dev.supports_workgroups and caps.warps) else \
            "registers" if caps.register_warps else "shared memory"
        lines.append(f"| {call} | {engine} | {'yes' if dev.supports_workgroups else 'no'} | "
                     f"{warps} | "
                     f"{'yes' if dev.supports_f64 else 'asked of the device'} | {atomics} | "
                     f"{'yes' if caps.host_memory else 'no'} | "
                     f"{', '.join(f'`{s}`' for s in dev.stages)} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table_markdown())
