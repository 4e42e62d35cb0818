"""Shader helpers with GLSL definitions, as device functions (`from tack import math as tm`).

They work on scalars and, component by component, on vectors, because every operation they use
does (docs/language.md, "Builtins").
"""
from ..builtins.registry import HOST_FUNCTIONS
from ..frontend.inline import func
from ..intrinsics import select

# ruff: noqa: F821 - the math functions below are bound by this update, which ruff cannot see
# `tack.math.sqrt` and the other math functions (builtins/functions.py)
globals().update(HOST_FUNCTIONS)


@func
def fract(x):
    return x - floor(x)


@func
def mix(x, y, a):
    return x * (1.0 - a) + y * a


@func
def clamp(x, lo, hi):
    return min(max(x, lo), hi)


@func
def saturate(x):
    return min(max(x, 0.0), 1.0)


@func
def smoothstep(e0, e1, x):
    t = min(max((x - e0) / (e1 - e0), 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


@func
def step(edge, x):
    return select(x < edge, 0.0, 1.0)


@func
def sign(x):
    return select(x > 0.0, 1.0, select(x < 0.0, -1.0, 0.0))


@func
def length(v):
    return v.norm()


@func
def distance(a, b):
    return (a - b).norm()


@func
def normalize(v):
    return v / v.norm()
