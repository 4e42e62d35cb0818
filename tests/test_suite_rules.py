"""The test suite's own rules (CONTRIBUTING.md, "The test tiers"), read from its source: tests are
independent cases, so one failure hides no other and each shows under its own id.

- no test module imports another test module (shared kernels and helpers live in modules that
  are not tests: tests/kernels/, tests/julia/jl_checks.py, ...);
- no test calls a test (a test that ran others stopped at the first failure);
- GPU modules share the one `cuda_device` fixture of tests/cuda/conftest.py: no other fixture
  selects a CUDA device;
- nothing restores the default device or debug mode by hand, or sets Tack's private device
  state: the root conftest's `_restore_defaults` restores both after every test;
- no test gives a device an engine by hand or patches where the current device comes from: a
  stand-in engine is registered for the test (tests/stand_in_engines.py) and its device
  selected with `with device:` or `tack.set_default_device`;
- every test checks something: an `assert`, `pytest.raises`/`warns`/`fail`, `np.testing`, or a
  helper (of tests/ or tack.testing) that does — a test that only runs code passes whatever
  the code computes.
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


def _cuda_fixtures(tree: ast.Module) -> list[ast.FunctionDef]:
    """The fixtures that make a CUDA device the default: `set_default_device("cuda...")` or
    `engines.select("cuda", ...)` in a function decorated with `pytest.fixture`."""
    def is_fixture(fn):
        return any(ast.unparse(d.func if isinstance(d, ast.Call) else d)
                   in ("pytest.fixture", "fixture") for d in fn.decorator_list)

    def selects_cuda(call):
        name = ast.unparse(call.func)
        first = call.args[0] if call.args else None
        return (name.endswith("set_default_device") or name == "engines.select") and \
            isinstance(first, ast.Constant) and str(first.value).startswith("cuda")

    return [fn for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef) and is_fixture(fn)
            and any(isinstance(c, ast.Call) and selects_cuda(c) for c in ast.walk(fn))]


def test_one_cuda_device_fixture():
    found = [_rel(p) for p in _modules() for n in ast.walk(ast.parse(p.read_text()))
             if isinstance(n, ast.FunctionDef) and n.name == "cuda_device"]
    assert found == ["tests/cuda/conftest.py"], found
    others = [f"{_rel(p)}:{fn.lineno}: {fn.name}" for p in _modules()
              if _rel(p) != "tests/cuda/conftest.py"
              for fn in _cuda_fixtures(ast.parse(p.read_text()))]
    assert not others, "fixtures that select the CUDA device by themselves (take " \
                       "`cuda_device`, tests/cuda/conftest.py):\n" + "\n".join(others)


def test_a_second_cuda_fixture_is_seen():
    src = """
@pytest.fixture
def cuda():
    return tack.set_default_device("cuda")

@pytest.fixture(scope="module")
def gpu(request):
    yield engines.select("cuda", request)

@pytest.fixture
def host():
    return tack.set_default_device("cpu")

def test_on_the_gpu():
    tack.set_default_device("cuda")
    assert True
