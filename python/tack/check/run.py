"""`tack.check(kernel, *args)`: run one launch on the simulator with a recorder, and report.

The kernel is specialized as for a normal call, except that the static workgroup contract's
refusal (a barrier under lane-dependent control flow) does not stop it: the simulator runs it,
and the refusal becomes a finding beside what the run shows (which lanes diverged, where).
"""
from __future__ import annotations

import functools
import weakref

import numpy as np

from .. import capabilities, compiler
from ..arrays import Array, zeros
from ..call import signature
from ..call.plan import _failed_on, _refuse_read_only_stores
from ..devices import make_device
from ..errors import CapabilityError, TackTypeError, TackValueError
from ..ir import nodes as N
from ..ir.ops import WORKGROUP
from ..ir.walk import iter_stmts
from ..kernel import BoundKernel, Kernel
from ..runtime.sim.trace import Site
from . import describe
from .recorder import CheckRecorder
from .report import CheckReport

OPTIONS = {"races": "race", "barriers": "barrier", "pipelines": "pipeline", "bounds": "bounds",
           "uninitialized": "uninitialized"}


@functools.cache
def sim_engine():
    """The simulator engine (one per process; loaded on first use)."""
    return make_device("sim").engine


def kinds_of(options: dict) -> tuple[frozenset, int]:
    """The kinds to check and the number of witnesses, from `tack.check`'s keyword options."""
    bad = sorted(set(options) - set(OPTIONS) - {"witnesses"})
    if bad:
        raise TackTypeError(f"tack.check got unknown option(s) {', '.join(bad)}; it takes "
                            f"{', '.join(OPTIONS)} (each True or False) and witnesses")
    for opt in OPTIONS:
        value = options.get(opt, True)
        if not isinstance(value, (bool, np.bool_)):
            raise TackValueError(f"tack.check option {opt}={value!r}: it takes True (check "
                                 "that kind, the default) or False")
    kinds = frozenset(k for opt, k in OPTIONS.items() if options.get(opt, True))
    witnesses = options.get("witnesses", 3)
    if isinstance(witnesses, bool) or not isinstance(witnesses, int) or witnesses < 1:
        raise TackValueError(f"witnesses must be a positive integer, got {witnesses!r}")
    return kinds, witnesses


class Prepared:
    """One launch made ready for the simulator: the final IR and what a normal call computes."""

    def __init__(self, kernel, args: tuple):
        if isinstance(kernel, BoundKernel):
            kernel, args = kernel.kernel, (kernel.obj, *args)
        if not isinstance(kernel, Kernel):
            raise TackTypeError(f"tack.check takes a @tack.kernel, got {type(kernel).__name__}")
        kernel.check_arity(args)
        self.kernel, self.args = kernel, args
        self.pk = pk = kernel.parse_for(args)
        self.values = signature.expand(pk.paths, args)
        self.specs = signature.specs(kernel.name, pk.params, self.values)
        self.kir, self.refusal = specialized(kernel, pk, self.specs)
        # As a normal call refuses it, before anything runs or is copied back.
        written = [p.kind == "array" and p.written for p in self.kir.params[:len(self.values)]]
        _refuse_read_only_stores(kernel.name, pk.params, written, self.values)
        self.n, self.hidden = pk.host_range.launch(args, kernel.name)
        self.names = [p.name for p in self.kir.params[:len(self.values)]]

    @property
    def name(self) -> str:
        return self.kernel.name

    @property
    def kir_has_barriers(self) -> bool:
        return capabilities.has_collectives(self.kir)

    def decls(self) -> dict:
        """Where each scratch array is declared (`tack.shared`, `tack.local_array`)."""
        return {s.name: Site.of(s.loc) for s in self.kir.scratch.values() if s.loc is not None}

    def aliases(self) -> dict:
        """For an array passed under several names: its first name -> the other names."""
        by_memory: dict = {}
        for name, v in zip(self.names, self.values):
            if v.__class__ is Array:
                by_memory.setdefault(_memory_key(v), []).append(name)
        return {names[0]: tuple(names[1:]) for names in by_memory.values() if len(names) > 1}

    def static_findings(self, kinds) -> list:
        """What the contract says before anything runs: a refused barrier, a partial group."""
        if "barrier" not in kinds:
            return []
        out = []
        if self.refusal is not None:
            out.append(describe.refused(self.name, self.refusal))
        first = next((st for st in iter_stmts(self.kir.body) if isinstance(st, N.Barrier)),
                     None) or next(iter(capabilities.warp_collectives(self.kir)), None)
        if first is not None and self.n % WORKGROUP and self.refusal is None:
            out.append(describe.partial_group(self.name, self.n, Site.of(first.loc)))
        return out


