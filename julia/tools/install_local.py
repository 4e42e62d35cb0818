"""Install the private Julia 1.5.3 that Tack's Julia test tier runs on, from Debian bullseye's
packages; prints the launcher's path.

Julia 1.5.3 is the newest Julia a Debian registry still serves (bullseye's `julia` package). It is
a test tool for machines that reach only Python's and Debian's registries: the product targets
Julia >= 1.10 (docs/julia.md, "Running the Julia tier here"), which users install themselves.

    python3 julia/tools/install_local.py [--dir DIR] [--force]

downloads the pinned packages with `apt-get download` (a private sources list and state folder:
nothing of the system's apt state changes; apt checks every file against bullseye's signed
Release file), unpacks them with `dpkg -x` into DIR (default `~/.cache/tack/julia-1.5.3`, or
`$TACK_JULIA_DIR`), links the system libraries Julia opens by name, writes the launcher
`DIR/julia` (library path and system image set), checks that it runs `using Test, LinearAlgebra,
Random`, and prints the launcher's path as its last line. A finished install is reused.

This file uses only the standard library: it runs before Tack is installed (`.ci/run`). The
test tier finds the install through `launcher_path()` (tests/julia/julia153/__init__.py loads
this file by its path).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

VERSION = "1.5.3"
SUITE = "bullseye"
# bullseye is closed (its last point release was 11.11), so these versions stay what it serves
PACKAGES = {
    "julia": "1.5.3+dfsg-3", "julia-common": "1.5.3+dfsg-3", "libjulia1": "1.5.3+dfsg-3",
    "libllvm9": "1:9.0.1-16.1", "libgit2-1.1": "1.1.0+dfsg.1-4+deb11u2",
    "libmbedcrypto3": "2.16.9-0.1", "libmbedtls12": "2.16.9-0.1", "libmbedx509-0": "2.16.9-0.1",
    "libdsfmt-19937-1": "2.2.3+dfsg-5", "libopenlibm3": "0.7.0+dfsg-2",
    "libutf8proc2": "2.5.0-1", "libunwind8": "1.3.2-2",
    "libjulia-openblas64": "0.3.13+ds-3+deb11u1", "libffi7": "3.3-6", "libz3-4": "4.8.10-1",
    "libgfortran5": "10.2.1-6",
}
# Libraries of the host that Julia or LLVM load; where the host lacks one, bullseye's package
# is unpacked too (sonames are equal in bookworm and bullseye).
HOST_LIBS = {
    "libstdc++.so.6": None, "libgcc_s.so.1": None, "libz.so.1": "zlib1g",
    "liblzma.so.5": "liblzma5", "libedit.so.2": "libedit2", "libtinfo.so.6": "libtinfo6",
    "libbsd.so.0": "libbsd0", "libmd.so.0": "libmd0", "libgmp.so.10": "libgmp10",
    "libmpfr.so.6": "libmpfr6", "libpcre2-8.so.0": "libpcre2-8-0",
}
# julia/lib*.so are links to ../<soname> (Julia dlopens them by their unversioned name);
# these sonames come from the host, not from the packages above.
BY_NAME = ("libpcre2-8.so.0", "libgmp.so.10", "libmpfr.so.6", "libcurl-gnutls.so.4",
           "libssh2.so.1")
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
LIBDIR = "usr/lib/x86_64-linux-gnu"
MARKER = ".tack-install-complete"
CHECK = 'using Test, LinearAlgebra, Random; print(VERSION, " ", det([2.0 1; 1 2]))'


def default_dir() -> Path:
    """`$TACK_JULIA_DIR`, else ~/.cache/tack/julia-1.5.3 (outside any repository)."""
    env = os.environ.get("TACK_JULIA_DIR")
    if env:
        return Path(env).expanduser()
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "tack" / f"julia-{VERSION}"


def launcher_path(directory: Path | None = None) -> Path | None:
    """The launcher of a finished install, or None."""
    d = directory or default_dir()
    return d / "julia" if (d / MARKER).is_file() and (d / "julia").is_file() else None


class InstallError(RuntimeError):
    pass


def _run(cmd: list, **kw) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, capture_output=True, text=True, check=False, **kw)
    if r.returncode != 0:
        raise InstallError(f"{' '.join(map(str, cmd))} failed ({r.returncode}):\n"
                           f"{r.stdout[-3000:]}{r.stderr[-3000:]}")
    return r


def debian_mirror() -> str:
    """The Debian archive this host's apt uses (`$TACK_DEBIAN_MIRROR` overrides it)."""
    if os.environ.get("TACK_DEBIAN_MIRROR"):
        return os.environ["TACK_DEBIAN_MIRROR"].rstrip("/")
    texts = [p.read_text(errors="replace") for p in sorted(Path("/etc/apt").glob(
        "sources.list.d/*.sources"))]
    for text in texts:  # deb822 stanzas: the one serving Debian's main suites
        for stanza in text.split("\n\n"):
            uris = re.search(r"^URIs:\s*(\S+)", stanza, re.MULTILINE)
            suites = re.search(r"^Suites:\s*(.+)$", stanza, re.MULTILINE)
            if uris and suites and not any("security" in s for s in suites.group(1).split()):
                return uris.group(1).rstrip("/")
    lists = [Path("/etc/apt/sources.list"), *Path("/etc/apt").glob("sources.list.d/*.list")]
    for path in lists:
        for line in path.read_text(errors="replace").splitlines() if path.is_file() else ():
            m = re.match(r"deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+(\S+)", line.strip())
            if m and "security" not in m.group(2):
                return m.group(1).rstrip("/")
    raise InstallError("no Debian archive found in /etc/apt; set TACK_DEBIAN_MIRROR")


