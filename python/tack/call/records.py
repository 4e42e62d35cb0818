"""A call plan's persistence: its disk-cache records, keyed on the parse (no type checker).

The CPU engine keys object code on the final `KernelIR`, so before this a cached first call still
imported and ran the type checker and the IR passes (~15 ms of a 45 ms first call on a small VM).
The parse is the frontend's complete answer to what a kernel depends on: every global, closure
value and `tack.constant` it reads is a literal there, and every `@tack.func` it calls is inlined
into its body (frontend/parser/names.py, calls.py). The type checker and the passes are
deterministic functions of the parse, the argument specs, the kernel's options and Tack's own
code. So a key over those (plus what the engine adds: the host CPU, LLVM's build) names the
final IR as well as the IR itself does, one step earlier (docs/design/005-disk-cache.md,
"Keyed before the type checker").

Two records per kernel, both plain tokens (tack.cache.records), kind `kernel/`:

- the *spec* record, keyed on the parse, the arguments' kinds, dtypes and ranks, the options,
  the engine and Tack's code: the fields of a `CallPlan` (call/plan.py) that come from the
  typed IR (the extents baked into the code, the loop variable's range, which parameters are
  written, whether launches must fill workgroups), read into and written from the plan itself;
- the *variant* record, keyed on the spec key and the baked extents' values: the engine's launch
  record (`Launchable.record`: for the CPU the parameter layout and the key of the object code).

Anything unusual — the cache off, debug mode, device-class arguments, a return value, an engine
without records (`EngineKind.records`, known before the engine starts), a parse holding
something `digest_object` cannot digest — gives no key, and the kernel is typechecked and
compiled as before (with the `KernelIR`-keyed object cache).

A record is data from disk, so nothing that keeps memory safe is taken from it alone. Each one
names the kernel and the key it was stored under, so a valid record of another kernel (or of
another variant) copied under this key is refused rather than run. And a call with a read-only
array gets no key: whether the kernel may write a parameter — what refuses read-only memory
before launch — then always comes from the type checker, never from a record's `written`
flags.
"""
from __future__ import annotations

import dataclasses
import sys

from .. import cache
from ..cache import records
from ..dtypes import i64
from . import signature

KIND = "kernel"
FORMAT = 2  # of the records below: bump on any change to what they hold
_VARIANT = b"tack-variant/1 "  # the first line of a variant record: kernel name, key
counts = {"specs": 0, "variants": 0}  # this process's plans and variants from records


def parse_digest(pk) -> str:
    """A digest of everything the type checker reads of a parse: every field of the
    `ParsedKernel` (its body with every inlined function and constant), its source by position
    (file, first line, indentation, scope: the `Loc`s carry the rest), and the launch range by
    its text (`evaluate` is compiled from `source`). TypeError if it holds something
    `digest_object` does not know."""
    parts = []
    for f in dataclasses.fields(pk):
        v = getattr(pk, f.name)
        if f.name == "source":
            v = [v.file, v.first_line, v.indent, v.scope]
        elif f.name == "host_range":
            v = [[g.name, getattr(v, g.name)] for g in dataclasses.fields(v)
                 if g.name != "evaluate"]
        elif f.name == "after" and v is not None:  # the locals after the loop: typed too
            v = parse_digest(v)
        parts.append([f.name, v])
    return cache.digest_object(parts)


def plan_key(kernel, plan, values) -> str | None:
    """The key of the spec record of `plan` (for these IR parameter values), or None where this
    cache does not apply (see the module docstring)."""
    pk, dev = plan.parsed, plan.device
    if (plan.debug or not signature.selects(pk.paths) or pk.epilogue is not None
            or not dev.kind.records
            or not cache.enabled() or any(getattr(v, "readonly", False) for v in values)):
        return None
    engine = dev.engine  # (records: an engine whose start is cheap and cannot fail on a GPU)
    target = engine.record_key()
    if target is None:
        return None
    try:
        digest = parse_digest(pk)
    except (TypeError, RecursionError):
        return None
    args = [[kind, t.name, ndim] for kind, t, ndim, _ in
            signature.spec_parts(kernel.name, pk.params, values)]
    return cache.make_key(KIND, "spec", FORMAT, digest, args, dict(kernel.options),
                          type(engine).__module__ + "." + type(engine).__qualname__, dev.arch,
                          target, cache.package_digest(), sys.implementation.name,
                          list(sys.version_info[:3]))


