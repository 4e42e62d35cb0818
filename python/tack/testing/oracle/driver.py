"""The driver: `reference` runs the rewritten kernel; `Reference` compares Tack's results."""
from __future__ import annotations

import ast
import builtins
import inspect
import linecache
import operator
import textwrap
from dataclasses import dataclass, field

import numpy as np

import tack

from .errors import OutsideDomain, Rejected, _Pending
from .rewrite_expr import _P, _R
from .rewrite_stmt import _Rewriter
from .runtime import Runtime, _Arr
from .scalars import BY_NP, F32, F64, I32, I64, literal_type, promote, wrap
from .values import F, typeof


# -- driver ----------------------------------------------------------------------------------------
def _source(fn):
    lines, first = inspect.getsourcelines(fn)
    file = inspect.getsourcefile(fn) or "<kernel>"
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, first - 1)
    fdef = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    closure = {}
    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                closure[name] = cell.cell_contents
            except ValueError:
                pass
    return fdef, file, closure


def _is_array(a) -> bool:
    return isinstance(a, np.ndarray) or type(a).__name__ == "Array"


def _host_range(it, prologue, params, pyargs):
    """The parallel loop's (start, stop, step) in Python integers, and the parameters it reads."""
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
            and 1 <= len(it.args) <= 3 and not it.keywords):
        raise Rejected("the parallel loop must iterate over range(...)")
    subst = {s.targets[0].id: s.value for s in prologue if isinstance(s, ast.Assign)
             and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)}
    uses = set()

    class Sub(ast.NodeTransformer):
        depth = 0

        def visit_Name(self, node):
            if node.id in params:
                uses.add(node.id)
                return node
            if node.id in subst and self.depth < 50:
                self.depth += 1
                return self.visit(ast.parse(ast.unparse(subst[node.id]), mode="eval").body)
            return node

    env = dict(zip(params, pyargs))
    vals = []
    for a in it.args:
        node = ast.fix_missing_locations(ast.Expression(Sub().visit(
            ast.parse(ast.unparse(a), mode="eval").body)))
        code = compile(node, "<range>", "eval")  # outside the try: our own rewriting
        try:
            vals.append(operator.index(eval(code, {"__builtins__": {"len": len}}, env)))
        # only the kernel's own bound expression runs here, over its arguments: whatever it
        # raises (NameError, TypeError, IndexError, ZeroDivisionError, ...) is a bound Tack
        # cannot resolve either, so the kernel must be rejected
        except Exception as exc:  # noqa: BLE001
            raise Rejected(f"cannot resolve the parallel loop's range: {exc}") from None
    start, stop, step = (0, vals[0], 1) if len(vals) == 1 else (vals + [1])[:3]
    if step <= 0:
        raise OutsideDomain("the parallel loop's step must be positive")
    return start, stop, step, uses


@dataclass
class Reference:
    """What a kernel call must leave in its array arguments, and how exactly to compare."""

    names: list  # parameter names of the array arguments
    positions: list  # their argument positions
    arrays: list  # final contents (NumPy, the argument's dtype and shape)
    tolerance: list  # per element: absolute bound (0.0: exact; inf: not verifiable)
    unverified: list  # per element: stored by a tainted iteration
    tainted: list = field(default_factory=list)  # loop-variable values of tainted iterations
    iterations: int = 0

    def mismatches(self, actual, rows_of_tainted: bool = False, limit: int = 8) -> list[str]:
        """Descriptions of the elements where `actual` (arrays in argument order) disagrees.

        rows_of_tainted: also skip row `v` of every array for each tainted loop value v (for
        kernels whose iteration i writes only row i, so a flipped branch cannot be checked).
        """
        out = []
        for name, ref, tol, unv, act in zip(self.names, self.arrays, self.tolerance,
                                            self.unverified, actual):
            act = np.asarray(act.numpy() if hasattr(act, "numpy") else act)
            if act.shape != ref.shape or act.dtype != ref.dtype:
                out.append(f"{name}: got {act.dtype}{act.shape}, expected {ref.dtype}{ref.shape}")
                continue
            skip = unv.reshape(ref.shape).copy()
            if rows_of_tainted and ref.ndim:
                for v in self.tainted:
                    if 0 <= v < ref.shape[0]:
                        skip[v] = True
            bad = _disagree(act, ref, tol.reshape(ref.shape)) & ~skip
            where = [()] if ref.ndim == 0 and bad else zip(*np.nonzero(bad)) if ref.ndim else []
            for pos in where:
                if len(out) >= limit:
                    break
                t = tol.reshape(ref.shape)[pos]
                out.append(f"{name}[{', '.join(map(str, pos))}]: tack {act[pos]!r}, reference "
                           f"{ref[pos]!r}" + (f" ± {t:.3g}" if t else " (exact)"))
        return out

    def check(self, actual, rows_of_tainted: bool = False) -> None:
        bad = self.mismatches(actual, rows_of_tainted)
        if bad:
            raise AssertionError("kernel disagrees with the reference:\n  " + "\n  ".join(bad))


