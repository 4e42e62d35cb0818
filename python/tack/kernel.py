"""`@tack.kernel`: a Python function that runs as a parallel loop, specialized per argument types."""
from __future__ import annotations

import functools
import operator
import threading

from . import compiler, signature
from .arrays import array, zeros
from .capabilities import has_collectives, reject_workgroups
from .devices import _global, launch_device
from .dispatch import MISS
from .dispatch import build as build_fast
from .errors import (
    CapabilityError,
    TackError,
    TackIndexError,
    TackRuntimeError,
    TackTypeError,
    TackValueError,
    for_user,
)
from .frontend import depth
from .frontend.parser import Parser
from .frontend.source import capture, closure_values
from .ir.ops import WORKGROUP

# A variant called once: its second call builds its prebuilt call path (tack.dispatch: ~1 ms of
# compiling generated Python on a small VM), which a process that calls it once never needs.
_SECOND = object()


class _Spec:
    """Everything shared by the variants of one argument signature on one device."""

    __slots__ = (
        "baked",
        "collective",
        "debug",
        "epilogues",
        "fast",
        "first",
        "front",
        "hidden",
        "index_range",
        "parsed",
        "pointers",
        "sites",
        "variants",
    )

    def __init__(self, baked, hidden, debug=False, parsed=None, pointers=True):
        self.parsed = parsed  # the parse these arguments select (device classes shape it)
        self.pointers = pointers  # the engine takes arrays as addresses (else as buffers)
        self.baked = baked  # [(arg position, axis)] extents baked into the code
        self.variants = {}
        self.hidden = hidden
        self.debug = debug  # debug variants check every index and report after each launch
        self.sites = {}  # debug: shape key -> check sites of that variant
        self.epilogues = {}  # shape key -> compiled return-value epilogue
        self.collective = False  # barriers: launches must fill whole workgroups
        # shape key -> prebuilt call path (tack.dispatch), None if not eligible, _SECOND after
        # the variant's first call
        self.fast = {}
        self.first = None  # (shape key, final IR, workgroup features): the spec's own IR, reused
        self.index_range = None  # (min, max) of the parallel loop variable's type
        self.front = None  # its key in the disk cache's records (tack.front_cache), or None


