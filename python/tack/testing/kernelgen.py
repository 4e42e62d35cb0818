"""Random well-typed Tack kernels for differential testing against `testing.oracle`.

`KernelGen(choices).generate()` builds the source text of one kernel: input arrays of every dtype
(1-D, and a 2-D one read by row), scalar parameters (i32/i64/u64 by value, f32/f64), one parallel
loop (`range(a.shape[0])`, `range(len(a))`, `range(n)`, with a start or a step), and a body of
assignments to typed locals, stores and augmented stores to output rows owned by the iteration,
`if/elif/else`, `while` loops with bounded counters, nested `for ... in range(...)` with literal or
small dynamic bounds and negative steps, `break`/`continue` (also `continue` of the parallel loop),
over expressions using `+ - * / // % ** & | ^ << >> ~`, unary minus, comparisons (chained too),
`and/or/not`, conditional expressions, casts (`tack.<dtype>()`, `int()`, `float()`), `min`/`max`/
`abs`, and the math builtins.

Every kernel stays in the portable domain by construction: integer divisors are `(d & 7) + 1` or
`-((d & 7) + 2)` in d's own type, float divisors `abs(d) + 0.5`, shift counts and integer
exponents are masked, float→int conversions are clamped with `min(max(x, lo), hi)` (NaN → lo),
and signed/u64 pairs are cast. Each iteration i writes only row i of the outputs, so iterations are
independent and a tainted iteration (see the oracle) can be skipped row-wise.

`choices` is the source of randomness: `HypothesisChoices(data)` inside a `@given` test (so failing
kernels shrink), or `RandomChoices(seed)` for stand-alone fuzzing (`python -m
tack.testing.kernelgen --seed 1 --count 100`).

`AVOID` names the Tack bugs the generator steers around (each has a targeted, strict-xfail test in
tests/exec/), so that a known bug does not mask new ones; pass `avoid=()` to generate them too.
"""
from __future__ import annotations

import hashlib
import importlib.util
import itertools
import os
import random
import tempfile
from dataclasses import dataclass, field

import numpy as np

from .oracle import (
    BY_NAME,
    F32,
    F64,
    I32,
    I64,
    ST,
    TYPES,
    U64,
    WEAK,
    Rejected,
    Runtime,
    literal_type,
    promote,
)
from .shapes import random_values

INT_TYPES = [t for t in TYPES if t.is_int]
FLOAT_TYPES = [F32, F64]
MATH1 = ("sqrt", "floor", "ceil", "trunc", "exp", "log", "sin", "cos", "tan", "atan", "tanh",
         "exp2", "log2", "log10", "asin", "acos", "sinh", "cosh")
MATH2 = ("atan2", "copysign")
INT_LITERALS = (0, 1, 2, 3, -1, 7, -8, 100, 127, -128, 255, 1000, 65535, 2 ** 31 - 1,
                -2 ** 31, 2 ** 31, 2 ** 40, -2 ** 40, 2 ** 63 - 1, -2 ** 63, 2 ** 63, 2 ** 64 - 1)
FLOAT_LITERALS = ("0.5", "1.0", "2.0", "0.0", "-1.5", "0.1", "3.25", "1e-3", "100.0", "-0.0",
                  "1e10", "1e30", "math.pi")
# module-level constants kernels may read: (source line, name, type, is an untyped int literal)
CONSTANTS = (("K0 = tack.constant(5)", "K0", I32, True),
             ("K1 = tack.constant(0.25)", "K1", WEAK, False),
             ("K2 = tack.constant(200, tack.u8)", "K2", BY_NAME["u8"], False),
             ("K3 = tack.constant(1.5, tack.f64)", "K3", F64, False),
             ("K4 = tack.constant(-3, tack.i64)", "K4", I64, False))
CONSTANT_LINES = [c[0] for c in CONSTANTS]
# float clamp bounds that convert exactly and stay representable in each integer type
CLAMP = {"i8": (-100.0, 100.0), "u8": (0.0, 250.0), "i16": (-30000.0, 30000.0),
         "u16": (0.0, 60000.0), "i32": (-2e9, 2e9), "u32": (0.0, 4e9), "i64": (-9e18, 9e18),
         "u64": (0.0, 1.8e19)}