def _disagree(act, ref, tol):
    if ref.dtype.kind in "iu":
        return act != ref
    a, r = act.astype(np.float64), ref.astype(np.float64)
    tiny = float(np.finfo(ref.dtype).tiny)
    with np.errstate(all="ignore"):
        close = np.abs(a - r) <= tol + tiny
    same = (a == r) | (np.isnan(a) & np.isnan(r)) | np.isinf(tol)
    return ~(same | (close & np.isfinite(a) & np.isfinite(r)))


def reference(kernel, *args, weak_locals: str = "spec") -> Reference:
    """Run `kernel` (a @tack.kernel or a plain function) serially on copies of `args`."""
    fn = getattr(kernel, "fn", kernel)
    fdef, file, closure = _source(fn)
    params = [a.arg for a in fdef.args.args]
    if len(args) != len(params):
        raise Rejected(f"kernel '{fdef.name}' expects {len(params)} arguments, got {len(args)}")
    prologue, loop = _kernel_parts(fdef)
    values, pyargs, arrays = _bind(params, args)
    start, stop, step, uses = _host_range(loop.iter, prologue, params, pyargs)
    vt = _loop_type([values[params.index(u)] for u in uses])

    rw = _Rewriter(fdef, fn.__globals__, closure)
    assigned_params = [p for p in params if p in rw.locals and not isinstance(
        values[params.index(p)], _Arr)]
    mod = rw.functions(prologue, loop, assigned_params)
    R = Runtime(weak_locals)
    ns = {_R: R, _P: _Pending}
    exec(compile(mod, file, "exec"), ns)  # noqa: S102 - the kernel's own, rewritten source
    types = {loop.target.id: vt,
             **{p: typeof(values[params.index(p)]) for p in assigned_params}}
    with np.errstate(all="ignore"):
        _settle_types(R, ns["_tack_types_"], values, types)
        R.loop_plan = (start, stop, step, vt)
        try:
            ns["_tack_value_"](*values)
        except OutsideDomain as exc:
            raise OutsideDomain(f"{exc} ({_where(exc, file)})") from None
        R.finish()

    loop_values = list(builtins.range(start, stop, step))
    return Reference(
        names=[n for n, _, _ in arrays], positions=[params.index(n) for n, _, _ in arrays],
        arrays=[a.data for _, _, a in arrays],
        tolerance=[_tolerances(a) for _, _, a in arrays],
        unverified=[a.unverified for _, _, a in arrays],
        tainted=[int(wrap(loop_values[k], vt)) for k in R.tainted_iters],
        iterations=len(loop_values))


