"""docs/api.md, the API reference mkdocstrings renders: every public name of `tack`,
`tack.algorithms` and `tack.ops` is on it (a math or device function may be on docs/builtins.md
instead, generated from its registry entry), and every public callable has a docstring to show
(the strict site build in tests/examples/test_site.py renders it where mkdocs is installed)."""
import inspect
import re
from pathlib import Path

import tack
import tack.algorithms
import tack.ops
from tack.builtins.registry import HOST_FUNCTIONS
from tack.intrinsics import DEVICE_FUNCTIONS

PAGE = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
BUILTINS_PAGE = (Path(__file__).resolve().parents[2] / "docs" / "builtins.md").read_text()


def test_every_public_name_is_on_the_page():
    shown = set(re.findall(r"tack\.([A-Za-z_][A-Za-z0-9_]*)", PAGE))
    shown |= set(re.findall(r"^::: tack(?:\.[a-z_]+)*\.([A-Za-z_][A-Za-z0-9_]*)$", PAGE, re.MULTILINE))
    scalar_types = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64",
                    "vec2", "vec3", "vec4", "mat2", "mat3", "mat4"}
    # the math functions are documented by docs/builtins.md, generated from their entries
    math = {n for n in HOST_FUNCTIONS if f"| `{n}` |" in BUILTINS_PAGE}
    # and so are the device functions, one entry each: the page needs no line for a new one
    device = {n for n in DEVICE_FUNCTIONS if f"| `tack.{n}` |" in BUILTINS_PAGE}
    missing = [n for n in tack.__all__ if n not in shown | scalar_types | math | device]
    assert not missing, f"docs/api.md does not show: {missing}"
    for n in scalar_types:
        assert f"`{n}`" in PAGE or f"`tack.{n}`" in PAGE, n
    for mod in (tack.algorithms, tack.ops):
        for n in mod.__all__:
            assert f'heading: "{mod.__name__}.{n}"' in PAGE, f"{mod.__name__}.{n}"


def test_every_public_callable_has_a_docstring():
    undocumented = [n for n in tack.__all__ if callable(getattr(tack, n))
                    and not inspect.getdoc(getattr(tack, n))]
    for mod in (tack.algorithms, tack.ops):
        undocumented += [f"{mod.__name__}.{n}" for n in mod.__all__
                         if not inspect.getdoc(getattr(mod, n))]
    assert not undocumented, undocumented


def _defined_in_source(module, name):
    """Whether `name` is bound at the top of `module`'s source, where mkdocstrings looks: it
    reads source rather than importing, so an object made in a loop (a device function's host
    object, made from its registry entry) is not found and the strict site build fails."""
    import ast
    import importlib.util

    tree = ast.parse(Path(importlib.util.find_spec(module).origin).read_text())
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound = [node.name]
        elif isinstance(node, ast.Assign):
            bound = [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            bound = [node.target.id]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound = [(a.asname or a.name).split(".")[0] for a in node.names]
        else:
            bound = []
        if name in bound:
            return True
    return False


def test_every_reference_entry_names_a_real_object():
    import importlib

    for path in re.findall(r"^::: (tack\S*)$", PAGE, re.MULTILINE):
        module, _, name = path.rpartition(".")
        try:
            obj = importlib.import_module(path)
        except ImportError:
            obj = getattr(importlib.import_module(module), name)
            assert _defined_in_source(module, name), (
                f"{path} is made at import, not written in {module}'s source: mkdocstrings "
                "cannot find it (document it by its generated row of docs/builtins.md)")
        assert obj is not None, path