def load_plan(kernel, plan, values) -> bool:
    """Set `plan.record` (`plan_key`) and fill in the plan's typed-IR fields from the spec
    record stored under it; False (those fields unchanged) if absent or not one this Tack wrote
    for its kernel and these IR parameter values (this kernel and key, positions and axes of
    the baked extents, one written flag per parameter)."""
    key = plan.record = plan_key(kernel, plan, values)
    name = plan.name
    entry = cache.load(KIND, key) if key is not None else None
    if entry is None:
        return False
    lines = records.loads(entry.data)
    try:
        f = records.fields(lines) if lines is not None else {}
        if f["for"] != [[name, key]]:
            return False
        baked = [(records.integer(i), records.integer(ax)) for i, ax in f.get("baked", [])]
        (rng,), (written,), ((collective,),) = f["range"], f["written"], f["collective"]
        lo, hi = (records.optional_integer(x) for x in rng)
        written = [records.flag(w) for w in written]
        collective = records.flag(collective)
    except (KeyError, ValueError):  # a missing field, too many or too few tokens
        return False
    ndims = [getattr(v, "ndim", 0) for v in values]
    if len(written) != len(values) or not all(
            0 <= i < len(values) and 0 <= ax < ndims[i] for i, ax in baked):
        return False
    plan.baked, plan.written, plan.collective = baked, written, collective
    plan.index_range = None if lo is None or hi is None else (lo, hi)
    counts["specs"] += 1
    return True


def store_plan(plan) -> None:
    """Write `plan`'s typed-IR fields as its spec record (nothing without a key)."""
    key = plan.record
    if key is None:
        return
    lo, hi = plan.index_range or (None, None)
    lines = [("for", plan.name, key)] + [("baked", i, ax) for i, ax in plan.baked]
    lines += [("range", lo, hi), ("written", *plan.written), ("collective", plan.collective)]
    try:
        data = records.dumps(lines)
    except ValueError:  # a name that is not one token: kept without records
        return
    cache.store(KIND, key, data, {"record": "spec"})


def variant_key(key: str, shape_key: tuple) -> str:
    return cache.make_key(KIND, "variant", FORMAT, key, [int(x) for x in shape_key])


def load_variant(plan, shape_key: tuple, parts, make_kir):
    """The plan's launchable for these baked extents, from its launch record; None if absent,
    stored for another kernel or key, or unusable (`engine.from_record` checks it against the
    parameters the type checker would give from `parts`, `signature.spec_parts`, and its code).
    `make_kir()` gives the final IR should anything ask for it."""
    vkey = variant_key(plan.record, shape_key)
    entry = cache.load(KIND, vkey)
    head = _VARIANT + f"{plan.name} {vkey}\n".encode()
    variant = None
    if entry is not None and entry.data.startswith(head):
        variant = plan.device.engine.from_record(entry.data[len(head):], make_kir,
                                                 expected_params(plan.parsed, parts))
    if variant is not None:
        counts["variants"] += 1
    return variant


def expected_params(pk, parts) -> list[tuple]:
    """(name, kind, dtype, ndim) of each parameter of the final IR, as the type checker makes
    them from `signature.spec_parts` (a vector array's components are trailing dimensions),
    then the launch range's hidden i64 scalars: what a launch record must describe."""
    out = []
    for name, (kind, t, ndim, _) in zip(pk.params, parts):
        if kind == "array" and hasattr(t, "elem"):  # a VecType
            t, ndim = t.elem, ndim + len(t.shape)
        out.append((name, kind, t, ndim))
    return out + [(h, "scalar", i64, 0) for h in pk.host_range.hidden]


def store_variant(plan, shape_key: tuple, launchable) -> None:
    """Write the launch record of `launchable` (nothing without a key, or where the engine
    keeps none)."""
    if plan.record is None:
        return
    data = launchable.record()
    if data is not None and plan.name.split() == [plan.name]:
        vkey = variant_key(plan.record, shape_key)
        cache.store(KIND, vkey, _VARIANT + f"{plan.name} {vkey}\n".encode() + data,
                    {"record": "variant"})