_SPECIALIZED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # kernel -> {key: ...}


def specialized(kernel, pk, specs: dict) -> tuple:
    """(final IR, the workgroup contract's refusal or None) for a parse and its argument specs,
    kept per kernel: a program under `TACK_CHECK` launches the same specialization many times."""
    key = (id(pk), tuple(sorted(specs.items(), key=lambda kv: kv[0])))
    per_kernel = _SPECIALIZED.setdefault(kernel, {})
    done = per_kernel.get(key)
    if done is None:
        typed = compiler.typecheck(kernel, pk, specs)
        sim = make_device("sim")
        try:  # what the simulator refuses before compiling, refused as a normal call does
            capabilities.check_local(typed, sim)
        except CapabilityError as exc:
            raise _failed_on(kernel.name, sim, exc) from None
        refusal = None
        try:
            capabilities.check_uniform_participation(typed)
        except TackValueError as exc:  # checked anyway: the run shows what diverges
            refusal = exc
        done = per_kernel[key] = (compiler.lower(typed, checked=True), refusal)
    return done


def _memory_key(a: Array) -> tuple:
    return ("host" if a._device.is_host else id(a._device), a._ptr)


def host_values(prep: Prepared, copy: bool) -> tuple[list, dict]:
    """The simulator's arguments (arrays as NumPy arrays): copies, or the arrays' own host
    buffers (a device array is staged through a copy either way). Returns the values and
    {memory: (Array, NumPy array)} of the arrays."""
    staged: dict = {}
    out = []
    for v in prep.values:
        if v.__class__ is not Array:
            out.append(v)
            continue
        key = _memory_key(v)
        if key not in staged:
            own = v._host if (v._host is not None and not copy) else v.numpy()
            staged[key] = (v, own)
        out.append(staged[key][1])
    return out, staged


def execute(prep: Prepared, values: list, kinds, witnesses: int) -> tuple[list, list]:
    """Run on the simulator with a recorder: (findings, reasons the run is incomplete)."""
    uninit = [nm for nm, v in zip(prep.names, prep.values)
              if v.__class__ is Array and v._unwritten] if "uninitialized" in kinds else []
    rec = CheckRecorder(prep.name, kinds, witnesses, prep.decls(), prep.aliases())
    incomplete = []
    if prep.n > 0:
        try:
            sim_engine().run(prep.kir, values + list(prep.hidden), prep.n, rec, uninit)
        except NotImplementedError as exc:  # something the simulator cannot model
            incomplete.append(f"the simulator could not run the kernel: {exc}")
    if rec.stopped is not None:
        incomplete.append(f"the launch stopped: {rec.stopped}")
    findings = list(rec.findings)
    diverged = {f.locations[0] for f in findings if f.kind == "barrier"}
    for f in prep.static_findings(kinds):
        if f.severity == "error" or f.locations[0] not in diverged:  # else the run said more
            findings.append(f)
    return findings, incomplete


def check(kernel, *args, **options) -> CheckReport:
    """Run one launch of `kernel(*args)` on the simulator and report races, barrier misuse,
    misused asynchronous copies, out-of-bounds indices and uninitialized reads
    (docs/checking.md).

    The kernel runs on copies: the caller's arrays are unchanged; the results are in
    `report.outputs`, keyed by parameter name. Options: `races`, `barriers`, `pipelines`,
    `bounds`, `uninitialized` (True by default; False leaves that kind unchecked) and `witnesses` (how many
    instances each finding keeps, 3). Nothing is printed unless asked (`report.print()`)."""
    kinds, witnesses = kinds_of(options)
    prep = Prepared(kernel, args)
    values, _ = host_values(prep, copy=True)
    findings, incomplete = execute(prep, values, kinds, witnesses)
    outputs = {nm: v for nm, v, p in zip(prep.names, values, prep.values)
               if p.__class__ is Array}
    returned = returned_value(prep, values) if prep.pk.epilogue is not None else None
    return CheckReport(prep.name, findings, outputs, kinds, incomplete, n=prep.n,
                       returned=returned)


def returned_value(prep: Prepared, values: list):
    """A kernel's return value: its one-iteration epilogue, run on the simulator unchecked."""
    epi = prep.pk.epilogue
    ret = zeros(1, prep.pk.ret_dtype, device=make_device("cpu"))  # host memory, for the specs
    specs = signature.specs(prep.name, epi.params, list(prep.values) + [ret])
    kir = compiler.lower(compiler.typecheck(prep.kernel, epi, specs))
    sim_engine().run(kir, values + [ret._host], 1)
    return ret._host[0].item()

