"""A prebuilt call path per variant: the warm `kernel(...)` as one generated Python function.

The general path (call/plan.py) computes the arguments' key, looks the plan up, evaluates the
launch range and checks every argument's device in a loop: ~1.1-1.5 µs of Python before the
engine is reached, which on a GPU is a quarter of a launch. At a variant's second call (the
first would pay ~1 ms for a path that a process calling the kernel once never takes), `build`
generates one function for exactly that variant: it unpacks the arguments, checks each with the
argument rows of call/signature.py (`signature.guard`: the row of the argument seen, plus this
variant's baked extents), evaluates the launch count with the plan's count rules
(`count_lines`), and launches through the engine's `inline_launch` lines. Any mismatch returns
`MISS` and the caller takes the general path, which raises the same errors as before; so the
prebuilt path changes no behaviour. Not built for debug launches, device-class arguments or
return values (those take the general path every time).
"""
from __future__ import annotations

import ast

from ..devices import _global
from ..frontend.hostrange import _HELPERS
from ..frontend.source import parse
from ..ir.ops import WORKGROUP
from . import signature

MISS = object()  # "not this variant": take the general path


def build(kernel, plan, shape_key, variant, args):
    """The call function `f(args) -> None | MISS` of `variant`, or None if not eligible.
    `f.call(*args, **kwargs)` is the same checks and launch as the kernel's own call (what
    `Kernel.__call__` gives after this variant's call): a miss takes `kernel._call`."""
    pk = plan.parsed
    if plan.debug or not signature.selects(pk.paths) or pk.epilogue is not None:
        return None
    if not signature.prebuilt(args):
        return None
    dev = plan.device
    names = [f"a{k}" for k in range(len(args))]
    env = {"__name__": __name__, "G": _global, "dev": dev, "MISS": MISS, "launch": variant.launchable.launch,
           "hrl": pk.host_range.launch, "name": kernel.name}
    # Arrays on a device with its own memory launch there whatever the current device is
    # (devices.launch_device); otherwise the current device must still be `dev`.
    own = dev.place != "host" and any(a.__class__ is signature.Array for a in args)
    current = "" if own else " or G['device'] is not dev or G['scoped']"
    # deterministic mode may ask for this kernel's twin (Kernel.in_mode): the general path
    # decides, unless the kernel is deterministic already
    mode = "" if kernel.options["deterministic"] else \
        " or G['deterministic'] or G['deterministic_scoped']"
    lines = ["def fast(args):",
             f"    if len(args) != {len(args)}{current} or G['debug'] or G['intercept']{mode}:",
             "        return MISS"]
    if names:
        lines.append(f"    {', '.join(names)}, = args")
    # the arguments the launch takes (a @tack.func argument is inlined: it takes none)
    picks = list(range(len(args))) if pk.paths is None else [i for i, _ in pk.paths]
    baked = {}  # argument position -> [(axis, extent baked into this variant)]
    for (i, ax), ext in zip(plan.baked, shape_key):
        baked.setdefault(picks[i], []).append((ax, ext))
    value_of, arrays = {}, set()
    for k, (nm, a) in enumerate(zip(names, args)):
        cond, value = signature.guard(nm, a, k, env, plan.pointers)
        cond = " and ".join([cond] + [f"{nm}.shape[{ax}] == {ext}"
                                      for ax, ext in baked.get(k, [])])
        lines += [f"    if not ({cond}):", "        return MISS"]
        value_of[k] = value
        if a.__class__ is signature.Array:
            arrays.add(nm)  # checked to be a tack.Array of the variant's dtype and rank
    values = [value_of[i] for i in picks]
    count, hidden = count_lines(plan, names, env, arrays)
    body = None if hidden else variant.launchable.inline_launch(values, env)  # the engine's
    if body is None:
        body = [f"launch([{', '.join(values)}]{' + hidden' if hidden else ''}, n)"]
    lines += count + ["    " + line for line in body]
    env["K"] = kernel
    call = ["def call(*args, **kwargs):", "    if kwargs:", "        return K._call(args, kwargs)"]
    call += [line.replace("return MISS", "return K._call(args, kwargs)") for line in lines[1:]]
    src = "\n".join(lines + call)
    exec(compile(src, f"<tack call path {kernel.name}>", "exec"), env)  # noqa: S102
    env["fast"].call = env["call"]
    return env["fast"]


def count_lines(plan, names, env, arrays) -> tuple[list[str], bool]:
    """Lines that bind the launch count `n` (returning None for an empty launch), and whether
    they bind hidden arguments too (`hrl`'s forms): the plan's count rules (`CallPlan.count_error`
    and the whole-workgroup rule of `CallPlan.run`), each returning MISS where the general path
    raises."""
    host_range = plan.parsed.host_range
    stop = _inline_stop(host_range, names, arrays)
    lo, hi = plan.index_range or (None, None)
    if stop is not None:
        env.update(_HELPERS)
        # `n // 0`: MISS, and the general path raises the error
        lines = ["    try:", f"        n = {stop}", "    except ArithmeticError:",
                 "        return MISS", "    if n <= 0:", "        return None"]
        if hi is not None:  # range(n) spans [0, n - 1]; 0 is in every integer type
            lines += [f"    if n > {hi + 1}:", "        return MISS"]
    else:
        env["span"] = host_range.index_span
        lines = ["    n, hidden = hrl(args, name)", "    if not n:", "        return None"]
        if hi is not None:
            lines += ["    lo, hi = span(n, hidden)", f"    if lo < {lo} or hi > {hi}:",
                      "        return MISS"]
    if plan.collective:
        lines += [f"    if n % {WORKGROUP}:", "        return MISS"]
    return lines, stop is None


def _inline_stop(host_range, names, arrays=frozenset()):
    """The launch count of `range(stop)` as an expression over `names`, else None (the other
    forms call HostRange.launch). The bound's own helpers (_i, _s) keep their errors, except
    `_s(a, k, name)` of an argument in `arrays` (checked to be a tack.Array of the variant's
    dtype and rank, so `a.shape[k]` exists): that becomes `a.shape[k]`, one call less."""
    if host_range.form != "stop":
        return None
    lam = parse(host_range.source, mode="eval").body  # one parse at a time (source.parse)
    params = [a.arg for a in lam.args.args]
    if len(params) != len(names) or set(_HELPERS) & set(params):
        return None
    rename = dict(zip(params, names))

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node):
            return ast.copy_location(ast.Name(rename.get(node.id, node.id), node.ctx), node)

        def visit_Call(self, node):
            node = self.generic_visit(node)
            f, a = node.func, node.args
            if (isinstance(f, ast.Name) and f.id == "_s" and len(a) == 3 and not node.keywords
                    and isinstance(a[0], ast.Name) and a[0].id in arrays
                    and isinstance(a[1], ast.Constant) and type(a[1].value) is int):
                shape = ast.Attribute(a[0], "shape", ast.Load())
                return ast.copy_location(ast.Subscript(shape, a[1], ast.Load()), node)
            return node

    return ast.unparse(Rename().visit(lam.body.elts[1]))