def _apt(state: Path, *args: str, cwd: Path | None = None) -> None:
    opts = [f"Dir::Etc::SourceList={state / 'sources.list'}", "Dir::Etc::SourceParts=/dev/null",
            f"Dir::State::Lists={state / 'lists'}", f"Dir::Cache={state / 'cache'}",
            "Dir::State::status=/dev/null", "Acquire::Retries=3",
            "APT::Sandbox::User=root"]  # files land in our folder, which _apt cannot write
    _run(["apt-get", "-q", *[w for o in opts for w in ("-o", o)], *args], cwd=cwd)


def _host_soname(soname: str) -> str | None:
    out = _run(["/sbin/ldconfig", "-p"]).stdout
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == soname and "x86-64" in line:
            return parts[-1]
    return None


def download(work: Path) -> list[Path]:
    """The .deb files: pinned Julia packages plus bullseye's version of missing host libraries."""
    state = work / "apt"
    for sub in ("lists/partial", "cache/archives/partial"):
        (state / sub).mkdir(parents=True, exist_ok=True)
    (state / "sources.list").write_text(
        f"deb [signed-by={KEYRING}] {debian_mirror()} {SUITE} main\n")
    _apt(state, "update")
    wanted = [f"{p}={v}" for p, v in PACKAGES.items()]
    for soname, pkg in HOST_LIBS.items():
        if _host_soname(soname) is None:
            if pkg is None:
                raise InstallError(f"the host lacks {soname}, which Julia needs")
            wanted.append(pkg)
    debs = work / "debs"
    debs.mkdir()
    _apt(state, "download", *wanted, cwd=debs)
    return sorted(debs.glob("*.deb"))


LAUNCHER = """#!/bin/sh
# Julia {version} from Debian {suite}, unpacked by Tack's julia/tools/install_local.py (a test tool).
L="{libdir}"
export LD_LIBRARY_PATH="$L:$L/julia${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}"
export JULIA_DEPOT_PATH="${{TACK_JULIA_DEPOT:-{depot}}}"
exec "{root}/usr/bin/julia" -J "$L/julia/sys.so" "$@"
"""


def unpack(debs: list[Path], target: Path) -> Path:
    """dpkg -x every package into target/root, link host libraries, write the launcher."""
    root = target / "root"
    for deb in debs:
        _run(["dpkg", "-x", str(deb), str(root)])
    lib = root / LIBDIR
    for soname in BY_NAME:
        host = _host_soname(soname)
        if host is not None and not (lib / soname).exists():
            (lib / soname).symlink_to(host)
    launcher = target / "julia"
    launcher.write_text(LAUNCHER.format(version=VERSION, suite=SUITE, libdir=lib, root=root,
                                        depot=target / "depot"))
    launcher.chmod(0o755)
    return launcher


def verify(launcher: Path) -> str:
    out = _run([str(launcher), "--startup-file=no", "-e", CHECK], timeout=300).stdout
    if not out.startswith(f"{VERSION} 3.0"):
        raise InstallError(f"{launcher} printed {out!r}, expected Julia {VERSION}")
    return out


def install(directory: Path, force: bool = False) -> Path:
    """Install into `directory` unless a finished install is there; returns the launcher."""
    found = None if force else launcher_path(directory)
    if found is not None:
        verify(found)
        return found
    directory.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{directory.name}-", dir=directory.parent))
    try:
        debs = download(work)  # the downloads stay beside the folder, removed afterwards
        if directory.exists():
            shutil.rmtree(directory)
        directory.mkdir()
        launcher = unpack(debs, directory)
        verify(launcher)
        (directory / MARKER).write_text("\n".join(d.name for d in debs) + "\n")
        return launcher
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", type=Path, default=None,
                    help="install folder (default $TACK_JULIA_DIR or ~/.cache/tack/julia-1.5.3)")
    ap.add_argument("--force", action="store_true", help="reinstall even if one is there")
    args = ap.parse_args(argv)
    try:
        launcher = install((args.dir or default_dir()).expanduser().resolve(), args.force)
    except InstallError as exc:
        print(f"install_local: {exc}", file=sys.stderr)
        return 1
    print(launcher)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
