"""Disk-cache faults (195 scenarios, and 86 for the kernel records): each row
populates a private cache in one process, damages one entry or directory, and runs the kernel
in a fresh process, which must give the right result, rebuild what it refused and repair it on
disk (cache_faults.py has the machinery and what each expectation checks). Targets: the
kernel's object code, the thread pool's, the host record, the kernel's spec and variant records
(tack.call.records); modes: a cache that reads and writes, and one that only reads."""
from __future__ import annotations

from .cache_faults import CONTENT, DIRS, PROCESS, ROOTS, TYPES
from .case import Case

_USED = {"forged-meta-not-json", "mode-0644", "hardlink", "root-symlink"}
_REFUSED = set(DIRS) | {"root-0777", "root-0770", "root-foreign-owner", "root-is-file"}
_QUICK = {("kernel", "flip-payload-middle", "readwrite"), ("pool", "truncate-half", "readwrite"),
          ("host", "garbage", "readwrite"), ("kernel", "fifo", "readwrite"),
          ("kernel", "forged-garbage", "readwrite"), ("kernel", "sparse-3g", "read")}
_READ_TYPES = ["fifo", "symlink-dangling", "mode-0666", "directory", "foreign-owner", "socket"]


def _expect(target: str, fault: str) -> str:
    if fault in _USED:
        return "used"
    if fault in _REFUSED:
        return "refused"
    if fault == "root-missing" or target == "host" and fault.startswith("forged-flipped"):
        return "repaired"  # compiled as much as it must; what matters is a right, intact end
    return "recompiled"


def _row(target: str, fault: str, mode: str) -> Case:
    expect = _expect(target, fault)
    setup = ("from tests.reliability.corpus import cache_faults as F\n"
             f"ctx = F.prepare({target!r}, {mode!r})\nF.apply(ctx, {fault!r})\n")
    check = f"try:\n    F.verify(ctx, r, {expect!r})\nfinally:\n    F.cleanup(ctx)\n"
    return Case(f"cache/{target}/{fault}/{mode}", "r = F.consume(ctx)", None, setup,
                check=check, quick=(target, fault, mode) in _QUICK, timeout=300,
                note=f"cache fault: {expect}", tags=("cache",))


def _process_row(fault: str) -> Case:
    setup = ("from tests.reliability.corpus import cache_faults as F\n"
             "ctx = F.prepare('host' if " + repr(fault) + " == 'host-forged-fields' else "
             "'kernel', 'readwrite')\n")
    return Case(f"cache/process/{fault}", "r = F.run_process_fault(ctx, " + repr(fault) + ")",
                None, setup, check="F.cleanup(ctx)\nassert r.get('ok'), r\n",
                timeout=600,
                note="cache faults: processes and settings", tags=("cache",))


def _cases() -> list[Case]:
    rows = []
    for target in ("kernel", "pool", "host", "spec", "variant"):
        rows += [_row(target, f, "readwrite") for f in CONTENT + TYPES]
    rows += [_row("kernel", f, "read") for f in CONTENT + _READ_TYPES]
    rows += [_row(t, f, "readwrite") for t in ("kernel", "host") for f in DIRS]
    rows += [_row("kernel", f, "readwrite") for f in ROOTS] + [_row("kernel", "root-missing",
                                                                    "read")]
    rows += [_process_row(f) for f in PROCESS]
    return rows


CASES = _cases()
