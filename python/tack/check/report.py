"""`tack.CheckReport`: what one `tack.check` found, its verdict, and `tack.CheckError`."""
from __future__ import annotations

import sys

from ..errors import TackError
from .findings import ERROR, KINDS, Finding

VERDICTS = ("clean", "review", "incomplete", "error")


class CheckError(TackError, AssertionError):
    """`CheckReport.require_clean()` failed: the report's text is the message, `.report` the
    report (an AssertionError, so a failing check reads as a test failure in pytest)."""

    def __init__(self, report: CheckReport):
        super().__init__(report.text())
        self.report = report


class CheckReport:
    """The findings of one checked launch (or, for a program, of every launch of a kernel).

    `verdict`: "error" (a finding of severity error), "incomplete" (something could not be
    modelled: `incomplete` says what), "review" (advisory findings only) or "clean". A verdict
    covers the launch and inputs checked and the kinds in `checked`, nothing else
    (docs/checking.md, "What a verdict covers")."""

    def __init__(self, kernel: str, findings: list[Finding], outputs: dict | None = None,
                 checked=KINDS, incomplete: list[str] | None = None, launches: int = 1,
                 n: int | None = None, returned=None):
        order = {k: i for i, k in enumerate(KINDS)}
        self.kernel = kernel
        self.findings = sorted(findings, key=lambda f: (f.severity != ERROR, order[f.kind],
                                                        f.locations))
        self.outputs = outputs if outputs is not None else {}
        self.checked = tuple(k for k in KINDS if k in checked)
        self.incomplete = list(incomplete or [])
        self.launches = launches
        self.n = n  # the launch's iteration count (the last launch's, for a program)
        self.returned = returned  # the kernel's return value, if it has one

    @property
    def verdict(self) -> str:
        if any(f.severity == ERROR for f in self.findings):
            return "error"
        if self.incomplete:
            return "incomplete"
        return "review" if self.findings else "clean"

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    def of_kind(self, kind: str) -> list[Finding]:
        return [f for f in self.findings if f.kind == kind]

    def __bool__(self) -> bool:
        """True when clean: `assert tack.check(k, ...)` reads naturally (require_clean says
        more)."""
        return self.verdict == "clean"

    def __repr__(self) -> str:
        return (f"<tack.CheckReport {self.kernel}: {self.verdict}, {len(self.findings)} "
                f"finding{'s' * (len(self.findings) != 1)}>")

    def to_dict(self) -> dict:
        """JSON-safe (outputs are left out: they are arrays)."""
        return {"kernel": self.kernel, "verdict": self.verdict, "checked": list(self.checked),
                "launches": self.launches, "n": self.n, "incomplete": list(self.incomplete),
                "findings": [f.to_dict() for f in self.findings]}

    def text(self) -> str:
        """What `print` shows: a headline, then each finding with its source lines."""
        plural = "es" * (self.launches != 1)
        head = (f"tack.check {self.kernel} ({self.launches} launch{plural}): {self.verdict}, "
                f"{len(self.findings)} finding{'s' * (len(self.findings) != 1)}")
        lines = [head]
        lines += [f"  incomplete: {why}" for why in self.incomplete]
        for f in self.findings:
            lines += ["  " + ln for ln in f.format().split("\n")]
        unchecked = [k for k in KINDS if k not in self.checked]
        if unchecked:
            lines.append(f"  not checked: {', '.join(unchecked)}")
        return "\n".join(lines)

    def print(self, file=None) -> None:
        print(self.text(), file=file if file is not None else sys.stdout)

    def require_clean(self) -> CheckReport:
        """Raise `tack.CheckError` unless the verdict is "clean"; returns the report."""
        if self.verdict != "clean":
            raise CheckError(self)
        return self
