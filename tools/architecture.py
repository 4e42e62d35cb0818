"""The package's shape as data: its layer table, its import graph, its largest pieces and the
path a kernel call takes through it.

`tests/test_architecture.py` enforces what this module measures (docs/design/006-layers.md says
why the layers are what they are); `python tools/architecture.py` prints the report CI shows:
layer violations, import cycles, the largest modules and functions, and the modules a kernel's
first, second and warm calls enter on their way to the engine's launch (`trace_calls`).
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "tack"

# Bottom first. A module belongs to the first entry whose name is it or a package above it; it
# may import from its own layer or lower (docs/design/006-layers.md).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("tack.errors", "tack.dtypes", "tack._version"),
    ("tack.ir", "tack.builtins", "tack.constants", "tack.intrinsics"),
    ("tack.passes", "tack.capabilities"),
    ("tack.frontend", "tack.render", "tack.cache"),
    ("tack.toolchain",),
    ("tack.runtime",),
    ("tack.devices", "tack.arrays", "tack.interop", "tack.cuda"),
    ("tack.compiler", "tack.call"),
    ("tack.kernel", "tack.inspection", "tack.lib", "tack.ops", "tack.algorithms", "tack.check",
     "tack.dask", "tack"),
    ("tack.testing", "tack.julia", "tack.__main__"),
)

# Groups of one layer that must not import each other: a printer needs no parser, the frontend
# no printer, neither the disk cache.
INDEPENDENT = (("tack.frontend", "tack.render", "tack.cache"),)

# Import cycles we accept, each with the reason. A cycle not listed fails the test.
ALLOWED_CYCLES: dict[frozenset, str] = {
    frozenset({"tack.ir.nodes", "tack.ir.printer"}):
        "Expr.__repr__ prints through ir.printer, imported lazily inside __repr__; the printer "
        "needs the node classes. One package, one concern, no import-time edge.",
}

# The repository's own code beside the package, which an installed Tack does not have: the tests
# (the reliability corpus and the Julia 1.5.3 tier's helpers among them), tools and benchmarks.
# The package imports none of it.
REPOSITORY_ONLY = ("tests", "tools", "bench")

MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60


@dataclass(frozen=True)
class Edge:
    importer: str
    imported: str
    line: int
    lazy: bool  # inside a function (still a dependency: it runs whenever that function does)


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package's name is its __init__)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _target(name: str, known: dict) -> str | None:
    """The package module an import of `name` loads last (a name inside a module → the module)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _imports(mod: str, path: Path, known: dict):
    tree = ast.parse(path.read_text(), str(path))
    lazy_lines = {n.lineno for f in ast.walk(tree)
                  if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                  for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))}
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[:len(up) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            names = [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            target = _target(name, known)
            if target is not None and target != mod and target.split(".")[0] == "tack":
                yield Edge(mod, target, node.lineno, node.lineno in lazy_lines)


def graph() -> list[Edge]:
    known = modules()
    return [e for mod, path in known.items() for e in _imports(mod, path, known)]


def repository_imports(mods: dict[str, Path] | None = None) -> list[str]:
    """Imports, by a package module, of code that lives only in the repository (REPOSITORY_ONLY),
    as `module: imported name, line N`."""
    out = []
    for mod, path in (modules() if mods is None else mods).items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            out += [f"{mod}: {n}, line {node.lineno}" for n in names
                    if n.split(".")[0] in REPOSITORY_ONLY]
    return out


def layer_of(mod: str) -> tuple[int, str]:
    """(layer number, the table entry) of a module: the longest entry that is it or above it."""
    best = None
    for k, names in enumerate(LAYERS):
        for name in names:
            within = mod == name or mod.startswith(name + ".")
            if within and (best is None or len(name) > len(best[1])):
                best = (k, name)
    if best is None:
        raise KeyError(f"{mod} is in no layer of tools/architecture.py's LAYERS: add it")
    return best


def violations(edges: list[Edge]) -> list[str]:
    """Imports from a higher layer, from the package face, or between independent groups."""
    out = []
    for e in edges:
        (li, gi), (lj, gj) = layer_of(e.importer), layer_of(e.imported)
        where = f"{e.importer} (layer {li}) imports {e.imported} (layer {lj}), line {e.line}"
        if e.imported == "tack" and li < len(LAYERS) - 1:
            out.append(f"{where}: only tack.testing, above it, imports the package face")
        elif lj > li:
            out.append(f"{where}: an import from a higher layer")
        elif li == lj and gi != gj and any(gi in g and gj in g for g in INDEPENDENT):
            out.append(f"{where}: {gi} and {gj} are independent")
    return list(dict.fromkeys(out))


def cycles(edges: list[Edge]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    succ: dict[str, set] = {}
    for e in edges:
        succ.setdefault(e.importer, set()).add(e.imported)
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(succ.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    for v in sorted(succ):
        if v not in index:
            visit(v)
    return out


def sizes() -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(lines, module) and (lines, 'module:line name') for every module and function, largest
    first. A function's lines run from its `def` to its last line, docstring and nested
    functions included."""
    mods, fns = [], []
    for path in modules().values():
        text = path.read_text()
        mods.append((text.count("\n"), str(path.relative_to(ROOT))))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                fns.append((n, f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"))
    return sorted(mods, reverse=True), sorted(fns, reverse=True)


# ---- the call path ----------------------------------------------------------------------------
TRACED_KERNEL = """import tack


@tack.kernel
def fill(out, v):
    for i in range(out.shape[0]):
        out[i] = v
"""


@dataclass
class CallTrace:
    modules: list  # every tack module whose Python code ran, in order of first entry
    functions: int  # distinct tack functions that ran
    route: list  # the modules the arguments pass through (`trace`), consecutive steps merged
    launched: bool  # the engine's launch was reached (the trace ends there)

    def returns(self) -> dict:
        """How often the route comes back to each module it had left."""
        return {m: self.route.count(m) - 1 for m in dict.fromkeys(self.route)
                if self.route.count(m) > 1}

    def ping_pongs(self) -> list:
        """Places where the route goes A > B > A > B: a module that hands the arguments to the
        same module twice in a row, and takes them back each time."""
        r = self.route
        return [" > ".join(r[i:i + 4]) for i in range(len(r) - 3)
                if r[i] == r[i + 2] and r[i + 1] == r[i + 3]]


def _carries(frame, args) -> bool:
    """Whether a new frame received the call's arguments: the tuple itself, or a list or tuple
    holding one of them (the expanded values, the launch values), or one of them."""
    code = frame.f_code
    n = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 0x04)
    local = frame.f_locals
    for name in code.co_varnames[:n]:
        v = local.get(name)
        if v is args or any(v is a for a in args):
            return True
        if v.__class__ in (list, tuple) and any(x is a for x in v for a in args):
            return True
    return False


def trace(fn, *args) -> CallTrace:
    """`fn(*args)` under sys.setprofile, up to the engine's launch: a `launch` method of a
    `Launchable` (runtime/base.py) or the CPU engine's native caller (runtime/cpu/call.py, a
    builtin named `tack_call_*`). The route follows the arguments: the module of each frame
    that receives them, and of the frame they come back to."""
    from tack.runtime.base import Launchable

    modules, functions, route, stack, done = {}, set(), [], [], []

    def step(mod):
        if not route or route[-1] != mod:
            route.append(mod)

    def profile(frame, event, arg):
        if done:
            return
        if event == "call":
            mod = frame.f_globals.get("__name__") or "?"
            if mod.split(".")[0] == "tack":
                modules.setdefault(mod, None)
                functions.add((mod, frame.f_code.co_name))
            carrying = _carries(frame, args)
            stack.append((mod, carrying))
            if carrying:
                step(mod)
            if frame.f_code.co_name == "launch" and isinstance(frame.f_locals.get("self"),
                                                               Launchable):
                done.append(True)
        elif event == "return" and stack:
            stack.pop()
            if stack and stack[-1][1]:
                step(stack[-1][0])
        elif event == "c_call" and getattr(arg, "__name__", "").startswith("tack_call_"):
            step("native")
            done.append(True)

    sys.setprofile(profile)
    try:
        fn(*args)
    finally:
        sys.setprofile(None)
    return CallTrace(list(modules), len(functions), route, bool(done))


def _trace_child() -> dict:
    """In a fresh process (disk cache off): the first, second and warm (third) call of a
    1-element kernel on the CPU, each traced."""
    import importlib.util

    import tack

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "traced_kernel.py")
        with open(path, "w") as f:
            f.write(TRACED_KERNEL)
        spec = importlib.util.spec_from_file_location("traced_kernel", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        tack.set_default_device("cpu", num_threads=1)
        out = tack.zeros(1)
        return {label: trace(mod.fill, out, 1.0).__dict__ for label in ("first", "second", "warm")}


def trace_calls(python_path: str | None = None) -> dict[str, CallTrace]:
    """`_trace_child` in a subprocess over the package at `python_path` (default: this one's)."""
    env = dict(os.environ, TACK_CACHE="off", PYTHONPATH=python_path or str(PACKAGE.parent))
    got = subprocess.run([sys.executable, __file__, "--trace-child"], env=env, check=True,
                         capture_output=True, text=True, timeout=600)
    return {k: CallTrace(**v) for k, v in json.loads(got.stdout.splitlines()[-1]).items()}


def report_calls(traces: dict[str, CallTrace]) -> None:
    print("call path of `fill(out, 1.0)` (a 1-element CPU kernel, disk cache off), from the "
          "call to the engine's launch:")
    for label, t in traces.items():
        short = [m.replace("tack.", "") for m in t.route]
        print(f"  {label:6s}: {t.functions} functions in {len(t.modules)} modules; route "
              f"({len(set(t.route))} modules): {' > '.join(short)}")
        if t.returns():
            print(f"          returns to: {t.returns()}")
        for p in t.ping_pongs():
            print(f"PINGPONG  {label}: {p}")


def report(top: int = 10) -> int:
    """Print the report; the exit status is 1 if anything breaks the rules."""
    edges = graph()
    bad = violations(edges) + [f"{x}: not in the installed package" for x in repository_imports()]
    loops = [c for c in cycles(edges) if frozenset(c) not in ALLOWED_CYCLES]
    mods, fns = sizes()
    print(f"{len(modules())} modules, {len(edges)} imports inside the package "
          f"({sum(e.lazy for e in edges)} inside functions)")
    for line in bad:
        print("LAYER   ", line)
    for c in loops:
        print("CYCLE   ", " <-> ".join(c))
    print(f"largest modules (a reader's guide: {MAX_MODULE_LINES} lines):")
    for n, name in mods[:top]:
        print(f"  {n:5d}  {name}")
    print(f"largest functions (a reader's guide: {MAX_FUNCTION_LINES} lines):")
    for n, name in fns[:top]:
        print(f"  {n:5d}  {name}")
    over = [m for m in mods if m[0] > MAX_MODULE_LINES] + [f for f in fns
                                                           if f[0] > MAX_FUNCTION_LINES]
    for n, name in over:
        print(f"LOOK     {name}: {n} lines, past the guide (a signal to look, not a failure)")
    traces = trace_calls()
    report_calls(traces)
    pongs = any(t.ping_pongs() for t in traces.values())
    return 1 if bad or loops or pongs else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--trace-child"]:
        print(json.dumps(_trace_child()))
    else:
        sys.exit(report(int(sys.argv[1]) if len(sys.argv) > 1 else 10))
