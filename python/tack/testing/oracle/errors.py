"""The oracle's errors: the kernel is outside the domain, or Tack must reject it."""
from __future__ import annotations


class OracleError(Exception):
    """Base of the oracle's own errors."""


class OutsideDomain(OracleError):
    """The kernel leaves the portable domain for these inputs (no defined result to compare)."""


class Rejected(OracleError):
    """Tack must reject this kernel or these argument types (e.g. a signed type with u64)."""


class _Pending(Exception):
    """Type pass: a local's type is not known yet."""
