"""The tables of docs/numerics.md, generated from the data the tests check
(`tack.testing.bounds`) and from the engine registry, so the page states what the tests hold; a
test (tests/numerics/test_page.py) keeps the page current.

    python tools/numerics_page.py           # rewrites the tables in docs/numerics.md
"""
from __future__ import annotations

import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import tack
from tack.passes import libmath
from tack.runtime import registry
from tack.testing import bounds

PAGE = ROOT / "docs" / "numerics.md"
MARK = re.compile(r"(<!-- table (\w+): tools/numerics_page.py -->\n)(.*?)(<!-- end of table -->)",
                  re.DOTALL)


def engines() -> str:
    lines = ["| device | engine | exp, log, sin, cos, tanh by default | in deterministic mode |",
             "| --- | --- | --- | --- |"]
    for engine, arch in dict.fromkeys(registry.shown_by("ir")):
        caps = tack.device(arch, engine=engine).capabilities
        call = f'`"{arch}"`' if engine == "native" else f'`"{arch}", engine="{engine}"`'
        lines.append(f"| {call} | {engine} | "
                     f"{'tack.lib (the same bits)' if caps.library_math else 'the device library'}"
                     " | tack.lib (the same bits) |")
    return "\n".join(lines)


def contract() -> str:
    lines = [("| results (float32, float64, float16, bfloat16) | the same bits by default on "
              "| in deterministic mode on |"), "| --- | --- | --- |"]
    for what, (default, mode) in bounds.SAME_BITS.items():
        lines.append(f"| {what} | {default} | {mode} |")
    return "\n".join(lines)


def _math_table(table: dict, dtype: str, suffix: str) -> str:
    replaced = {(op.name.lower(), name) for op, name in libmath.replaced()}
    lines = [f"| builtin ({dtype}) | function | bound (ulp) |", "| --- | --- | --- |"]
    for name, (ulps, module) in table.items():
        assert (name, suffix.replace("_", "")) in replaced, name
        lines.append(f"| `{name}` | `{module}.{name}{suffix}` | {ulps:g} |")
    return "\n".join(lines)


def math_functions() -> str:
    return _math_table(bounds.MATH_ULPS, "float32", "_f32")


def math_functions_f64() -> str:
    return _math_table(bounds.MATH_ULPS_F64, "float64", "_f64")


def engine_math() -> str:
    return ", ".join(f"`{op.name.lower()}`" for op in sorted(bounds.ENGINE_MATH,
                                                             key=lambda o: o.value))


def op_bounds() -> str:
    lines = ["| op | bound, in eps (2^-24, 2^-53) | grows with | relative to |",
             "| --- | --- | --- | --- |"]
    for name, (factor, growth, scale) in bounds.OP_BOUNDS.items():
        grows = {"1": "—", "n": "n, the reduced length"}[growth]
        lines.append(f"| `{name}` | {'exact' if factor == 0 else f'{factor:g}'} | {grows} "
                     f"| {scale} |")
    return "\n".join(lines)


def half_bounds() -> str:
    lines = ["| op (float16, bfloat16) | bound | in units of | grows with | relative to |",
             "| --- | --- | --- | --- | --- |"]
    for name in bounds.MATH_ULPS:
        lines.append(f"| `{name}` | {bounds.HALF_MATH_ULPS[name]:g} | ulp of the half type | — "
                     f"| the exact result |")
    units = {"half": "eps of the half type (2^-11, 2^-8)", "float32": "eps of float32 (2^-24)"}
    for name, (factor, growth, scale, eps) in bounds.HALF_OP_BOUNDS.items():
        grows = {"1": "—", "n": "n, the reduced length"}[growth]
        lines.append(f"| `{name}` | {'exact' if factor == 0 else f'{factor:g}'} | {units[eps]} "
                     f"| {grows} | {scale} |")
    return "\n".join(lines)


def tf32() -> str:
    unit = int(math.log2(bounds.TF32_UNIT))
    k1, k2 = bounds.tf32_matmul_bound(1), bounds.tf32_matmul_bound(1024)
    product = f"2^{unit + 1} + 2^{2 * unit}"
    matmul = f"2^{unit + 1} + (k + 2)·2^-23 ({k1:.4g} at k = 1, {k2:.4g} at k = 1024)"
    scale = "(\\|a\\|·\\|b\\|), element by element"
    lines = ["| result | bound | relative to |", "| --- | --- | --- |",
             f"| `tack.tf32(x)`, a normal result | 2^{unit} | \\|x\\| |",
             f"| a product of two rounded operands | {product} | the exact product's magnitude |",
             f"| `matmul`, `batched_matmul` with `precision=\"tf32\"` | {matmul} | {scale} |"]
    g1, g2 = bounds.tf32_matmul_bound(1, gpu=True), bounds.tf32_matmul_bound(1024, gpu=True)
    lines.append(f"| the same on a GPU's tensor cores | 2^{unit + 1} + 4·(k + 2)·2^-23 ({g1:.4g} "
                 f"at k = 1, {g2:.4g} at k = 1024) | {scale} |")
    return "\n".join(lines)


def tensor_cores() -> str:
    """The half matmul on tensor cores: the f32 sums' bound, and the one rounding."""
    scale = "(\\|a\\|·\\|b\\|), element by element"
    lines = ["| result | bound | relative to |", "| --- | --- | --- |"]
    for where, gpu in (("the simulator", False), ("a GPU's tensor cores", True)):
        g = bounds.mma_matmul_bound(1024, gpu)
        factor = "4·" if gpu else ""
        lines.append(f"| the f32 sums of `matmul`, `batched_matmul` (f16, bf16) on {where} | "
                     f"{factor}γ_k = {factor}k·2^-24 / (1 − k·2^-24) ({g:.4g} at k = 1024) | "
                     f"{scale} |")
    for name, unit in bounds.MATMUL_HALF_UNIT.items():
        lines.append(f"| the {name} result's one rounding, added | 2^{int(math.log2(unit))} | "
                     "\\|a·b\\| |")
    return "\n".join(lines)


TABLES = {"contract": contract, "engines": engines, "math": math_functions, "math64": math_functions_f64,
          "engine_math": engine_math,
          "ops": op_bounds, "half": half_bounds, "tf32": tf32, "tensor_cores": tensor_cores}


def page(text: str) -> str:
    """`text` with every marked table regenerated."""
    return MARK.sub(lambda m: m.group(1) + TABLES[m.group(2)]() + "\n" + m.group(4), text)


if __name__ == "__main__":
    PAGE.write_text(page(PAGE.read_text()))