def _kernel_parts(fdef):
    """(prologue, parallel loop): the statements before the first `for`, and that `for`."""
    body = [s for s in fdef.body if not (isinstance(s, ast.Expr) and isinstance(
        s.value, ast.Constant) and isinstance(s.value.value, str))]
    loops = [k for k, s in enumerate(body) if isinstance(s, ast.For)]
    if not loops:
        raise Rejected("kernel has no parallel loop")
    k = loops[0]
    loop, prologue = body[k], body[:k]
    if any(not isinstance(s, ast.Pass) for s in body[k + 1:]):
        raise Rejected("statements after the parallel loop")
    if not isinstance(loop.target, ast.Name) or loop.orelse:
        raise Rejected("the parallel loop's target must be a single name")
    return prologue, loop


def _bind(params, args):
    """The oracle's value of each argument, the Python value the loop bounds see, and the
    (name, position, `_Arr`) of each array argument (the same array twice is one buffer)."""
    any_f64 = any(_is_array(a) and np.dtype(getattr(a.dtype, "np", a.dtype)) == np.float64
                  for a in args)
    values, pyargs, arrays, seen = [], [], [], {}
    for name, a in zip(params, args):
        if _is_array(a) and id(a) in seen:  # the same array twice: one shared buffer (aliasing)
            arr = seen[id(a)]
            values.append(arr)
            pyargs.append(arr.data)
            arrays.append((name, len(values) - 1, arr))
        elif _is_array(a):
            data = np.array(a.numpy() if hasattr(a, "numpy") else a, order="C", copy=True)
            if data.dtype.type not in BY_NP or not data.dtype.isnative:
                raise Rejected(f"unsupported dtype {data.dtype} for '{name}'")
            arr = seen[id(a)] = _Arr(data, name)
            values.append(arr)
            pyargs.append(data)
            arrays.append((name, len(values) - 1, arr))
        elif isinstance(a, (bool, int, np.integer)):
            values.append(wrap(int(a), literal_type(int(a))))
            pyargs.append(int(a))
        elif isinstance(a, (float, np.floating)):
            values.append(F((F64 if any_f64 else F32).np(float(a)), 0.0))
            pyargs.append(float(a))
        else:
            raise Rejected(f"unsupported argument type for '{name}': {type(a).__name__}")
    return values, pyargs, arrays


def _loop_type(bound_values):
    """The parallel loop variable's type: i32 widened by the arguments its bounds read (an
    array counts as i64)."""
    vt = I32
    for v in bound_values:
        try:
            vt = promote(vt, I64 if isinstance(v, _Arr) else typeof(v))
        except Rejected:
            vt = I64
    return vt if vt.is_int else I64


def _settle_types(R, types_fn, values, types) -> None:
    """Run the type-only pass to a fixpoint: every local gets the join of all its assignments."""
    R.typing = True
    dummies = [v if isinstance(v, _Arr) else R.dummy(typeof(v)) for v in values]
    R.types = types
    for _ in range(64):
        before = (dict(R.types), dict(R.ifx))
        types_fn(*dummies)
        if before == (dict(R.types), dict(R.ifx)):
            break
    else:  # pragma: no cover
        raise Rejected("local types do not settle")
    R.typing = False


def _tolerances(arr: _Arr) -> np.ndarray:
    return arr.err.copy()


def _where(exc, file) -> str:
    tb, line = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "_tack_value_":
            line = tb.tb_lineno
        tb = tb.tb_next
    if line is None:
        return file
    return f"{file}:{line}: {linecache.getline(file, line).strip()}"


def run_reference(kernel, *args, weak_locals: str = "spec") -> list:
    """The final contents of every array argument, as NumPy arrays in argument order."""
    return reference(kernel, *args, weak_locals=weak_locals).arrays


def check_kernel(kernel, *args, rows_of_tainted: bool = False, weak_locals: str = "spec"):
    """Run `kernel` with Tack (NumPy arrays become tack arrays) and compare with the reference.

    Returns the `Reference`; raises AssertionError listing the disagreeing elements.
    """
    ref = reference(kernel, *args, weak_locals=weak_locals)
    targs = [tack.array(a) if isinstance(a, np.ndarray) else a for a in args]
    kernel(*targs)
    ref.check([targs[p] for p in ref.positions], rows_of_tainted)
    return ref
