"""One call plan per specialization: what a kernel call with these argument kinds runs.

A `CallPlan` is everything one argument signature on one device selects: the parse its
arguments choose, what the typed IR bakes into the code (array extents, the loop variable's
range, workgroup collectives, which parameters are written), its key in the disk cache's records
(call/records.py, this plan's persistence), and per shape key (the values of the baked extents)
one `Variant`: the engine's launchable, its debug sites, its return-value epilogue and its
prebuilt call path (call/fast.py). `Kernel` keeps its plans in one dict under one key
(`plan_key`); `plan_for` looks a call's plan up there, and `build` is the one function that
makes one.

A call (`run`) takes this path and no other: the device and the key of the arguments, the plan,
the launch count, the variant (compiled on its first call), the launch values, the engine's
`launch`. The checks are the argument rows of call/signature.py and the launch-count rules
below; a variant's second call builds its prebuilt path from the same rows and rules, so later
calls take one generated function straight to the engine.
"""
from __future__ import annotations

from ..arrays import array, zeros
from ..capabilities import has_collectives, reject_workgroups
from ..devices import _global, deterministic_mode
from ..errors import (
    CapabilityError,
    TackError,
    TackIndexError,
    TackRuntimeError,
    TackValueError,
)
from ..frontend import depth
from ..ir.ops import WORKGROUP
from . import fast, records, signature


class Variant:
    """One compiled shape of a plan: the engine's launchable and what goes with it."""

    __slots__ = ("calls", "epilogue", "fast", "launchable", "sites")

    def __init__(self, launchable, sites):
        self.launchable = launchable
        self.sites = sites  # debug: the bounds-check sites the launch reports on
        self.epilogue = None  # the return value's one-iteration launchable, if any
        self.calls = 0  # the second builds the prebuilt path: a process calling once never pays
        self.fast = None  # the prebuilt call path (call/fast.py), None if not eligible


class CallPlan:
    """What one argument signature on one device runs (see the module docstring)."""

    __slots__ = ("baked", "collective", "debug", "device", "first", "index_range", "name",
                 "parsed", "pointers", "record", "variants", "written")

    def __init__(self, name, device, parsed, debug):
        self.name, self.device, self.parsed, self.debug = name, device, parsed, debug
        self.pointers = device.capabilities.takes_pointers  # arrays launch as addresses
        self.baked = []  # [(argument position, axis)] extents baked into the code
        self.index_range = None  # (min, max) of the parallel loop variable's type, or None
        self.written = []  # per IR parameter: may the kernel store into it
        self.collective = False  # barriers: launches must fill whole workgroups
        self.record = None  # the key of its disk-cache records (call/records.py), or None
        self.first = None  # (shape key, final IR, workgroup features) of the typed IR at hand
        self.variants: dict[tuple, Variant] = {}

    def shape_key(self, values) -> tuple:
        return tuple([values[i].shape[ax] for i, ax in self.baked]) if self.baked else ()

    # ---- the launch-count rules: the general path raises, the prebuilt path takes it -------
    def count_error(self, n: int, hidden) -> TackError | None:
        """What is wrong with a launch of n indices (`hidden`: the range's host values), checked
        before its variant is compiled; `fast.count_lines` spells the same rules."""
        if n and self.index_range is not None:
            rng = self.parsed.host_range  # range(n) spans [0, n - 1]: no call
            lo, hi = (0, n - 1) if rng.form == "stop" else rng.index_span(n, hidden)
            tmin, tmax = self.index_range
            if lo < tmin or hi > tmax:
                return index_span_error(self.name, lo if lo < tmin else hi, tmin, tmax)
        return None

    def run(self, kernel, args):
        """The general path of one call, from the plan on: launch count, variant, launch."""
        pk = self.parsed
        n, hidden = pk.host_range.launch(args, self.name)
        err = self.count_error(n, hidden)
        if err is not None:
            raise err
        values = args if pk.paths is None else signature.expand(pk.paths, args)
        shape_key = self.shape_key(values)
        variant = self.variants.get(shape_key) or compile_variant(kernel, self, values)
        launch = signature.launch_values(self.name, self.device, values, self.pointers)
        launch += hidden
        if self.collective and n % WORKGROUP:
            raise TackValueError(partial_group_message(self.name, n))
        if n:
            if self.debug:
                self._launch_debug(variant, launch, n)
            else:
                variant.launchable.launch(launch, n)
        variant.calls += 1
        if variant.calls == 2:
            variant.fast = fast.build(kernel, self, shape_key, variant, args)
        kernel._entry = variant.fast.call if variant.fast is not None else kernel._general
        if pk.epilogue is not None:
            return self._return_value(variant, values)

    def _launch_debug(self, variant: Variant, values, n) -> None:
        """Launch with the hidden bounds-check buffer, wait, and raise for a skipped access."""
        from ..passes.bounds import initial_buffer, report  # with the checks it reports on

        buf = array(initial_buffer(len(variant.sites)), device=self.device)
        variant.launchable.launch(values + [signature.launch_value(buf, self.pointers)], n)
        msg = report(self.name, variant.sites, buf.numpy())
        if msg is not None:
            raise TackIndexError(msg)

    def _return_value(self, variant: Variant, values):
        """Run the one-iteration epilogue that computes a kernel's return value (compiled
        with its variant, before the main launch)."""
        ret = zeros(1, self.parsed.ret_dtype, device=self.device)
        vals = list(values) + [ret]
        variant.epilogue.launch(signature.launch_values(self.name, self.device, vals,
                                                        self.pointers), 1)
        return ret.numpy()[0].item()