class Kernel:
    """A compiled-on-demand kernel. Call it with arrays and scalars, by position."""

    __tack_kernel__ = True  # how the frontend (which cannot import this layer) recognizes one

    def __init__(self, fn, fastmath: bool = False):
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise TackTypeError(f"@tack.kernel decorates a function, got {type(fn).__name__}")
        self.fn = fn
        self.options = {"fastmath": bool(fastmath)}
        self.name = fn.__name__
        self.source = capture(fn)  # fails now, with advice, if the source cannot be read
        self.depth, self._deepest = depth.nesting(self.source.tree)  # frontend/depth.py
        self._parsed = {}  # object structure key -> ParsedKernel
        self._specs: dict = {}
        self._fast = None  # the prebuilt call path of the variant called last (tack.dispatch)
        self._entry = self._general  # what a call runs: that variant's `call`, else the general
        self._lock = threading.Lock()
        functools.update_wrapper(self, fn)

    def __repr__(self) -> str:
        return f"<tack.kernel {self.name}>"

    def __get__(self, obj, cls=None):
        """A kernel defined in a device class's body binds the instance: `grid.step(0.1)`."""
        if obj is None:
            return self
        return BoundKernel(self, obj)

    def parse_for(self, args):
        """The parsed kernel for these arguments: device-class arguments shape the parse."""
        try:
            key = signature.objects_key(args)
        except TackTypeError as exc:  # an object that holds itself
            raise TackTypeError(f"Kernel '{self.name}': {exc}") from None
        pk = self._parsed.get(key)
        if pk is None:
            closure = closure_values(self.fn)
            names = [a.arg for a in self.source.tree.args.args]
            objects = signature.object_infos(args, names)
            depth.check(self.source, self.depth, self._deepest, f"Kernel '{self.name}'")
            parser = Parser(self.source, self.fn.__globals__, closure, objects=objects)
            pk = depth.on_deep_stack(depth.kernel_depth(self.depth), parser.parse_kernel)
            self._parsed[key] = pk
        return pk

    @property
    def parsed(self):
        """The parse for arguments without device-class objects."""
        return self.parse_for(())

    def check_arity(self, args) -> None:
        a = self.source.tree.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
            self.parse_for(args)  # raises the signature's UnsupportedSyntaxError, at the def
        n = len(a.args)
        if len(args) != n:
            raise TackTypeError(f"Kernel '{self.name}' expects {n} arguments, got {len(args)}")

    # -- calls ----------------------------------------------------------------------------------
    # `kernel(...)` runs `self._entry`: after a call that built a prebuilt call path (a
    # variant's second call, `_prebuilt`), that variant's generated `call` (tack.dispatch), which checks the arguments and launches in
    # one Python frame and takes `_call` on any mismatch; otherwise `_general`. Read through a
    # C attrgetter, so no Python-level __call__ frame comes first.
    __call__ = property(operator.attrgetter("_entry"))

    def _general(self, *args, **kwargs):
        try:
            return self._call_checked(args, kwargs)
        except TackError as exc:
            raise for_user(exc)  # the same exception, its internal frames dropped

    def _call(self, args, kwargs):
        """The general path: find or build the specialization, check, launch. An error Tack
        raises on purpose reaches the caller without the compiler's frames (`errors.for_user`)."""
        try:
            return self._call_checked(args, kwargs)
        except TackError as exc:
            raise for_user(exc)  # the same exception, its internal frames dropped

    def _call_checked(self, args, kwargs):
        if kwargs:
            args = signature.by_position(self.name, self.source.tree.args, args, kwargs)
        intercept = _global["intercept"]
        if intercept is not None:  # TACK_CHECK / python -m tack.check (tack/check/session.py)
            return intercept(self, args)
        dev = launch_device(self.name, args)  # the arguments' device, else the current one
        sig = signature.key(args)
        debug = _global["debug"]
        key = (dev, sig, True) if debug else (dev, sig)
        spec = self._specs.get(key) if sig is not None else None
        if spec is None:
            spec = self._new_spec(key, args, debug)
        pk = spec.parsed
        n, hidden = pk.host_range.launch(args, self.name)
        if n and spec.index_range is not None:
            self._check_index_span(spec, n, hidden)
        values = args if pk.paths is None else signature.expand(pk.paths, args)
        shape_key = tuple([values[i].shape[ax] for i, ax in spec.baked]) if spec.baked else ()
        variant = spec.variants.get(shape_key)
        if variant is None:
            variant = self._compile(dev, spec, values)
        launch = signature.launch_values(self.name, dev, values, spec.pointers)
        launch += hidden
        if spec.collective and n % WORKGROUP:
            raise TackValueError(partial_group_message(self.name, n))
        if n:
            if spec.debug:
                self._launch_debug(dev, spec, variant, launch, n, spec.sites[shape_key])
            else:
                variant.launch(launch, n)
        fast = self._prebuilt(dev, spec, shape_key, variant, args)
        self._fast, self._entry = fast, (fast.call if fast is not None else self._general)
        if pk.epilogue is not None:
            return self._return_value(dev, spec, shape_key, values)

    def _prebuilt(self, dev, spec: _Spec, shape_key, variant, values):
        """The variant's prebuilt call path (tack.dispatch), built by its second call: None
        after its first (maybe the process's only one) and where it is not eligible."""
        fast = spec.fast.get(shape_key, MISS)
        if fast is MISS:
            spec.fast[shape_key] = _SECOND
            return None
        if fast is _SECOND:
            fast = spec.fast[shape_key] = build_fast(self, dev, spec, shape_key, variant, values)
        return fast

    def _check_index_span(self, spec: _Spec, n: int, hidden) -> None:
        """The loop variable takes its bounds' types, computed on the host in Python integers:
        a launch whose indices leave that type would wrap, so it is refused before it runs."""
        lo, hi = spec.parsed.host_range.index_span(n, hidden)
        tmin, tmax = spec.index_range
        if lo < tmin or hi > tmax:
            bad = lo if lo < tmin else hi
            raise TackValueError(
                f"Kernel '{self.name}': the parallel loop's index reaches {bad}, outside the "
                f"range of its type [{tmin}, {tmax}] (the loop variable takes the type of the "
                "range's arguments; a scalar argument is i32 when its value fits, whatever "
                "its NumPy type); write the bound as tack.i64(...), e.g. "
                "range(tack.i64(n) * 4), or bound it by an array extent for an i64 index")

    def _return_value(self, dev, spec: _Spec, shape_key, args):
        """Run the one-iteration epilogue that computes a kernel's return value (compiled
        with its variant, before the main launch)."""
        ret = zeros(1, spec.parsed.ret_dtype, device=dev)
        vals = list(args) + [ret]
        epi = spec.epilogues.get(shape_key) or self._compile_epilogue(dev, spec, shape_key, args)
        epi.launch(signature.launch_values(self.name, dev, vals, spec.pointers), 1)
        return ret.numpy()[0].item()

    def _compile_epilogue(self, dev, spec: _Spec, shape_key, args):
        """The return value's epilogue for these arguments: typed and compiled before the
        main loop runs, so that an error in `return expr` changes nothing."""
        vals = list(args) + [zeros(1, spec.parsed.ret_dtype, device=dev)]
        epi_pk = spec.parsed.epilogue
        specs = signature.specs(self.name, epi_pk.params, vals)
        kir = compiler.specialize_parsed(self, epi_pk, specs, dev)
        epi = spec.epilogues[shape_key] = depth.on_deep_stack(compiler.nesting(kir),
                                                               dev.engine.compile, kir)
        return epi

    def _launch_debug(self, dev, spec: _Spec, variant, values, n, sites) -> None:
        """Launch with the hidden bounds-check buffer, wait, and raise for a skipped access."""
        from .passes.bounds import initial_buffer, report  # with the checks it reports on

        buf = array(initial_buffer(len(sites)), device=dev)
        variant.launch(values + [signature.launch_value(buf, spec.pointers)], n)
        msg = report(self.name, sites, buf.numpy())
        if msg is not None:
            raise TackIndexError(msg)

    def _new_spec(self, key, args, debug: bool) -> _Spec:
        self.check_arity(args)
        if key[1] is None:  # an argument without a key: its TypeError comes before any parse
            plain = [(p.arg, a) for p, a in zip(self.source.tree.args.args, args)
                     if not signature.at_parse(a)]
            signature.specs(self.name, [p for p, _ in plain], [a for _, a in plain])
        from . import front_cache  # the disk cache loads at the first compile, not at import

        pk = self.parse_for(args)
        values = signature.expand(pk.paths, args)
        dev = key[0]
        # The disk cache's records, keyed on the parse (tack.front_cache): a hit needs no
        # type checker; otherwise the typed IR gives the spec and its record is stored.
        front = (front_cache.spec_key(self, dev, pk, values, debug) if key[1] is not None
                 else None)
        rec = front_cache.load_spec(front, self.name, values)
        if rec is None:
            rec, first = self._typed_spec(pk, values, dev, debug)
            front_cache.store_spec(front, self.name, rec)
        else:
            first = None
        _refuse_read_only_stores(self.name, pk.params, rec.written, values)
        spec = _Spec(rec.baked, list(pk.host_range.hidden), debug, pk,
                     dev.capabilities.takes_pointers)
        spec.collective, spec.index_range, spec.front = rec.collective, rec.index_range, front
        # The first variant compiles from this IR: the device check is all that is left to do.
        spec.first = first
        if key[1] is not None:
            with self._lock:
                self._specs[key] = spec
        return spec

    def _typed_spec(self, pk, values, dev, debug: bool):
        """The spec record of a new specialization from its typed IR, and (shape key, final
        IR, workgroup features) for its first variant."""
        specs = signature.specs(self.name, pk.params, values)  # raises for a bad argument
        try:
            kir, features = compiler.first_ir(self, pk, specs, debug, dev)
        except CapabilityError as exc:
            raise _failed_on(self.name, dev, exc) from exc
        # Extents baked into the code (a vector array's component dimensions are in its dtype).
        baked = [(i, ax) for i, p in enumerate(kir.params[:len(values)]) if p.kind == "array"
                 for ax, d in enumerate(p.shape) if d is not None and ax < values[i].ndim]
        var = kir.locals.get((pk.loop_vars or (pk.loop_var,))[0])
        index_range = (var.min(), var.max()) if var is not None and var.is_int else None
        written = [p.kind == "array" and p.written for p in kir.params[:len(values)]]
        from .front_cache import SpecRecord  # (see _new_spec)

        rec = SpecRecord(baked, index_range, written, has_collectives(kir))
        return rec, (tuple([values[i].shape[ax] for i, ax in baked]), kir, features)

    def _compile(self, dev, spec: _Spec, args):
        """Compile for the expanded arguments `args` (one value per IR parameter)."""
        from . import front_cache  # (see _new_spec)

        shape_key = tuple([args[i].shape[ax] for i, ax in spec.baked])
        first, spec.first = spec.first, None
        variant = None
        if first is None and spec.front is not None:  # no typed IR at hand: try the records
            parts = signature.spec_parts(self.name, spec.parsed.params, args)
            variant = front_cache.load_variant(
                dev.engine, spec.front, self.name, shape_key, lambda: (
                    compiler.specialize_parts(self, spec.parsed, parts, dev, spec.debug)),
                front_cache.expected_params(spec.parsed, parts))
        if variant is None:
            variant = self._compile_ir(dev, spec, args, shape_key, first)
            if spec.front is not None:
                front_cache.store_variant(spec.front, self.name, shape_key, variant)
        with self._lock:
            spec.sites.setdefault(shape_key, [])
            spec.variants[shape_key] = variant
        return variant

    def _compile_ir(self, dev, spec: _Spec, args, shape_key, first):
        """Typecheck (unless `first` holds this variant's IR) and compile one variant."""
        try:
            if first is not None and first[0] == shape_key:
                kir = first[1]
                reject_workgroups(kir, first[2], dev)
            else:
                specs = signature.specs(self.name, spec.parsed.params, args)
                kir = compiler.specialize_parsed(self, spec.parsed, specs, dev, spec.debug)
        except CapabilityError as exc:
            raise _failed_on(self.name, dev, exc) from exc
        try:
            variant = depth.on_deep_stack(compiler.nesting(kir), dev.engine.compile, kir)
        except TackError:
            raise
        except Exception as exc:  # a backend failure names the kernel once
            raise TackRuntimeError(f"Kernel '{self.name}' failed to compile on {dev.label}: "
                                   f"{exc}") from exc
        if spec.parsed.epilogue is not None:
            self._compile_epilogue(dev, spec, shape_key, args)
        with self._lock:
            spec.sites[shape_key] = kir.notes.get("debug_sites", [])
        return variant


