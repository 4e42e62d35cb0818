"""`@tack.kernel`: a Python function that runs as a parallel loop, specialized per argument types."""
from __future__ import annotations

import functools
import operator

from .call import plan as call_plan
from .call import signature
from .devices import _is_flag
from .errors import TackError, TackTypeError, TackValueError, for_user
from .frontend import depth
from .frontend.parser import Parser
from .frontend.source import capture, closure_values


class Kernel:
    """A compiled-on-demand kernel. Call it with arrays and scalars, by position."""

    __tack_kernel__ = True  # how the frontend (which cannot import this layer) recognizes one

    def __init__(self, fn, fastmath: bool = False, deterministic: bool = False):
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise TackTypeError(f"@tack.kernel decorates a function, got {type(fn).__name__}")
        self.fn = fn
        # part of every cache key (call/records.py); the in-memory plans are this object's own
        self.options = {"fastmath": bool(fastmath), "deterministic": bool(deterministic)}
        self._twin = None  # the deterministic-mode kernel of the same function (`in_mode`)
        self.name = fn.__name__
        self.source = capture(fn)  # fails now, with advice, if the source cannot be read
        self.depth, self._deepest = depth.nesting(self.source.tree)  # frontend/depth.py
        self._parsed = {}  # object structure key -> ParsedKernel
        self._plans: dict = {}  # call_plan.plan_key(...) -> CallPlan, one per specialization
        self._entry = self._general  # what a call runs: a variant's prebuilt `call`, else this
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

    def in_mode(self, deterministic: bool) -> Kernel:
        """The kernel a call runs: itself, or in deterministic mode (`tack.deterministic`) its
        twin with option `deterministic=True`, made once, whose specializations are kept apart
        from this kernel's."""
        if not deterministic or self.options["deterministic"]:
            return self
        twin = self._twin
        if twin is None:
            twin = self._twin = Kernel(self.fn, fastmath=self.options["fastmath"],
                                       deterministic=True)
        return twin

    @property
    def parsed(self):
        """The parse for arguments without device-class objects."""
        return self.parse_for(())

    def parse_call(self, args, keyed: bool = True):
        """The parse for a call's arguments, after the checks that come before any parse: the
        number of arguments, and (`keyed` False: an argument has no key) that argument's
        TypeError."""
        self.check_arity(args)
        if not keyed:
            plain = [(p.arg, a) for p, a in zip(self.source.tree.args.args, args)
                     if not signature.at_parse(a)]
            signature.specs(self.name, [p for p, _ in plain], [a for _, a in plain])
        return self.parse_for(args)

    def check_arity(self, args) -> None:
        a = self.source.tree.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
            self.parse_for(args)  # raises the signature's UnsupportedSyntaxError, at the def
        n = len(a.args)
        if len(args) != n:
            raise TackTypeError(f"Kernel '{self.name}' expects {n} arguments, got {len(args)}")

    # -- calls ----------------------------------------------------------------------------------
    # `kernel(...)` runs `self._entry`: after a variant's second call, its prebuilt call path
    # (call/fast.py), which checks the arguments and launches in one Python frame and takes
    # `_call` on any mismatch; otherwise `_general`. Read through a C attrgetter, so no
    # Python-level __call__ frame comes first.
    __call__ = property(operator.attrgetter("_entry"))

    def _general(self, *args, **kwargs):
        try:
            return self._call_checked(args, kwargs)
        except TackError as exc:
            raise for_user(exc)  # the same exception, its internal frames dropped

    def _call(self, args, kwargs):
        """The general path, as a prebuilt path's miss takes it: the call's plan (call/plan.py)
        runs it. An error Tack raises on purpose reaches the caller without the compiler's
        frames (`errors.for_user`)."""
        try:
            return self._call_checked(args, kwargs)
        except TackError as exc:
            raise for_user(exc)  # the same exception, its internal frames dropped

    def _call_checked(self, args, kwargs):
        if kwargs:
            args = signature.by_position(self.name, self.source.tree.args, args, kwargs)
        return call_plan.call(self, args)


class BoundKernel:
    """A kernel defined in a device class, bound to an instance (its first argument)."""

    def __init__(self, kernel: Kernel, obj):
        self.kernel, self.obj = kernel, obj
        self.name = kernel.name

    def __call__(self, *args, **kwargs):
        return self.kernel(self.obj, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<bound tack.kernel {self.name} of {self.obj!r}>"


def kernel(fn=None, *, fastmath: bool = False, deterministic: bool = False):
    """Decorator: compile `fn` as a Tack kernel (lazily, at its first call).

    `@tack.kernel(fastmath=True)` lets the compiler reassociate and approximate floating-point
    arithmetic in this kernel (LLVM's `fast` flags; approximate division, square root and
    reciprocal square root on GPUs). Off by default: results then follow IEEE rules exactly,
    multiply-add contraction being the only liberty.

    `@tack.kernel(deterministic=True)` runs this kernel in deterministic mode on every call
    (`tack.deterministic`): its `exp`, `log`, `sin`, `cos` and `tanh` are tack.lib's functions
    on every engine, GPUs included, so its bits are the CPU engine's (docs/numerics.md,
    "Deterministic mode"). It excludes `fastmath=True`, which gives up those bits."""
    if not _is_flag(deterministic):
        raise for_user(TackTypeError(f"@tack.kernel(deterministic=...) takes True or False, "
                                     f"got {deterministic!r}"))
    if fastmath and deterministic:
        raise for_user(TackValueError(
            "@tack.kernel(fastmath=True, deterministic=True): fast-math lets the compiler "
            "reorder and approximate, so its bits are no longer the same on every engine; "
            "choose one"))
    if fn is None:
        return lambda f: kernel(f, fastmath=fastmath, deterministic=deterministic)
    try:
        return Kernel(fn, fastmath=fastmath, deterministic=deterministic)
    except TackError as exc:
        raise for_user(exc)  # the same exception, its internal frames dropped
