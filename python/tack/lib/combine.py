"""The combining steps every reduction shares, as `@tack.func`s, passed to the reductions'
loops and trees (`reductions.group_reduce`, tack.algorithms' folds) as their `combine`:
addition; minimum and maximum with the array rules (a NaN anywhere gives NaN; `min(0.0, -0.0)`
is -0.0 and `max` 0.0 in either order); the block reductions' NaN-first minimum and maximum; and
the plain maximum. Integers pass through the same code: their NaN tests are always false.
And `in_dtype`, the conversion every accumulator starts from."""
from ..frontend.inline import func
from ..intrinsics import local_array_like, select


@func
def isnan(a):
    return a != a  # noqa: PLR0124 - true for NaN only


@func
def add(a, b):
    return a + b


@func
def nan_min(a, b):
    # A tie of zeros: -((-a) + (-b)) is -0.0 when either is -0.0 (IEEE: +0.0 + -0.0 is +0.0).
    # `a == a - a` tests for zero in a's own type (a literal 0 does not mix with u64).
    tie = select(a == a - a, -((-a) + (-b)), a)
    return select(isnan(a), a, select(isnan(b), b, select(a < b, a, select(b < a, b, tie))))


@func
def nan_max(a, b):
    tie = select(a == a - a, a + b, a)  # +0.0 unless both are -0.0
    return select(isnan(a), a, select(isnan(b), b, select(a > b, a, select(b > a, b, tie))))


@func
def min_or_nan(a, b):
    """`tack.block_min`'s step: a NaN wins, otherwise the builtin `min` (whose choice between
    0.0 and -0.0 is the engine's, unlike nan_min's)."""
    return select(isnan(a), a, select(isnan(b), b, min(a, b)))


@func
def max_or_nan(a, b):
    """`tack.block_max`'s step: a NaN wins, otherwise the builtin `max`."""
    return select(isnan(a), a, select(isnan(b), b, max(a, b)))


@func
def larger(a, b):
    """The builtin `max`: softmax's row maxima, where no NaN rule is needed beyond max's."""
    return max(a, b)


@func
def in_dtype(like, v):
    """`v` converted to the dtype of array `like` (by a store: the kernel conversion rules)."""
    box = local_array_like(like, 1)
    box[0] = v
    return box[0]
