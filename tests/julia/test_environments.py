"""Tack's three Julia environments — Project.toml (the kernels and their runtime), julia/test/
Project.toml (the test suite) and python/tack/juliapkg.json (what juliapkg installs for the
Julia engine) — declare every package the product Julia code imports, with one UUID and one
compat entry, and that entry admits the KernelAbstractions releases Tack renders for. And the
product code (julia/src, julia/kernels) holds no branch for the Julia 1.5.3 tier's stand-ins: they
adapt to it (julia/test/standin)."""
import json
import re
import tomllib

import pytest

from tests.julia.golden import ROOT

RUNTIME = ROOT / "julia" / "src" / "TackRuntime.jl"
PRODUCT = sorted((ROOT / "julia" / "src").rglob("*.jl")) + sorted(
    (ROOT / "julia" / "kernels").glob("*.jl"))


def _environments() -> dict[str, dict[str, tuple[str, str | None]]]:
    """Each environment's packages: name → (UUID, compat entry or None)."""
    envs = {}
    for path in (ROOT / "Project.toml", ROOT / "julia" / "test" / "Project.toml"):
        with path.open("rb") as f:
            project = tomllib.load(f)
        compat = project.get("compat", {})
        envs[str(path.relative_to(ROOT))] = {
            name: (uuid, compat.get(name)) for name, uuid in project["deps"].items()}
    pkg = json.loads((ROOT / "python" / "tack" / "juliapkg.json").read_text())
    envs["python/tack/juliapkg.json"] = {
        name: (p["uuid"], p.get("version")) for name, p in pkg["packages"].items()}
    return envs


def _caret_range(spec: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """[lower, upper) of one caret specifier, as Pkg defines it
    (https://pkgdocs.julialang.org/v1/compatibility/#Caret-specifiers): the components up to
    and including the first non-zero one (or the last given) may not change."""
    spec = spec.strip().removeprefix("^")
    if not re.fullmatch(r"\d+(\.\d+){0,2}", spec):
        raise ValueError(f"not a caret specifier this test reads: {spec!r}")
    given = [int(p) for p in spec.split(".")]
    fixed = next((i for i, p in enumerate(given) if p != 0), len(given) - 1)
    upper = given[:fixed] + [given[fixed] + 1]
    return tuple(given + [0] * (3 - len(given))), tuple(upper + [0] * (3 - len(upper)))


def admits(compat: str, version: str) -> bool:
    """Whether a Pkg compat entry (caret specifiers joined by commas) admits `version`."""
    v = tuple(int(p) for p in version.split("."))
    return any(lo <= v < hi for lo, hi in map(_caret_range, compat.split(",")))


@pytest.mark.parametrize("compat,version,want", [
    # Pkg's own table of caret specifiers (the URL in _caret_range)
    ("1.2.3", "1.2.3", True), ("1.2.3", "1.9.9", True), ("1.2.3", "2.0.0", False),
    ("1.2.3", "1.2.2", False), ("0.2.3", "0.2.9", True), ("0.2.3", "0.3.0", False),
    ("0.0.3", "0.0.3", True), ("0.0.3", "0.0.4", False), ("0.0", "0.0.9", True),
    ("0.0", "0.1.0", False), ("0", "0.9.9", True), ("0", "1.0.0", False),
    ("0.4, 0.5, 0.6", "0.5.2", True), ("0.4, 0.5, 0.6", "0.7.0", False)])
def test_admits_reads_pkg_caret_specifiers(compat, version, want):
    assert admits(compat, version) is want


def _imported_packages() -> set[str]:
    """The packages the product Julia code loads (`import X`, `using X`; not `.X`, a module of
    the file's own)."""
    names = set()
    for path in PRODUCT:
        names |= set(re.findall(r"^\s*(?:import|using)\s+([A-Za-z]\w*)", path.read_text(),
                                re.MULTILINE))
    return names


def test_runtime_imports_what_the_environments_declare():
    imported = _imported_packages()
    # what TackRuntime.jl itself loads, read from it, is among them
    runtime = set(re.findall(r"^import\s+([A-Za-z]\w*)", RUNTIME.read_text(), re.MULTILINE))
    assert runtime == {"KernelAbstractions", "Atomix", "StaticArrays", "BFloat16s"}
    assert runtime <= imported
    envs = _environments()
    for name in sorted(imported):
        declared = {env: pkgs.get(name) for env, pkgs in envs.items()}
        missing = [env for env, d in declared.items() if d is None or d[1] is None]
        assert not missing, f"{name} is imported by julia/ but not declared with a compat " \
                            f"entry in {missing}"
        assert len(set(declared.values())) == 1, f"{name}: UUID or compat differ: {declared}"


def test_kernelabstractions_compat_admits_0_9_39_and_0_10():
    compat = {env: pkgs["KernelAbstractions"][1] for env, pkgs in _environments().items()}
    assert len(set(compat.values())) == 1, compat
    entry = next(iter(compat.values()))
    for version in ("0.9.39", "0.9.41", "0.10.0", "0.10.3"):
        assert admits(entry, version), (entry, version)
    for version in ("0.9.38", "0.11.0", "1.0.0"):
        assert not admits(entry, version), (entry, version)


# Branches on the Julia running, or on whether a package (a stand-in's) is installed
_STANDIN_BRANCHES = re.compile(
    r"\bVERSION\b|find_package|STANDIN|isdefined\(\s*(?:Base|Core)\s*,")


def test_product_julia_has_no_branch_for_the_standin():
    found = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
             for p in PRODUCT for n, line in enumerate(p.read_text().splitlines(), 1)
             if _STANDIN_BRANCHES.search(line.split("#", 1)[0])]
    assert found == []