# Known Tack bugs the generator avoids; each gets a strict-xfail test in tests/exec/ (test_known_*).
# Found so far (tests/exec/test_integer_rules.py::test_regression_* once fixed):
#  weak_typed_const  a float literal beside a cast integer literal (tack.i32(3) * 0.1) stayed weak
#  math2_int_f32     atan2/copysign converted a non-literal integer to f32 before widening to f64
#  continue_parallel `continue` directly in the parallel loop failed to render on the CPU engine
#  weak_local_expr   a local assigned once to float literals was f32 (spec: takes what it meets)
#  tuple_weak        `a, b = abs(0.1), 0` gave an f64 local `a` the f32 value (fixed in 4fd2435
#                    for literal expressions, in 5d57fa5 when no value reads a target; open for
#                    `d, e = (0.1 if c else 0.2), d`: test_known_tuple_temporaries_are_transparent)
#  weak_bool         a9a2239..ff3e90c: True/False did not count as integer literals, so
#                    `0.1 + True` was f32 and `0.1 + 1` weak
#  math_int_literal  `sqrt(2)` was weak (f64 beside an f64) but `atan2(1, 2)` f32; integer-only
#                    arguments give f32 like `1 / 3`
#  nested_divmod     `//` or `%` nested in an operand of `//` or `%` compiled in time exponential
#                    in the depth (lowering copied operands; int `//` depth 5 took 44 s)
AVOID: frozenset = frozenset({"tuple_weak"})


