"""The test suite's own rules (CONTRIBUTING.md, "The test tiers"), read from its source: tests are
independent cases, so one failure hides no other and each shows under its own id.

- no test module imports another test module (shared kernels and helpers live in modules that
  are not tests: tests/kernels/, tests/julia/jl_checks.py, ...);
- no test calls a test (a test that ran others stopped at the first failure);
- GPU modules share the one `cuda_device` fixture of tests/cuda/conftest.py;
- nothing restores the default device or debug mode by hand, or sets Tack's private device
  state: the root conftest's `_restore_defaults` restores both after every test.
"""
import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
TEST_MODULE = re.compile(r"(^|\.)test_\w+$")


def _modules():
    return sorted(p for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts)


def _rel(path: Path) -> str:
    return str(path.relative_to(TESTS.parent))


def _imported_modules(tree: ast.Module, path: Path):
    """(line, module) of every import, relative ones resolved against the file's package."""
    package = path.relative_to(TESTS.parent).with_suffix("").parts[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1]) if node.level else ""
            module = ".".join(x for x in (base, node.module) if x)
            yield node.lineno, module
            for alias in node.names:  # `from tests.exec import test_bitcast`
                yield node.lineno, f"{module}.{alias.name}"


def test_no_module_imports_a_test_module():
    bad = [f"{_rel(path)}:{line}: {module}" for path in _modules()
           for line, module in _imported_modules(ast.parse(path.read_text()), path)
           if module.startswith("tests") and TEST_MODULE.search(module)]
    assert not bad, "test modules imported (move what they share to a module that is not a " \
                    "test):\n" + "\n".join(bad)


def test_no_test_calls_a_test():
    bad = []
    for path in sorted(TESTS.rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                if name.startswith("test_"):
                    bad.append(f"{_rel(path)}:{node.lineno}: {ast.unparse(f)}()")
    assert not bad, "a test calls a test (parametrize it instead):\n" + "\n".join(bad)


def test_one_cuda_device_fixture():
    found = [_rel(p) for p in _modules() for n in ast.walk(ast.parse(p.read_text()))
             if isinstance(n, ast.FunctionDef) and n.name == "cuda_device"]
    assert found == ["tests/cuda/conftest.py"], found


def _restores(node: ast.Try) -> bool:
    calls = [ast.unparse(s.value.func) for s in node.finalbody
             if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)]
    return any(c in ("tack.set_default_device", "tack.set_debug") for c in calls)


def test_no_hand_written_restore_of_the_defaults():
    bad = []
    for path in _modules():
        text = path.read_text()
        bad += [f"{_rel(path)}:{n.lineno}: try/finally restoring the device or debug mode"
                for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Try) and _restores(n)]
        bad += [f"{_rel(path)}:{k}: {line.strip()}" for k, line in enumerate(text.splitlines(), 1)
                if re.search(r"devices\._global\b|\._device = ", line)
                and path != Path(__file__)]
    assert not bad, "\n".join(bad)