def _refuse_read_only_stores(name: str, params, written, values) -> None:
    """A read-only array (memory imported read-only) passed where the kernel may store or
    update atomically (`written[k]` for parameter k): refused before anything runs. Read-only
    arrays key their own specializations (arrays.READ_ONLY), so this runs once per
    specialization."""
    for p, w, a in zip(params, written, values):
        if w and getattr(a, "readonly", False):
            raise TackValueError(f"Kernel '{name}': parameter '{p}' may be written (a store "
                                 "or an atomic update), but its array is read-only (imported "
                                 "from read-only memory); pass a copy (a.copy())")


def _failed_on(name: str, dev, exc: CapabilityError) -> TackRuntimeError:
    """What the caller sees when the device cannot run the kernel (CPU: workgroup primitives)."""
    return TackRuntimeError(f"Kernel '{name}' failed on {dev.label}: {exc}", loc=exc.loc)


def partial_group_message(name: str, n: int) -> str:
    return (f"Kernel '{name}': workgroup collectives require complete {WORKGROUP}-lane groups; "
            f"iteration count {n} would create a partial workgroup. Pad the data with the "
            "reduction's identity (0.0 for a sum, inf for a minimum, -inf for a maximum).")


class BoundKernel:
    """A kernel defined in a device class, bound to an instance (its first argument)."""

    def __init__(self, kernel: Kernel, obj):
        self.kernel, self.obj = kernel, obj
        self.name = kernel.name

    def __call__(self, *args, **kwargs):
        return self.kernel(self.obj, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<bound tack.kernel {self.name} of {self.obj!r}>"


def kernel(fn=None, *, fastmath: bool = False):
    """Decorator: compile `fn` as a Tack kernel (lazily, at its first call).

    `@tack.kernel(fastmath=True)` lets the compiler reassociate and approximate floating-point
    arithmetic in this kernel (LLVM's `fast` flags; approximate division, square root and
    reciprocal square root on GPUs). Off by default: results then follow IEEE rules exactly,
    multiply-add contraction being the only liberty."""
    if fn is None:
        return lambda f: kernel(f, fastmath=fastmath)
    try:
        return Kernel(fn, fastmath=fastmath)
    except TackError as exc:
        raise for_user(exc)  # the same exception, its internal frames dropped