# -- randomness ------------------------------------------------------------------------------------
class RandomChoices:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def choose(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def flip(self, p: float) -> bool:
        return self.rng.random() < p


class HypothesisChoices:
    """Draws through a hypothesis `data` object: shrinking moves toward the first options."""

    def __init__(self, data):
        from hypothesis import strategies as st

        self.data, self.st = data, st

    def choose(self, seq):
        return self.data.draw(self.st.sampled_from(seq))

    def integer(self, lo: int, hi: int) -> int:
        return self.data.draw(self.st.integers(lo, hi))

    def flip(self, p: float) -> bool:
        # integers shrink to 0 → False: the simpler kernel
        return self.data.draw(self.st.integers(0, 999)) >= 1000 - int(p * 1000)


# -- kernel description ----------------------------------------------------------------------------
@dataclass
class Param:
    name: str
    kind: str  # 'array' | 'scalar'
    t: ST
    role: str = "in"  # 'in' | 'out' | 'n' (the scalar loop bound)
    cols: int = 0  # 2-D arrays: extent of dimension 1
    depth: int = 0  # 3-D arrays (n, cols, depth)


@dataclass
class KernelSpec:
    name: str
    source: str
    params: list
    alias: tuple = ()  # (input position, output position): pass one array for both

    def load(self, directory: str | None = None):
        """Write the source to a .py file and import it (Tack reads kernels' source files)."""
        directory = directory or _tmpdir()
        path = os.path.join(directory, f"{self.name}_{next(_COUNTER)}.py")
        with open(path, "w") as f:
            f.write(self.source)
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return getattr(mod, self.name)

    def make_args(self, n: int, seed: int) -> list:
        """NumPy arrays and Python scalars for a parallel loop over n elements."""
        rng = np.random.default_rng(seed)
        args = []
        for k, p in enumerate(self.params):
            if self.alias and k == self.alias[1]:
                args.append(args[self.alias[0]])  # the very same array object
                continue
            if p.kind == "array":
                shape = (n, p.cols, p.depth) if p.depth else (n, p.cols) if p.cols else (n,)
                args.append(random_values(rng, shape, p.t.np))
            elif p.role == "n":
                args.append(_scalar(rng, n, (np.int32, np.int64, np.uint16)))
            elif p.t.is_float:  # f32 or f64 by the arrays, whatever the host type
                v = float(rng.choice([rng.normal(0, 10), 0.5, -2.0, 0.0, 1e-3]))
                args.append(_scalar(rng, v, (np.float64, np.float32)))
            else:  # the value decides the type (i32, else i64, else u64), not the host type
                base = {"i32": 0, "i64": 2 ** 40, "u64": 2 ** 63}[p.t.name]
                lo, hi = {"i32": (-100, 100), "i64": (-1000, 1000), "u64": (0, 1000)}[p.t.name]
                v = base + int(rng.integers(lo, hi))
                hosts = {"i32": (np.int64, np.int16 if abs(v) < 2 ** 15 else np.int32),
                         "i64": (np.int64,), "u64": (np.uint64,)}[p.t.name]
                args.append(_scalar(rng, v, hosts))
        return args


def _scalar(rng, v, numpy_types):
    """A Python number, or (a third of the time) the same value as a NumPy scalar."""
    if rng.random() < 2 / 3:
        return v
    return numpy_types[int(rng.integers(0, len(numpy_types)))](v)


_TMP = []


def _tmpdir() -> str:
    if not _TMP:
        _TMP.append(tempfile.mkdtemp(prefix="tack_kernelgen_"))
    return _TMP[0]


_COUNTER = itertools.count()


# -- expressions -----------------------------------------------------------------------------------
@dataclass
class E:
    code: str
    t: ST
    lit: bool = False  # a bare integer literal (or True/False): weak floats stay weak beside it
    const: bool = False  # Tack folds it to a constant (a literal, or a cast of one)


def _lit(v: int) -> E:
    return E(f"({v})" if v < 0 else str(v), literal_type(v), lit=True, const=True)


@dataclass
class _Scope:
    names: dict = field(default_factory=dict)  # readable name → type
    mutable: set = field(default_factory=set)  # names that may be reassigned
    ranges: dict = field(default_factory=dict)  # loop variable → (lo, hi) inclusive, if known


class KernelGen:
    """Generates one random kernel per `generate()` call."""

    def __init__(self, choices, avoid=AVOID, max_depth: int = 3, max_stmts: int = 4,
                 max_nesting: int = 2):
        self.ch = choices
        self.avoid = frozenset(avoid)
        self.in_divmod = 0
        self.max_depth, self.max_stmts, self.max_nesting = max_depth, max_stmts, max_nesting

    # -- kernel -----------------------------------------------------------------------------------
    def generate(self) -> KernelSpec:
        ch = self.ch
        self.params: list[Param] = []
        self.n_locals = 0
        dts = INT_TYPES + FLOAT_TYPES
        for k in range(ch.integer(1, 3)):
            self.params.append(Param(f"a{k}", "array", ch.choose([I32, F32] + dts)))
        if ch.flip(0.3):
            self.params.append(Param("m", "array", ch.choose(dts), cols=ch.choose([3, 1])))
        if ch.flip(0.1):
            self.params.append(Param("c", "array", ch.choose(dts), cols=2, depth=3))
        for k in range(ch.integer(0, 2)):
            self.params.append(Param(f"s{k}", "scalar", ch.choose([I32, I64, U64])))
        any_f64 = any(p.t is F64 for p in self.params)
        if ch.flip(0.4):
            self.params.append(Param("x", "scalar", F64 if any_f64 else F32))
        for k in range(ch.integer(1, 3)):
            self.params.append(Param(f"o{k}", "array", ch.choose([I32, F64] + dts), role="out"))
        if ch.flip(0.2):
            self.params.append(Param("q", "array", ch.choose(dts), role="out",
                                     cols=ch.choose([2, 3])))
        self.aliased = set()
        ins = [p for p in self.params if p.role == "in" and p.kind == "array" and not p.cols]
        outs = [p for p in self.params if p.role == "out" and not p.cols]
        if ch.flip(0.15):  # one input is also an output: loads must see the iteration's stores
            src, dst = ch.choose(ins), ch.choose(outs)
            dst.t = src.t
            self.aliased = {src.name, dst.name}
        any_f64 = any(p.t is F64 for p in self.params if p.kind == "array")
        for p in self.params:  # a float scalar is f64 only beside an f64 array
            if p.kind == "scalar" and p.t.is_float:
                p.t = F64 if any_f64 else F32
        form = ch.choose(["shape", "len", "n", "start", "step", "half"])
        if form == "n":
            self.params.insert(0, Param("n", "scalar", I32, role="n"))
        bound = {"shape": "a0.shape[0]", "len": "len(a0)", "n": "n", "start": "1, a0.shape[0]",
                 "step": "0, a0.shape[0], 2", "half": "a0.shape[0] // 2, -(-a0.shape[0])"}[form]
        self.full_range = form in ("shape", "len", "n")
        self.scopes = [_Scope()]
        for p in self.params:
            if p.kind == "scalar":
                self.declare(p.name, p.t, mutable=p.role != "n")
        prologue = []
        if ch.flip(0.3):
            prologue.append(self.assign_new(self.max_depth - 1, scalars_only=True))
        self.scopes.append(_Scope())
        self.declare("i", I32 if form == "n" else I64, mutable=False)
        body = self.block(1, in_loop=False, top=True)
        for p in self.outputs():  # every output gets a final store, so results are observable
            if self.ch.flip(0.7):
                body.append(self.store(self.max_depth, p))
        code = ["    " + s for s in prologue] + [f"    for i in range({bound}):"] + _indent(body, 2)
        # named by content: the same kernel gets the same name (and disk-cache entry) every run
        name = "gen_" + hashlib.sha1("\n".join(code).encode()).hexdigest()[:12]
        lines = ["import math", "", "import tack", "", *CONSTANT_LINES, "", "", "@tack.kernel",
                 f"def {name}({', '.join(p.name for p in self.params)}):"] + code
        alias = ()
        if self.aliased:
            pos = {p.name: k for k, p in enumerate(self.params)}
            src = next(n for n in self.aliased if n.startswith("a"))
            dst = next(n for n in self.aliased if n.startswith("o"))
            alias = (pos[src], pos[dst])
        return KernelSpec(name, "\n".join(lines) + "\n", self.params, alias)

    # -- scopes -----------------------------------------------------------------------------------
    def declare(self, name: str, t: ST, mutable=True, rng=None):
        s = self.scopes[-1]
        s.names[name] = t
        if mutable:
            s.mutable.add(name)
        if rng is not None:
            s.ranges[name] = rng

    def visible(self) -> dict:
        out = {}
        for s in self.scopes:
            out.update(s.names)
        return out

    def mutable(self) -> list:
        return [(n, t) for s in self.scopes for n, t in s.names.items() if n in s.mutable]

    def known_range(self, name):
        for s in reversed(self.scopes):
            if name in s.ranges:
                return s.ranges[name]
        return None

    def new_name(self, prefix="v") -> str:
        self.n_locals += 1
        return f"{prefix}{self.n_locals}"

    # -- statements -------------------------------------------------------------------------------
    def block(self, nesting: int, in_loop: bool, top: bool = False) -> list:
        out = []
        for _ in range(self.ch.integer(1, self.max_stmts)):
            out += self.stmt(nesting, in_loop, top)
        return out

    def stmt(self, nesting: int, in_loop: bool, top: bool) -> list:
        kinds = ["store", "assign_new", "store_aug", "assign_old", "aug_local", "tuple"]
        if nesting <= self.max_nesting:
            kinds += ["if", "for", "while"]
        if in_loop:
            kinds.append("break_continue")
        if top and "continue_parallel" not in self.avoid:
            kinds.append("continue_outer")
        kind = self.ch.choose(kinds)
        d = self.max_depth
        if kind == "store":
            return [self.store(d)]
        if kind == "assign_new":
            return [self.assign_new(d)]
        if kind == "store_aug":
            return [self.store_aug(d)]
        if kind == "assign_old":
            return self.assign_old(d)
        if kind == "aug_local":
            return self.aug_local(d)
        if kind == "tuple":
            return self.tuple_assign(d)
        if kind == "if":
            return self.if_(nesting, in_loop)
        if kind == "for":
            return self.for_(nesting)
        if kind == "while":
            return self.while_(nesting)
        word = "break" if kind == "break_continue" and self.ch.flip(0.5) else "continue"
        if self.ch.flip(0.1):
            return [word]
        return [f"if {self.expr(1).code}:", [word]]

    def nested(self, nesting: int, in_loop: bool, declare=None) -> list:
        self.scopes.append(_Scope())
        if declare:  # a loop variable: reassigning it (rarely) must not change the iteration
            mutable = self.ch.flip(0.1)
            self.declare(*declare[:2], mutable=mutable, rng=None if mutable else declare[2])
        body = self.block(nesting + 1, in_loop)
        self.scopes.pop()
        return body

    def if_(self, nesting, in_loop) -> list:
        out = [f"if {self.expr(self.max_depth).code}:", self.nested(nesting, in_loop)]
        for _ in range(self.ch.integer(0, 1)):
            out += [f"elif {self.expr(2).code}:", self.nested(nesting, in_loop)]
        if self.ch.flip(0.5):
            out += ["else:", self.nested(nesting, in_loop)]
        return out

    def for_(self, nesting) -> list:
        ch = self.ch
        var = self.new_name("j")
        form = ch.choose(["stop", "start_stop", "step", "dynamic", "dynamic_step", "typed"])
        if form == "stop":
            stop = ch.integer(0, 5)
            args, rng = f"{stop}", (0, max(stop - 1, 0))
        elif form == "start_stop":
            a, b = ch.integer(-3, 3), ch.integer(-2, 6)
            args, rng = f"{a}, {b}", (a, max(a, b - 1))
        elif form == "step":
            step = ch.choose([2, -1, -2, 3, -3, 1])
            a, b = ch.integer(-4, 6), ch.integer(-4, 6)
            args = f"{a}, {b}, {step}"
            rng = (min(a, b), max(a, b))
        elif form == "dynamic":
            a = ch.integer(-2, 2)
            stop = self.small_int(0, 4)
            args, rng = f"{a}, {stop}", (a, max(a, 3))
        elif form == "dynamic_step":  # a step of either sign, known only at run time
            a, b = ch.integer(-4, 6), ch.integer(-4, 6)
            args = f"{a}, {b}, ({self.small_int(0, 1)} * 2 - 1)"
            rng = (min(a, b), max(a, b))
        else:  # typed bounds: the loop variable takes their promoted type
            t = ch.choose([I64, BY_NAME["u8"], BY_NAME["i16"], BY_NAME["u32"]])
            a, b = ch.integer(0, 2), ch.integer(0, 5)
            args, rng = f"tack.{t.name}({a}), {b}", (a, max(a, b - 1))
            lt = promote(I32, t)
            body = self.nested(nesting, True, declare=(var, lt, rng))
            return [f"for {var} in range({args}):", body]
        body = self.nested(nesting, True, declare=(var, I32, rng))
        return [f"for {var} in range({args}):", body]

    def while_(self, nesting) -> list:
        var = self.new_name("w")
        limit = self.ch.integer(1, 4)
        cond = f"{var} < {limit}"
        if self.ch.flip(0.4):
            cond += f" and {self.expr(1).code}"
        self.scopes.append(_Scope())
        self.declare(var, I32, mutable=False)
        body = [f"{var} += 1"] + self.block(nesting + 1, True)
        self.scopes.pop()
        return [f"{var} = 0", f"while {cond}:", body]

    def small_int(self, lo: int, hi: int) -> str:
        """An i32 expression with a value in [lo, hi]."""
        e = self.int_expr(1)
        mask = 3 if hi - lo >= 3 else 1
        m = self.like(mask, e.t)
        return f"(int({e.code} & {m.code}) + {lo})" if lo else f"int({e.code} & {m.code})"

    def outputs(self) -> list:
        return [p for p in self.params if p.role == "out"]

    def out_target(self, p: Param | None = None) -> tuple[str, ST]:
        p = p or self.ch.choose(self.outputs())
        if not p.cols:
            return f"{p.name}[i]", p.t
        col = self.column(p.cols)
        if self.ch.flip(0.3) and col.isdigit():
            return f"{p.name}[i * {p.cols} + {col}]", p.t
        return f"{p.name}[i, {col}]", p.t

    def column(self, cols: int) -> str:
        for name in self.visible():
            r = self.known_range(name)
            if r is not None and 0 <= r[0] and r[1] < cols and self.ch.flip(0.5):
                return name
        return str(self.ch.integer(0, cols - 1))

    def store(self, d, p: Param | None = None) -> str:
        tgt, t = self.out_target(p)
        e = self.expr(d)
        if t.is_int and not e.t.is_int:
            e = self.clamp(e, t) if self.ch.flip(0.5) else self.cast(e, t)
        return f"{tgt} = {e.code}"

    def store_aug(self, d) -> str:
        tgt, t = self.out_target()
        op, rhs = self.aug_operand(E(tgt, t), d)
        return f"{tgt} {op}= {rhs.code}"

    def aug_operand(self, target: E, d) -> tuple[str, E]:
        """An augmented operator and a right side whose result converts back to target's type."""
        t = target.t
        ops = ["+", "-", "*", "//", "%"] + (["&", "|", "^", "<<", ">>"] if t.is_int else ["/"])
        op = self.ch.choose(ops)
        if op in ("//", "%"):
            self.in_divmod += 1
        try:
            e = self.expr(d - 1)
        finally:
            if op in ("//", "%"):
                self.in_divmod -= 1
        if op in ("//", "%"):
            if t.is_int:  # the divisor's type must join into t, like the dividend's
                return op, self.fit(self.int_divisor(self.fit(e, t)), t)
            return op, self.fit(self.float_divisor(e), t)
        if op in ("<<", ">>"):
            return op, self.shift_count(t)
        if t.is_int:
            e = self.fit(e, t)
        elif t is F32 and e.t is F64:
            e = self.cast(e, F32)
        return op, self.weak_ok(e, target)

    def assign_new(self, d, scalars_only=False) -> str:
        name = self.new_name()
        e = self.expr(d, scalars_only=scalars_only)
        if e.t is WEAK:
            bare = e.code.strip("()") in FLOAT_LITERALS or e.code.strip("()") in (
                "-" + f for f in FLOAT_LITERALS)
            if self.ch.flip(0.5) and (bare or "weak_local_expr" not in self.avoid):
                # assigned once to float literals: the local stays weak (§1.7, since 0.4.0)
                self.declare(name, WEAK, mutable=False)
                return f"{name} = {e.code}"
            e = self.cast(e, self.ch.choose(FLOAT_TYPES))
        self.declare(name, e.t)
        return f"{name} = {e.code}"

    def assign_old(self, d) -> list:
        cands = self.mutable()
        if not cands:
            return [self.assign_new(d)]
        name, t = self.ch.choose(cands)
        return [f"{name} = {self.fit(self.expr(d), t).code}"]

    def tuple_assign(self, d) -> list:
        """`a, b = x, y`: the whole right side first (so `a, b = b, a` swaps), then the targets."""
        cands = self.mutable()
        if len(cands) < 2:
            return [self.assign_new(d)]
        (n1, t1), (n2, t2) = self.ch.choose(cands), self.ch.choose(cands)
        if n1 == n2:
            return [f"{n1} = {self.fit(self.expr(d - 1), t1).code}"]
        if self.ch.flip(0.3) and t1 is t2:
            return [f"{n1}, {n2} = {n2}, {n1}"]
        e1, e2 = self.fit(self.expr(d - 1), t1), self.fit(self.expr(d - 1), t2)
        if "tuple_weak" in self.avoid:
            e1, e2 = (self.cast(e, t) if e.t is WEAK else e for e, t in ((e1, t1), (e2, t2)))
        return [f"{n1}, {n2} = {e1.code}, {e2.code}"]

    def aug_local(self, d) -> list:
        cands = self.mutable()
        if not cands:
            return [self.store_aug(d)]
        name, t = self.ch.choose(cands)
        op, rhs = self.aug_operand(E(name, t), d)
        if op == "/" and t is not F64 and t is not F32:
            op = "+"
        return [f"{name} {op}= {rhs.code}"]

    # -- expression helpers -----------------------------------------------------------------------
    def fit(self, e: E, t: ST) -> E:
        """`e`, or a cast of it, whose type joins into `t` without widening it."""
        try:
            if promote(t, e.t) is t:
                return self.weak_ok(e, E("", t)) if t.is_float else e
        except Rejected:
            pass
        return self.cast(e, t)

    def cast(self, e: E, t: ST) -> E:
        if e.t is t:
            return e
        if t.is_int and not e.t.is_int:
            return self.clamp(e, t, explicit=True)
        if t is I32 and self.ch.flip(0.2):
            return E(f"int({e.code})", t, const=e.const)
        if t is F32 and self.ch.flip(0.2):
            return E(f"float({e.code})", t, const=e.const)
        return E(f"tack.{t.name}({e.code})", t, const=e.const)

    def clamp(self, e: E, t: ST, explicit=False) -> E:
        lo, hi = CLAMP[t.name]
        code = f"min(max({e.code}, {lo!r}), {hi!r})"
        if explicit:
            if t is I32 and self.ch.flip(0.3):
                return E(f"int({code})", t)
            return E(f"tack.{t.name}({code})", t)
        ft = F32 if e.t is WEAK else e.t
        return E(code, ft)

    def like(self, v: int, t: ST) -> E:
        """The literal v, typed u64 when it meets a u64 operand (a signed literal cannot)."""
        if t is U64:
            return E(f"tack.u64({v})", U64, const=True)
        return _lit(v)

    def weak_ok(self, e: E, other: E) -> E:
        """Avoid known bugs where a weak float meets an integer constant: give it a type."""
        if e.t is not WEAK or not other.t.is_int:
            return e
        if "weak_typed_const" in self.avoid and other.const and not other.lit:
            return self.cast(e, F32)
        if "weak_bool" in self.avoid and other.code in ("True", "False"):
            return self.cast(e, F32)
        return e

    def unify(self, a: E, b: E) -> tuple[E, E]:
        try:
            promote(a.t, b.t)
        except Rejected:  # a signed integer with u64: cast one side
            if self.ch.flip(0.5):
                a, b = (a, self.cast(b, U64)) if a.t is U64 else (self.cast(a, U64), b)
            else:
                a, b = (self.cast(a, I64), b) if a.t is U64 else (a, self.cast(b, I64))
        return self.weak_ok(a, b), self.weak_ok(b, a)

    def int_divisor(self, e: E) -> E:
        e = self.int_of(e)
        seven, one, two = self.like(7, e.t), self.like(1, e.t), self.like(2, e.t)
        masked = self.arith("&", e, seven)
        if self.ch.flip(0.6):
            return self.arith("+", masked, one)
        return E(f"(-{self.arith('+', masked, two).code})", self.arith("+", masked, two).t)

    def float_divisor(self, e: E) -> E:
        pos = E(f"(abs({e.code}) + 0.5)", Runtime._pe(e.t, WEAK, e.lit, False))
        if pos.t is WEAK and e.t.is_int:
            pos.t = F32
        if self.ch.flip(0.5):
            return pos
        return E(f"(-{pos.code})", pos.t)

    def shift_count(self, t: ST) -> E:
        if self.ch.flip(0.4):
            return _lit(self.ch.integer(0, t.bits - 1))
        c = self.int_expr(1)
        return self.arith("&", c, self.like(t.bits - 1, c.t))

    def int_of(self, e: E) -> E:
        return e if e.t.is_int else self.cast(e, self.ch.choose(INT_TYPES))

    def int_expr(self, d) -> E:
        return self.int_of(self.expr(d))

    def arith(self, op: str, a: E, b: E) -> E:
        a, b = self.unify(a, b)
        if op in ("&", "|", "^"):
            t = promote(a.t, b.t)
        else:
            t = Runtime._pe(a.t, b.t, a.lit, b.lit)
        return E(f"({a.code} {op} {b.code})", t)

    # -- expressions ------------------------------------------------------------------------------
    PRODUCTIONS = ("arith", "cmp", "cast", "ifexp", "minmax", "divmod", "truediv", "bitwise",
                   "shift", "pow", "unary", "math1", "math2", "boolop", "not", "chain")

    def expr(self, d: int, scalars_only: bool = False) -> E:
        if d <= 0 or self.ch.flip(0.25):
            return self.leaf(scalars_only)
        kind = self.ch.choose(self.PRODUCTIONS)
        sub = lambda: self.expr(d - 1, scalars_only)
        ch = self.ch
        if kind == "arith":
            return self.arith(ch.choose(["+", "-", "*"]), sub(), sub())
        if kind == "cmp":
            a, b = self.unify(sub(), sub())
            op = ch.choose(["<", "<=", ">", ">=", "==", "!="])
            return E(f"({a.code} {op} {b.code})", I32)
        if kind == "chain":
            a, b, c = sub(), sub(), sub()
            try:
                promote(a.t, b.t), promote(b.t, c.t)
            except Rejected:
                return self.leaf(scalars_only)
            if any(self.weak_ok(x, y) is not x for x, y in ((a, b), (b, a), (b, c), (c, b))):
                return self.leaf(scalars_only)
            o1, o2 = ch.choose(["<", "<="]), ch.choose(["<", ">=", "!="])
            return E(f"({a.code} {o1} {b.code} {o2} {c.code})", I32)
        if kind == "cast":
            e = sub()
            return self.cast(e, ch.choose(TYPES))
        if kind == "ifexp":
            a, b = self.unify(sub(), sub())
            c = sub()
            return E(f"({a.code} if {c.code} else {b.code})", Runtime._pe(a.t, b.t, a.lit, b.lit))
        if kind == "minmax":
            return self.minmax(ch.choose(["min", "max"]), sub)
        if kind == "divmod" and self.in_divmod and "nested_divmod" in self.avoid:
            return self.arith(ch.choose(["+", "-", "*"]), sub(), sub())
        if kind == "divmod":
            op = ch.choose(["//", "%"])
            self.in_divmod += 1
            try:
                a, b = sub(), sub()
            finally:
                self.in_divmod -= 1
            if a.t.is_int and b.t.is_int:
                return self.arith(op, a, self.int_divisor(b))
            return self.arith(op, a, self.float_divisor(b))
        if kind == "truediv":
            a, b = sub(), sub()
            if not (a.t.is_int and b.t.is_int):
                a, b = self.weak_ok(a, b), self.weak_ok(b, a)
                t = Runtime._pe(a.t, b.t, a.lit, b.lit)
            else:
                t = F32
            return E(f"({a.code} / {b.code})", t)
        if kind == "bitwise":
            return self.arith(ch.choose(["&", "|", "^"]), self.int_of(sub()), self.int_of(sub()))
        if kind == "shift":
            a = self.int_of(sub())
            return E(f"({a.code} {ch.choose(['<<', '>>'])} {self.shift_count(a.t).code})", a.t)
        if kind == "pow":
            return self.power(sub)
        if kind == "unary":
            e = sub()
            op = ch.choose(["-", "abs", "~"])
            if op == "~":
                e = self.int_of(e)
                return E(f"(~{e.code})", e.t)
            if op == "abs":
                return E(f"abs({e.code})", e.t)
            if e.lit and e.code.strip("()-").isdigit():
                v = -int(e.code.strip("()"))
                if -2 ** 63 <= v < 2 ** 64:  # Tack folds -literal into the literal -v
                    return _lit(v)
                e = E(f"tack.u64({e.code})", U64, const=True)  # -u64 wraps
            if e.lit and e.code.startswith("K"):  # -K0 folds to the literal -5 as well
                return E(f"(-{e.code})", e.t, lit=True, const=True)
            return E(f"(-{e.code})", e.t)
        if kind == "math1":
            e = sub()
            if "math_int_literal" in self.avoid and e.lit:
                e = self.cast(e, F32)
            return E(f"{ch.choose(MATH1)}({e.code})", F32 if e.t.is_int else e.t)
        if kind == "math2":
            return self.math2(sub)
        if kind == "boolop":
            word = ch.choose([" and ", " or "])
            return E("(" + word.join(sub().code for _ in range(ch.integer(2, 3))) + ")", I32)
        return E(f"(not {sub().code})", I32)

    def minmax(self, fn: str, sub) -> E:
        acc = sub()
        codes, lit = [acc.code], acc.lit
        for _ in range(self.ch.integer(1, 2)):
            b = sub()
            try:
                promote(acc.t, b.t)
            except Rejected:  # cast the new argument, never the accumulated minimum
                b = self.cast(b, U64 if acc.t is U64 else I64)
            if self.weak_ok(b, acc) is not b or self.weak_ok(acc, b) is not acc:
                b = self.cast(b, F32)
            acc = E("", Runtime._pe(acc.t, b.t, lit, b.lit))
            codes.append(b.code)
            lit = False
        return E(f"{fn}({', '.join(codes)})", acc.t)

    def power(self, sub) -> E:
        a = sub()
        if a.t.is_int and self.ch.flip(0.6):
            if self.ch.flip(0.5):
                n = _lit(self.ch.integer(0, 5))
            else:
                c = self.int_expr(1)
                n = self.arith("&", c, self.like(3, c.t))
            if self.ch.flip(0.2):
                return E(f"pow({a.code}, {n.code})", a.t)
            return E(f"({a.code} ** {n.code})", a.t)
        b = self.ch.choose([_lit(2), _lit(3), E("0.5", WEAK), None])
        if b is None:
            b = sub()
        if a.t.is_int and b.t.is_int:
            a = self.cast(a, self.ch.choose(FLOAT_TYPES))
        a, b = self.weak_ok(a, b), self.weak_ok(b, a)
        return E(f"({a.code} ** {b.code})", Runtime._pe(a.t, b.t, a.lit, b.lit))

    def math2(self, sub) -> E:
        name = self.ch.choose(MATH2)
        args = [sub(), sub()]
        if "weak_bool" in self.avoid and any(x.code in ("True", "False") for x in args):
            args = [self.cast(x, F32) if x.t is WEAK else x for x in args]
        if all(x.t.is_int for x in args):
            t = F32
        else:
            t = Runtime._pe(args[0].t, args[1].t, args[0].lit, args[1].lit)
        return E(f"{name}({args[0].code}, {args[1].code})", t)

    def leaf(self, scalars_only: bool = False) -> E:
        ch = self.ch
        kinds = ["var", "int", "float", "typed", "bool", "constant"]
        if not scalars_only:
            kinds = ["load", "load", "var"] + kinds
        kind = ch.choose(kinds)
        if kind == "load":
            return self.load()
        if kind == "var":
            names = [(n, t) for n, t in self.visible().items()
                     if not (scalars_only and n == "i")]
            if names:
                n, t = ch.choose(names)
                return E(n, t)
            kind = "int"
        if kind == "int":
            if not scalars_only and ch.flip(0.1):  # an extent: an i64 baked into the code
                p = ch.choose([p for p in self.params if p.kind == "array"])
                return E(ch.choose([f"{p.name}.shape[0]", f"len({p.name})"] + (
                    [f"{p.name}.shape[1]"] if p.cols else [])), I64)
            return _lit(ch.choose(INT_LITERALS))
        if kind == "float":
            code = ch.choose(FLOAT_LITERALS)
            return E(f"({code})" if code.startswith("-") else code, WEAK, const=True)
        if kind == "constant":
            _, name, t, lit = ch.choose(CONSTANTS)
            return E(name, t, lit=lit, const=True)
        if kind == "typed":
            t = ch.choose(TYPES)
            v = ch.choose(INT_LITERALS[:12])
            if t.kind == "u" and v < 0 and ch.flip(0.5):
                v = -v
            return E(f"tack.{t.name}({v})", t, const=True)
        return E(ch.choose(["True", "False"]), I32, lit=True, const=True)

    def load(self) -> E:
        arrays = [p for p in self.params if p.kind == "array"]
        p = self.ch.choose(arrays)
        if p.depth:
            j, k = self.column(p.cols), self.column(p.depth)
            if self.ch.flip(0.3) and j.isdigit() and k.isdigit():
                return E(f"{p.name}[i * {p.cols * p.depth} + {int(j) * p.depth + int(k)}]", p.t)
            return E(f"{p.name}[i, {j}, {k}]", p.t)
        if p.cols:
            col = self.column(p.cols)
            if self.ch.flip(0.3) and col.isdigit():
                return E(f"{p.name}[i * {p.cols} + {col}]", p.t)
            if p.role == "in" and self.full_range and self.ch.flip(0.2):
                return E(f"{p.name}[{p.name}.shape[0] - 1 - i, {col}]", p.t)
            return E(f"{p.name}[i, {col}]", p.t)
        if p.role == "in" and self.full_range and p.name not in self.aliased and self.ch.flip(0.2):
            return E(f"{p.name}[{p.name}.shape[0] - 1 - i]", p.t)
        return E(f"{p.name}[i]", p.t)


def _indent(block: list, level: int) -> list:
    out = []
    for item in block:
        if isinstance(item, list):
            out += _indent(item, level + 1)
        else:
            out.append("    " * level + item)
    return out


def main(argv=None) -> int:  # pragma: no cover - manual fuzzing entry point
    import argparse

    from .oracle import OutsideDomain, reference

    ap = argparse.ArgumentParser(description="Fuzz Tack with random kernels against the oracle")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--size", type=int, default=7)
    args = ap.parse_args(argv)
    import tack

    failures = 0
    for k in range(args.count):
        spec = KernelGen(RandomChoices(args.seed * 100003 + k)).generate()
        pyargs = spec.make_args(args.size, k)
        try:
            ref = reference(spec.load(), *pyargs)
        except OutsideDomain:
            continue
        kern = spec.load()
        targs = [tack.array(a) if isinstance(a, np.ndarray) else a for a in pyargs]
        try:
            kern(*targs)
            bad = ref.mismatches([targs[p] for p in ref.positions], rows_of_tainted=True)
        except Exception as exc:  # noqa: BLE001
            bad = [f"{type(exc).__name__}: {exc}"]
        if bad:
            failures += 1
            print(f"--- seed {args.seed} kernel {k}\n{spec.source}\n" + "\n".join(bad))
    print(f"{failures} of {args.count} kernels disagree")
    return 1 if failures else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
