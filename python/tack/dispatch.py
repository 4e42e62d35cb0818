"""A prebuilt call path per compiled variant: the warm `kernel(...)` in straight-line Python.

`Kernel.__call__`'s general path computes a signature tuple, looks the specialization up, checks
every argument's device in a loop and evaluates the launch range; ~1.1-1.5 µs of Python before
the engine is reached, which on a GPU is a quarter of a launch. After a variant's first
successful call, `build` generates one function for exactly that variant (in the spirit of
Numba's dispatcher fingerprints): it unpacks the arguments, checks each against what was seen
(`Array` of the same dtype/rank/baked extents on the same device; a scalar of the same kind),
evaluates the range and calls the engine. Any mismatch returns `MISS` and the caller takes the
general path, which raises the same errors as before; so the fast path changes no behaviour.
Not built for debug launches, device-class arguments or return values (those take the general
path every time).
"""
from __future__ import annotations

import ast

MISS = object()  # "not this variant": take the general path


def build(kernel, dev, spec, shape_key, variant, args):
    """The fast call function `f(args) -> None | MISS` for `variant`, or None if not eligible."""
    from .arrays import Array
    from .devices import _global
    from .kernel import _I32, _scalar_key

    pk = spec.parsed
    if spec.debug or pk.paths is not None or pk.epilogue is not None:
        return None
    native = dev.engine_name == "native"
    names = [f"a{k}" for k in range(len(args))]
    env = {"A": Array, "G": _global, "dev": dev, "MISS": MISS, "launch": variant.launch,
           "hrl": pk.host_range.launch, "name": kernel.name, "I32": _I32,
           "sk": _safe_key(_scalar_key)}
    lines = ["def fast(args):",
             f"    if len(args) != {len(args)} or G['device'] is not dev or G['debug']:",
             "        return MISS"]
    if names:
        lines.append(f"    {', '.join(names)}, = args")
    baked = {}  # argument position -> [(axis, extent baked into this variant)]
    for (i, ax), ext in zip(spec.baked, shape_key):
        baked.setdefault(i, []).append((ax, ext))
    values = []
    for k, (nm, a) in enumerate(zip(names, args)):
        if a.__class__ is Array:
            env[f"S{k}"] = a._sig
            conds = [f"{nm}.__class__ is not A", f"{nm}._device is not dev",
                     f"{nm}._sig != S{k}"]
            conds += [f"{nm}.shape[{ax}] != {ext}" for ax, ext in baked.get(k, [])]
            values.append(f"{nm}._ptr" if native else nm)
        else:
            key = _scalar_key(a) if not (a.__class__ is int and _fits_i32(a)) else _I32
            env[f"S{k}"] = key
            if key is _I32:
                conds = [(f"not ({nm}.__class__ is int and -2147483648 <= {nm} <= 2147483647"
                          f" or sk({nm}) == S{k})")]
            elif key == "float":
                conds = [f"{nm}.__class__ is not float and sk({nm}) != S{k}"]
            else:
                conds = [f"sk({nm}) != S{k}"]
            values.append(nm)
        lines.append(f"    if {' or '.join(conds)}:")
        lines.append("        return MISS")
    hidden = ""
    stop = _inline_stop(pk.host_range, names)
    lo, hi = spec.index_range or (None, None)  # indices outside: the general path raises
    if stop is not None:
        from .frontend.hostrange import _HELPERS

        env.update(_HELPERS)
        lines.append(f"    n = {stop}")
        lines.append("    if n <= 0:")
        lines.append("        return None")
        if hi is not None:
            lines.append(f"    if n > {hi + 1}:")
            lines.append("        return MISS")
    else:
        env["span"] = pk.host_range.index_span
        lines.append("    n, hidden = hrl(args, name)")
        lines.append("    if not n:")
        lines.append("        return None")
        if hi is not None:
            lines.append("    lo, hi = span(n, hidden)")
            lines.append(f"    if lo < {lo} or hi > {hi}:")
            lines.append("        return MISS")
        hidden = " + hidden"
    if spec.collective:
        lines.append("    if n % 256:")
        lines.append("        return MISS")  # the general path raises the contract's ValueError
    inline = getattr(variant, "inline_launch", None)  # the engine's launch, spelled inline
    body = inline(values, env) if inline is not None and not hidden else None
    if body is None:
        body = [f"launch([{', '.join(values)}]{hidden}, n)"]
    lines += ["    " + line for line in body]
    exec(compile("\n".join(lines), f"<tack dispatch {kernel.name}>", "exec"), env)  # noqa: S102
    return env["fast"]


def _inline_stop(host_range, names):
    """The launch count of `range(stop)` as an expression over `names`, else None (the other
    forms call HostRange.launch). The bound's own helpers (_i, _s) keep their errors."""
    if host_range.form != "stop":
        return None
    lam = ast.parse(host_range.source, mode="eval").body
    params = [a.arg for a in lam.args.args]
    from .frontend.hostrange import _HELPERS

    if len(params) != len(names) or set(_HELPERS) & set(params):
        return None
    rename = dict(zip(params, names))

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node):
            return ast.copy_location(ast.Name(rename.get(node.id, node.id), node.ctx), node)

    return ast.unparse(Rename().visit(lam.body.elts[1]))


def _fits_i32(v: int) -> bool:
    return -2147483648 <= v <= 2147483647


def _safe_key(key):
    def sk(v):
        try:
            return key(v)
        except (TypeError, ValueError):
            return MISS
    return sk