def plan_key(dev, sig, debug: bool) -> tuple:
    """The one key a kernel's plans are kept under: the device and the argument key (and
    debug mode, whose variants check every index)."""
    return (dev, sig, True) if debug else (dev, sig)


def call(kernel, args):
    """`kernel(*args)` on the general path: the plan of these arguments, then its `run`."""
    if _global["deterministic"] or _global["deterministic_scoped"]:
        kernel = kernel.in_mode(deterministic_mode())  # its own plans (docs/numerics.md)
    intercept = _global["intercept"]
    if intercept is not None:  # TACK_CHECK / python -m tack.check (tack/check/session.py)
        return intercept(kernel, args)
    dev, sig = signature.device_and_key(kernel.name, args)  # device: the arguments', or current
    key = plan_key(dev, sig, _global["debug"])
    plan = kernel._plans.get(key) if sig is not None else None
    if plan is None:
        plan = build(kernel, key, args)
    return plan.run(kernel, args)


def build(kernel, key, args) -> CallPlan:
    """The plan of a new specialization: from the disk cache's records when they hold it (no
    type checker), else from the typed IR (then recorded). Kept under `key` when the arguments
    have one."""
    dev, sig, debug = key[0], key[1], len(key) == 3
    pk = kernel.parse_call(args, keyed=sig is not None)
    values = signature.expand(pk.paths, args)
    plan = CallPlan(kernel.name, dev, pk, debug)
    if sig is None or not records.load_plan(kernel, plan, values):
        _typed(kernel, plan, values)
        records.store_plan(plan)
    _refuse_read_only_stores(kernel.name, pk.params, plan.written, values)
    if sig is not None:
        kernel._plans[key] = plan
    return plan


def _typed(kernel, plan: CallPlan, values) -> None:
    """Fill in what a new plan needs of its typed IR, and keep that IR for its first variant
    (`plan.first`)."""
    from .. import compiler  # the type checker and the passes: at the first compile

    pk = plan.parsed
    specs = signature.specs(plan.name, pk.params, values)  # raises for a bad argument
    try:
        kir, features = compiler.first_ir(kernel, pk, specs, plan.debug, plan.device)
    except CapabilityError as exc:
        raise _failed_on(plan.name, plan.device, exc) from exc
    # Extents baked into the code (a vector array's component dimensions are in its dtype).
    params = kir.params[:len(values)]
    plan.baked = [(i, ax) for i, p in enumerate(params) if p.kind == "array"
                  for ax, d in enumerate(p.shape) if d is not None and ax < values[i].ndim]
    var = kir.locals.get((pk.loop_vars or (pk.loop_var,))[0])
    plan.index_range = (var.min(), var.max()) if var is not None and var.is_int else None
    plan.written = [p.kind == "array" and p.written for p in params]
    plan.collective = has_collectives(kir)
    plan.first = (plan.shape_key(values), kir, features)


