"""Counter-based random numbers with explicit state (`from tack import random`), written in Tack's
kernel language, plus NumPy mirrors (`np_seed`, `np_uniform`, ...) that draw the same numbers.

The state is a u32; every draw returns its value and the next state, so a kernel draws the same
numbers on every engine and in any thread order. The generator is a PCG RXS-M-XS output over an
LCG step (written out in docs/language.md, "Random numbers"): `uniform` and the states agree to
the bit with the mirrors, `normal` and the directions to the rounding of log, sqrt, cos and sin.
"""
import numpy as np

from ..constants import constant
from ..dtypes import f32, u32
from ..frontend.inline import func

MUL = constant(747796405, u32)
INC = constant(2891336453, u32)
MIX = constant(277803737, u32)
TWO_PI = constant(6.283185307179586)
INV_2_24 = constant(1.0 / 16777216.0)  # 2**-24, exact


@func
def advance(s):
    x = u32(s) * MUL + INC
    w = ((x >> ((x >> 28) + 4)) ^ x) * MIX
    return (w >> 22) ^ w


@func
def seed(index, stream):
    return advance(u32(index) ^ advance(u32(stream)))


@func
def unit(s):
    return f32(s >> 8) * INV_2_24


@func
def uniform(s):
    return unit(s), advance(s)


@func
def normal(s):
    u1 = 1.0 - unit(s)
    s2 = advance(s)
    u2 = unit(s2)
    return sqrt(-2.0 * log(u1)) * cos(TWO_PI * u2), advance(s2)  # noqa: F821


@func
def direction2(s):
    a = TWO_PI * unit(s)
    return [cos(a), sin(a)], advance(s)  # noqa: F821


@func
def direction3(s):
    a = TWO_PI * unit(s)
    s2 = advance(s)
    z = unit(s2) * 2.0 - 1.0
    r = sqrt(1.0 - z * z)  # noqa: F821
    return [r * cos(a), r * sin(a), z], advance(s2)  # noqa: F821


# ---- NumPy mirrors: the same algorithm over arrays of states ----------------------------------
def _u32(x):
    return np.asarray(x).astype(np.uint32, copy=False) if np.asarray(x).dtype != np.uint32 \
        else np.asarray(x)


def np_advance(s):
    """The next state of each state in `s` (a NumPy array of u32), as `advance` computes it."""
    with np.errstate(over="ignore"):
        x = _u32(s) * np.uint32(MUL) + np.uint32(INC)
        w = ((x >> ((x >> np.uint32(28)) + np.uint32(4))) ^ x) * np.uint32(MIX)
        return (w >> np.uint32(22)) ^ w


def np_seed(index, stream):
    """The first state of each `index` in `stream`, as `seed` computes it in a kernel."""
    idx = np.asarray(index).astype(np.int64).astype(np.uint32)
    st = np.asarray(stream).astype(np.int64).astype(np.uint32)
    return np_advance(idx ^ np_advance(st))


def _unit(s):
    return (s >> np.uint32(8)).astype(np.float32) * np.float32(INV_2_24)


def np_uniform(s):
    """(a float32 in [0, 1) per state, the next states), as `uniform` computes them."""
    return _unit(_u32(s)), np_advance(s)


def np_normal(s):
    """(a standard normal float32 per state, the next states), as `normal` computes them."""
    s = _u32(s)
    u1 = np.float32(1.0) - _unit(s)
    s2 = np_advance(s)
    u2 = _unit(s2)
    two_pi = np.float32(TWO_PI)
    value = np.sqrt(np.float32(-2.0) * np.log(u1)) * np.cos(two_pi * u2)
    return value.astype(np.float32), np_advance(s2)


def np_direction2(s):
    """(a unit 2-vector per state, the next states), as `direction2` computes them."""
    a = np.float32(TWO_PI) * _unit(_u32(s))
    return np.stack([np.cos(a), np.sin(a)], axis=-1).astype(np.float32), np_advance(s)


def np_direction3(s):
    """(a unit 3-vector per state, the next states), as `direction3` computes them."""
    s = _u32(s)
    a = np.float32(TWO_PI) * _unit(s)
    s2 = np_advance(s)
    z = _unit(s2) * np.float32(2.0) - np.float32(1.0)
    r = np.sqrt(np.float32(1.0) - z * z)
    d = np.stack([r * np.cos(a), r * np.sin(a), z], axis=-1).astype(np.float32)
    return d, np_advance(s2)