"""
    assert [fn.name for fn in _cuda_fixtures(ast.parse(src))] == ["cuda", "gpu"]


def _restores(node: ast.Try) -> bool:
    calls = [ast.unparse(s.value.func) for s in node.finalbody
             if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)]
    return any(c in ("tack.set_default_device", "tack.set_debug",
                                "tack.set_deterministic") for c in calls)


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


def _device_state_set(node) -> bool:
    """`x._engine = ...`, `setattr(x, "_engine", ...)` (monkeypatch's too), or a patch of
    `default_device`."""
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(isinstance(t, ast.Attribute) and t.attr == "_engine" for t in targets)
    if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("setattr"):
        names = [a.value for a in node.args[:2]
                 if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        return any(n == "_engine" or n.endswith("default_device") for n in names)
    return False


def test_no_engine_or_current_device_set_by_hand():
    bad = [f"{_rel(path)}:{n.lineno}: {ast.unparse(n).splitlines()[0]}"
           for path in _modules() if path != Path(__file__)
           for n in ast.walk(ast.parse(path.read_text())) if _device_state_set(n)]
    assert not bad, "an engine or the current device set by hand (register a stand-in engine, " \
                    "tests/stand_in_engines.py, and select its device):\n" + "\n".join(bad)


# ---- every test checks something ----------------------------------------------------------------
CHECKS = re.compile(r"^(pytest\.(raises|warns|fail)|(np|numpy)\.testing\.\w+)$")
HELPERS = TESTS.parent / "python" / "tack" / "testing"  # the harness' own checking functions


def _dotted(path: Path) -> str:
    base = TESTS.parent if path.is_relative_to(TESTS) else HELPERS.parent.parent
    parts = path.relative_to(base).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _index() -> dict:
    """module -> (path, its functions and methods by name, its imported names -> (module,
    name or None)), for tests/ and tack.testing."""
    out = {}
    for path in _modules() + sorted(HELPERS.rglob("*.py")):
        tree, mod = ast.parse(path.read_text()), _dotted(path)
        package = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
        funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        funcs |= {f"{c.name}.{n.name}": n for c in tree.body if isinstance(c, ast.ClassDef)
                  for n in c.body if isinstance(n, ast.FunctionDef)}
        names = {}
        for n in ast.walk(tree):
            if isinstance(n, ast.Import):
                names |= {(a.asname or a.name.split(".")[0]): (a.asname and a.name or
                                                              a.name.split(".")[0], None)
                          for a in n.names}
            elif isinstance(n, ast.ImportFrom):
                base = ".".join(package[:len(package) - n.level + 1]) if n.level else ""
                module = ".".join(x for x in (base, n.module) if x)
                names |= {(a.asname or a.name): (module, a.name) for a in n.names}
        out[mod] = (path, funcs, names)
    return out


def _function(index: dict, mod: str, name: str, depth: int = 0):
    """(module, function) that `name` in module `mod` is, following re-exports; else None."""
    if mod not in index or depth > 5:
        return None
    _, funcs, names = index[mod]
    if name in funcs:
        return mod, name
    if name in names and names[name][1] is not None:
        return _function(index, *names[name], depth + 1)
    return None


def _callee(index: dict, mod: str, call: ast.Call):
    f = call.func
    if isinstance(f, ast.Name):
        return _function(index, mod, f.id)
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
        module, name = index[mod][2].get(f.value.id, (None, None))
        if module is not None:  # `refs.close`, `C.verify`: a function of an imported module
            return _function(index, f"{module}.{name}" if name else module, f.attr)
    return None


def _checking(index: dict) -> set:
    """The functions that check: an assert or raise, a pytest/NumPy check, or a call of a
    function that checks (to a fixed point)."""
    found: set = set()
    grew = True
    while grew:
        grew = False
        for mod, (_, funcs, _) in index.items():
            for name, fn in funcs.items():
                if (mod, name) in found:
                    continue
                if any(isinstance(n, (ast.Assert, ast.Raise)) or isinstance(n, ast.Call) and (
                        CHECKS.match(ast.unparse(n.func)) or _callee(index, mod, n) in found)
                       for n in ast.walk(fn)):
                    found.add((mod, name))
                    grew = True
    return found


def test_every_test_checks_something():
    index = _index()
    checking = _checking(index)
    bad = [f"{_rel(path)}:{fn.lineno}: {name}" for mod, (path, funcs, _) in index.items()
           if path.name.startswith("test_") and path.is_relative_to(TESTS)
           for name, fn in funcs.items()
           if name.split(".")[-1].startswith("test_") and (mod, name) not in checking]
    assert not bad, "tests that check nothing (assert what the code should have done):\n" + \
        "\n".join(bad)
