"""The engines the shared tests run on, and whether each is present here.

A test that takes the `engine` fixture (tests/conftest.py) runs once per engine, the engine in its
id (`test_x[cpu]`, `test_x[cuda]`): the CPU engine and the simulator always; CUDA always, skipped
without a GPU (so a run says what it did not check); Julia only where a Julia is installed (the
Julia 1.5.3 tier of `julia/tools/install_local.py`, else juliacall with a `julia`). `--engines
cpu,sim` narrows a run; `@pytest.mark.engines("cpu", "cuda", reason="...")` (on a test, or a
module's `pytestmark`) sets the engines a test is meant for, and its required `reason` says why
those and not the others: a marker without a reason, or naming an engine that does not exist, fails
the test's collection (`marked`).
"""
from __future__ import annotations

import functools
import importlib.machinery
import os
import shutil
import sys

import pytest

ENGINES = ("cpu", "sim", "cuda", "julia")


@functools.cache
def cuda_unavailable() -> str | None:
    """None when a CUDA engine starts on device 0, else why not."""
    try:
        import cuda.bindings  # noqa: F401
    except ImportError as exc:
        return f"cuda-bindings is not installed ({exc})"
    try:
        from tack.runtime.cuda.engine import CUDAEngine

        CUDAEngine(0)
    except Exception as exc:  # noqa: BLE001 - any failure to start (no driver, no device): skip
        return f"no usable CUDA GPU: {exc}"
    return None


def cuda_marks() -> list:
    """Marker `cuda`, and a skip with the reason where no GPU or cuda-bindings is."""
    reason = cuda_unavailable()
    return [pytest.mark.cuda, pytest.mark.skipif(reason is not None, reason=str(reason))]


def julia_exe() -> str | None:
    return (os.environ.get("PYTHON_JULIACALL_EXE") or os.environ.get("PYTHON_JULIAPKG_EXE")
            or shutil.which("julia"))


def julia153() -> str | None:
    """The private Julia 1.5.3's launcher, or None (then the tier's tests skip)."""
    from tests.julia.julia153 import launcher_path

    found = launcher_path()
    return str(found) if found else None


def juliacall_skip_reason() -> str | None:
    """None when the Julia engine starts here on the real juliacall; else why its tests are not
    run. While the Julia 1.5.3 tier's pipe stand-in is `sys.modules["juliacall"]` (a session
    fixture of the tests run earlier in this process), the real engine is not what would run."""
    if getattr(sys.modules.get("juliacall"), "TACK_PIPE_STANDIN", False):
        return "not run: this process has the Julia 1.5.3 tier's juliacall stand-in installed"
    return _real_juliacall_skip_reason()


def juliacall_installed() -> bool:
    """juliacall and a Julia for it, found without importing juliacall (which would download a
    Julia when none is found)."""
    return importlib.machinery.PathFinder.find_spec("juliacall") is not None and \
        julia_exe() is not None


@functools.cache
def _real_juliacall_skip_reason() -> str | None:
    if importlib.machinery.PathFinder.find_spec("juliacall") is None:
        return "not run: juliacall not installed (pip install '.[julia]' in a clone of Tack)"
    if julia_exe() is None:
        return "not run: julia not installed (put julia on PATH or set PYTHON_JULIACALL_EXE)"
    from tack.runtime.julia.engine import _Session

    try:
        _Session.get()
    except RuntimeError as exc:
        return f"not run: the Julia engine did not start: {exc}"
    return None


@functools.cache
def julia_runner() -> str | None:
    """How the `julia` engine runs here: "julia153" (the tier's Julia 1.5.3 process behind a
    juliacall stand-in), "juliacall", or None (no Julia: no `julia` cases are made)."""
    if julia153():
        return "julia153"
    return "juliacall" if juliacall_installed() else None


def selected(config) -> tuple[str, ...]:
    """The engines `--engines` names (all of ENGINES by default), in ENGINES' order."""
    names = [n.strip() for n in config.getoption("--engines").split(",") if n.strip()]
    unknown = sorted(set(names) - set(ENGINES))
    if unknown:
        raise pytest.UsageError(f"--engines: unknown engine(s) {', '.join(unknown)}; "
                                f"the engines are {', '.join(ENGINES)}")
    return tuple(n for n in ENGINES if n in names)


def params(config, wanted=ENGINES) -> list:
    """One `pytest.param` per engine of `wanted` that `--engines` selects and that is present (a
    cuda case is made everywhere and skips without a GPU; a julia case only where Julia is)."""
    out = []
    for name in selected(config):
        if name not in wanted or name == "julia" and julia_runner() is None:
            continue
        marks = cuda_marks() if name == "cuda" else [pytest.mark.julia] if name == "julia" else []
        out.append(pytest.param(name, id=name, marks=marks))
    return out


def cases(metafunc, argname: str, module: str, default=ENGINES) -> list | None:
    """The engine cases (`params`) of fixture `argname` for this test: the engines of its
    closest `engines` marker, else `default`. None where the test's `argname` is not the fixture
    that conftest `module` defines but a parameter or a fixture of the same name closer to the
    test (`engine` is a CPUEngine in tests/runtime, for one)."""
    if argname not in metafunc.fixturenames:
        return None
    if any(argname in _argnames(m) for m in metafunc.definition.iter_markers("parametrize")):
        return None
    defs = metafunc._arg2fixturedefs.get(argname)
    if not defs or defs[-1].func.__module__ != module:
        return None
    return params(metafunc.config, marked(metafunc.definition.nodeid,
                                          list(metafunc.definition.iter_markers("engines")),
                                          default))


def marked(nodeid: str, marks: list, default=ENGINES) -> tuple[str, ...]:
    """The engines of the closest of `marks` (a test's `engines` markers, closest first), else
    `default`. Every one of them, the module's too, must name known engines and say why in a
    non-empty `reason`; else a UsageError that names the test."""
    for mark in marks:
        where = f"{nodeid}: @pytest.mark.engines{_shown(mark)}"
        unknown = [n for n in mark.args if n not in ENGINES]
        if unknown or not mark.args:
            named = f"unknown engine(s) {', '.join(map(repr, unknown))}" if unknown else "no engine"
            raise pytest.UsageError(f"{where} names {named}; the engines are {', '.join(ENGINES)}")
        reason = mark.kwargs.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise pytest.UsageError(f"{where} has no reason: add reason=\"...\", why these "
                                    "engines and not the others")
        extra = sorted(set(mark.kwargs) - {"reason"})
        if extra:
            raise pytest.UsageError(f"{where}: unknown keyword(s) {', '.join(extra)}")
    return tuple(marks[0].args) if marks else tuple(default)


def _shown(mark) -> str:
    return "(" + ", ".join([*map(repr, mark.args),
                            *(f"{k}={v!r}" for k, v in mark.kwargs.items())]) + ")"


def _argnames(mark) -> list[str]:
    names = mark.args[0] if mark.args else mark.kwargs.get("argnames", ())
    return [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)


def select(name: str, request):
    """Make engine `name` the default device for the test (`request`) and return the Device."""
    import tack

    if name == "cuda":
        reason = cuda_unavailable()
        if reason:
            pytest.skip(reason)
        return tack.set_default_device("cuda")
    if name == "julia":
        if julia_runner() == "julia153":
            request.getfixturevalue("_julia153_session")
        else:
            reason = juliacall_skip_reason()
            if reason:
                pytest.skip(reason)
        return tack.set_default_device("cpu", engine="julia")
    return tack.set_default_device(name)
