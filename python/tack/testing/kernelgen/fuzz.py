"""Stand-alone fuzzing: random kernels run by Tack and by the oracle, disagreements printed."""
from __future__ import annotations

import argparse

import numpy as np

import tack

from ..oracle import OutsideDomain, reference
from .choices import RandomChoices
from .generator import KernelGen


def main(argv=None) -> int:  # pragma: no cover - manual fuzzing entry point
    ap = argparse.ArgumentParser(description="Fuzz Tack with random kernels against the oracle")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--size", type=int, default=7)
    args = ap.parse_args(argv)
    failures = 0
    for k in range(args.count):
        spec = KernelGen(RandomChoices(args.seed * 100003 + k)).generate()
        pyargs = spec.make_args(args.size, k)
        try:
            ref = reference(spec.load(), *pyargs)
        except OutsideDomain:
            continue
        kern = spec.load()
        targs = _tack_args(pyargs)
        try:
            kern(*targs)
        # the oracle accepted this kernel, so Tack must run it: any exception it raises (a
        # compile error, a crash in an engine) is a finding, printed below, never hidden
        except Exception as exc:  # noqa: BLE001
            bad = [f"{type(exc).__name__}: {exc}"]
        else:
            bad = ref.mismatches([targs[p] for p in ref.positions], rows_of_tainted=True)
        if bad:
            failures += 1
            print(f"--- seed {args.seed} kernel {k}\n{spec.source}\n" + "\n".join(bad))
    print(f"{failures} of {args.count} kernels disagree")
    return 1 if failures else 0


def _tack_args(pyargs) -> list:
    """NumPy arrays as tack arrays: an aliased pair is one NumPy array, so one tack array too."""
    made = {}
    for a in pyargs:
        if isinstance(a, np.ndarray) and id(a) not in made:
            made[id(a)] = tack.array(a)
    return [made[id(a)] if isinstance(a, np.ndarray) else a for a in pyargs]
