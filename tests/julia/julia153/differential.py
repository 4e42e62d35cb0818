"""Generated kernels (`tack.testing.kernelgen`) on the Julia tier against the native CPU engine.

Each kernel runs three ways on the same arguments: the oracle (`tack.testing.oracle.reference`),
the native CPU engine, and Tack's Julia engine on a Julia process (`JuliaProcess`, through the
juliacall stand-in). A kernel disagrees when the Julia results leave the oracle's bound (the
check the native engine passes in tests/exec/test_differential.py), or differ from the native
engine's: integers bit for bit, floats by more than twice the oracle's bound (each engine may sit
at either end of it), with the oracle's tainted rows and unverifiable elements left out.

    python -m tests.julia.julia153.differential --count 500 --seed 1     # the long run

prints each disagreeing kernel's source, size and data seed, then one summary line.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tack.arrays import array
from tack.devices import set_default_device
from tack.testing.kernelgen import KernelGen, RandomChoices
from tack.testing.oracle import OutsideDomain, reference

SIZES = (7, 1, 31, 257)


@dataclass
class Tally:
    kernels: int = 0  # generated
    compared: int = 0  # run on both engines and compared
    outside: int = 0  # left the portable domain (the oracle rejects the arguments)
    mismatches: list = field(default_factory=list)  # (source, n, seed, descriptions)

    def line(self) -> str:
        return (f"{self.compared} of {self.kernels} generated kernels compared on Julia against "
                f"the native CPU engine ({self.outside} outside the domain): "
                f"{len(self.mismatches)} mismatches")


def _run(kern, args, engine: str) -> list:
    """The kernel's arguments after a call on the CPU device of `engine`."""
    set_default_device("cpu", engine=engine)
    made = {}  # an aliased pair is one NumPy array, so one tack array too
    targs = []
    for a in args:
        if isinstance(a, np.ndarray):
            targs.append(made.setdefault(id(a), array(a)))
        else:
            targs.append(a)
    try:
        kern(*targs)
    finally:
        set_default_device("cpu")
    return targs


def engines_disagree(ref, julia: list, native: list) -> list[str]:
    """Where Julia's array contents differ from the native engine's beyond the rule above."""
    out = []
    for name, tol, unv, j, c in zip(ref.names, ref.tolerance, ref.unverified, julia, native):
        j, c = np.asarray(j), np.asarray(c)
        skip = unv.reshape(j.shape).copy()
        for v in ref.tainted if j.ndim else ():
            if 0 <= v < j.shape[0]:
                skip[v] = True
        if j.dtype.kind in "iub":
            bad = (j != c) & ~skip
        else:
            a, b = j.astype(np.float64), c.astype(np.float64)
            t = 2 * tol.reshape(j.shape) + float(np.finfo(j.dtype).tiny)
            with np.errstate(all="ignore"):
                same = (a == b) | (np.isnan(a) & np.isnan(b)) | np.isinf(t)
                bad = ~(same | (np.abs(a - b) <= t)) & ~skip
        for pos in list(zip(*np.nonzero(bad)))[:4] if j.ndim else ([()] if bad else []):
            out.append(f"{name}[{', '.join(map(str, pos))}]: julia {j[pos]!r}, native {c[pos]!r}")
    return out


def compare_one(spec, n: int, seed: int) -> list[str] | None:
    """Mismatch descriptions for one kernel at one size (empty: agree), None outside the domain.
    The Julia engine must be reachable (`juliacall_pipe.installed`)."""
    args = spec.make_args(n, seed)
    kern = spec.load()
    try:
        ref = reference(kern, *args)
    except OutsideDomain:
        return None
    native = _run(kern, args, "native")
    try:
        julia = _run(kern, args, "julia")
    except Exception as exc:  # noqa: BLE001 - any Julia-side failure is the finding to report
        return [f"the Julia engine failed: {type(exc).__name__}: {str(exc)[:2000]}"]
    jarrays = [julia[p] for p in ref.positions]
    narrays = [native[p].numpy() for p in ref.positions]
    bad = [f"vs oracle: {m}" for m in ref.mismatches(jarrays, rows_of_tainted=True)]
    return bad + [f"vs native: {m}" for m in engines_disagree(
        ref, [a.numpy() for a in jarrays], narrays)]


def run(count: int, seed: int, tally: Tally | None = None, log=None) -> Tally:
    """Generate and compare `count` kernels (kernel k from seed `seed * 100003 + k`)."""
    tally = tally or Tally()
    for k in range(count):
        spec = KernelGen(RandomChoices(seed * 100003 + k)).generate()
        n = SIZES[k % len(SIZES)]
        tally.kernels += 1
        bad = compare_one(spec, n, k)
        if bad is None:
            tally.outside += 1
            continue
        tally.compared += 1
        if bad:
            tally.mismatches.append((spec.source, n, k, bad))
            if log:
                log(f"--- seed {seed} kernel {k} (n={n}, data seed {k})\n{spec.source}\n"
                    + "\n".join(bad))
    return tally


def main(argv=None) -> int:  # pragma: no cover - the long run's entry point
    from . import SKIP_REASON, launcher_path
    from .juliacall_pipe import installed
    from .process import JuliaProcess

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--julia-dir", type=Path, default=Path("julia"),
                    help="the repository's julia/ folder (default: ./julia)")
    args = ap.parse_args(argv)
    launcher = launcher_path()
    if launcher is None:
        print(SKIP_REASON)
        return 2
    proc = JuliaProcess(launcher, args.julia_dir)
    try:
        with installed(proc):
            tally = run(args.count, args.seed, log=print)
    finally:
        proc.close()
    print(tally.line() + f"; Julia processes started: {proc.starts}")
    return 1 if tally.mismatches else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