def compile_variant(kernel, plan: CallPlan, values) -> Variant:
    """The variant for the expanded arguments `values` (one value per IR parameter): from the
    records when they hold it, else compiled (and recorded)."""
    from .. import compiler  # (see _typed)

    shape_key = plan.shape_key(values)
    first, plan.first = plan.first, None
    launchable = None
    if first is None and plan.record is not None:  # no typed IR at hand: try the records
        parts = signature.spec_parts(plan.name, plan.parsed.params, values)
        launchable = records.load_variant(plan, shape_key, parts, lambda: (
            compiler.specialize_parts(kernel, plan.parsed, parts, plan.device, plan.debug)))
    epilogue, sites = None, []
    if launchable is None:
        kir = _final_ir(kernel, plan, values, shape_key, first)
        launchable = _engine_compile(plan, kir)
        if plan.parsed.epilogue is not None:
            epilogue = _compile_epilogue(kernel, plan, values)
        sites = kir.notes.get("debug_sites", [])
        records.store_variant(plan, shape_key, launchable)
    variant = Variant(launchable, sites)
    variant.epilogue = epilogue
    plan.variants[shape_key] = variant
    return variant


def _final_ir(kernel, plan: CallPlan, values, shape_key, first):
    """The variant's final IR: `first` when it is this variant's, else typechecked."""
    from .. import compiler  # (see _typed)

    try:
        if first is not None and first[0] == shape_key:
            reject_workgroups(first[1], first[2], plan.device)
            return first[1]
        specs = signature.specs(plan.name, plan.parsed.params, values)
        return compiler.specialize_parsed(kernel, plan.parsed, specs, plan.device, plan.debug)
    except CapabilityError as exc:
        raise _failed_on(plan.name, plan.device, exc) from exc


def _engine_compile(plan: CallPlan, kir):
    """The engine's launchable for a final IR; a backend failure names the kernel once."""
    from ..compiler import nesting

    try:
        return depth.on_deep_stack(nesting(kir), plan.device.engine.compile, kir)
    except TackError:
        raise
    except Exception as exc:
        raise TackRuntimeError(f"Kernel '{plan.name}' failed to compile on "
                               f"{plan.device.label}: {exc}") from exc


def _compile_epilogue(kernel, plan: CallPlan, values):
    """The return value's epilogue for these arguments: typed and compiled before the main
    loop runs, so that an error in `return expr` changes nothing."""
    from .. import compiler  # (see _typed)

    vals = list(values) + [zeros(1, plan.parsed.ret_dtype, device=plan.device)]
    epi_pk = plan.parsed.epilogue
    specs = signature.specs(plan.name, epi_pk.params, vals)
    kir = compiler.specialize_parsed(kernel, epi_pk, specs, plan.device)
    return depth.on_deep_stack(compiler.nesting(kir), plan.device.engine.compile, kir)


def _refuse_read_only_stores(name: str, params, written, values) -> None:
    """A read-only array (memory imported read-only) passed where the kernel may store or
    update atomically (`written[k]` for parameter k): refused before anything runs. Read-only
    arrays key their own specializations (arrays.READ_ONLY), so this runs once per plan."""
    for p, w, a in zip(params, written, values):
        if w and getattr(a, "readonly", False):
            raise TackValueError(f"Kernel '{name}': parameter '{p}' may be written (a store "
                                 "or an atomic update), but its array is read-only (imported "
                                 "from read-only memory); pass a copy (a.copy())")


def _failed_on(name: str, dev, exc: CapabilityError) -> TackRuntimeError:
    """What the caller sees when the device cannot run the kernel (CPU: workgroup primitives)."""
    return TackRuntimeError(f"Kernel '{name}' failed on {dev.label}: {exc}", loc=exc.loc)


def index_span_error(name: str, bad: int, tmin: int, tmax: int) -> TackValueError:
    """The loop variable takes its bounds' types, computed on the host in Python integers:
    a launch whose indices leave that type would wrap, so it is refused before it runs."""
    return TackValueError(
        f"Kernel '{name}': the parallel loop's index reaches {bad}, outside the range of its "
        f"type [{tmin}, {tmax}] (the loop variable takes the type of the range's arguments; a "
        "scalar argument is i32 when its value fits, whatever its NumPy type); write the bound "
        "as tack.i64(...), e.g. range(tack.i64(n) * 4), or bound it by an array extent for an "
        "i64 index")


def partial_group_message(name: str, n: int) -> str:
    return (f"Kernel '{name}': workgroup collectives require complete {WORKGROUP}-lane groups; "
            f"iteration count {n} would create a partial workgroup. Pad the data with the "
            "reduction's identity (0.0 for a sum, inf for a minimum, -inf for a maximum).")
